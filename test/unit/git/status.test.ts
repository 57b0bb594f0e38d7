import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePorcelainZ } from '../../../src/core/porcelain';
import { CliError } from '../../../src/beads/errors';
import { findRepository } from '../../../src/git/repo';
import { GitNotRunError, NotGitRepositoryError, refuseGit } from '../../../src/git/runGit';
import { gitStatus } from '../../../src/git/status';

describe('parsePorcelainZ', () => {
  it('reads modified, added, deleted and untracked entries', () => {
    const text = ' M src/a.ts\0M  src/b.ts\0A  new.ts\0 D gone.ts\0?? notes.md\0MM both.ts\0';
    expect(parsePorcelainZ(text)).toEqual([
      { path: 'src/a.ts', status: ' M' },
      { path: 'src/b.ts', status: 'M ' },
      { path: 'new.ts', status: 'A ' },
      { path: 'gone.ts', status: ' D' },
      { path: 'notes.md', status: '??' },
      { path: 'both.ts', status: 'MM' },
    ]);
  });

  it('takes the field after a rename or copy as its source', () => {
    const text = 'R  renamed.ts\0original.ts\0C  copy.ts\0source.ts\0 M after.ts\0RM moved and edited.ts\0old name.ts\0';
    expect(parsePorcelainZ(text)).toEqual([
      { path: 'renamed.ts', status: 'R ', from: 'original.ts' },
      { path: 'copy.ts', status: 'C ', from: 'source.ts' },
      { path: 'after.ts', status: ' M' },
      { path: 'moved and edited.ts', status: 'RM', from: 'old name.ts' },
    ]);
  });

  it('keeps spaces, quotes, arrows and newlines in names as they are', () => {
    const text = '?? with space.txt\0?? line\nbreak.txt\0 M "quoted".txt\0?? a -> b.txt\0?? ünïcode.txt\0';
    expect(parsePorcelainZ(text).map((change) => change.path)).toEqual(['with space.txt', 'line\nbreak.txt', '"quoted".txt', 'a -> b.txt', 'ünïcode.txt']);
  });

  it('reads nothing from empty output', () => {
    expect(parsePorcelainZ('')).toEqual([]);
  });
});

describe('gitStatus (real git)', () => {
  const root = mkdtempSync(join(tmpdir(), 'beads-porcelain-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function git(cwd: string, ...args: string[]): void {
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
  }

  it('lists renames, untracked files in subfolders and names with spaces and newlines', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'original.txt'), 'content that is long enough to be recognized as a rename\n'.repeat(5));
    writeFileSync(join(repo, 'edited.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    git(repo, 'mv', 'original.txt', 'renamed file.txt');
    writeFileSync(join(repo, 'edited.txt'), 'two\n');
    mkdirSync(join(repo, 'deep', 'er'), { recursive: true });
    writeFileSync(join(repo, 'deep', 'er', 'untracked.md'), 'x');
    writeFileSync(join(repo, 'line\nbreak.txt'), 'x');
    writeFileSync(join(repo, 'ünïcode name.txt'), 'x');

    const changes = await gitStatus(repo, { timeoutMs: 10_000 });
    expect(changes).toEqual(
      expect.arrayContaining([
        { path: 'renamed file.txt', status: 'R ', from: 'original.txt' },
        { path: 'edited.txt', status: ' M' },
        { path: 'deep/er/untracked.md', status: '??' },
        { path: 'line\nbreak.txt', status: '??' },
        { path: 'ünïcode name.txt', status: '??' },
      ]),
    );
    expect(changes).toHaveLength(5);
  });

  it('gives an empty list for a clean repository', async () => {
    const clean = join(root, 'clean');
    mkdirSync(clean);
    git(clean, 'init', '-q');
    expect(await gitStatus(clean, { timeoutMs: 10_000 })).toEqual([]);
  });

  it('says "not a git repository" outside one', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'beads-not-git-'));
    try {
      await expect(gitStatus(plain, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(NotGitRepositoryError);
      await expect(gitStatus(plain, { timeoutMs: 10_000 })).rejects.toThrow(/is not a git repository/);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it('reports a missing git as notFound', async () => {
    await expect(gitStatus(root, { timeoutMs: 10_000, gitPath: join(root, 'no-such-git') })).rejects.toMatchObject({ kind: 'notFound' });
    await expect(gitStatus(root, { timeoutMs: 10_000, gitPath: join(root, 'no-such-git') })).rejects.toBeInstanceOf(CliError);
  });

  it('runs no git at all while refused (Restricted Mode), because a repository can make git run programs', async () => {
    const repo = join(root, 'hostile');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    const marker = join(root, 'fsmonitor-ran');
    const monitor = join(root, 'fsmonitor.sh');
    writeFileSync(monitor, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
    chmodSync(monitor, 0o755);
    git(repo, 'config', 'core.fsmonitor', monitor);
    const reason = 'git is not run in an untrusted workspace (Restricted Mode).';
    refuseGit(reason);
    try {
      await expect(gitStatus(repo, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(GitNotRunError);
      await expect(gitStatus(repo, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(NotGitRepositoryError);
      await expect(gitStatus(repo, { timeoutMs: 10_000 })).rejects.toThrow(reason);
      expect(await findRepository(repo, { timeoutMs: 10_000 })).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
    } finally {
      refuseGit(undefined);
    }
    // Allowed again, git runs, and with it the repository's fsmonitor: the hazard is real.
    if (process.platform !== 'win32') {
      await gitStatus(repo, { timeoutMs: 10_000 });
      expect(existsSync(marker)).toBe(true);
    }
  });
});
