// findRepository reads the git folder from the files where they say it plainly, with no process
// (a start hook's git process is a good part of its own cost, issue 28): its answer must be git's
// own in every layout, and where a plain reading could differ it asks git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRepository, repositoryFromFiles } from '../../../src/git/repo';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'repo-files-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** What git itself says, in findRepository's shape. */
function gitsAnswer(folder: string) {
  try {
    const [root, gitDir, commonDir] = git(folder, 'rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir').split('\n');
    return { root, gitDir, commonDir: realpathSync(path.resolve(folder, commonDir!)) };
  } catch {
    return undefined;
  }
}

function repository(name: string): string {
  const dir = path.join(base, name);
  mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
  git(base, 'init', '-q', dir);
  writeFileSync(path.join(dir, 'a.txt'), 'a');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'first');
  return dir;
}

describe('the git folder read from the files', () => {
  it.skipIf(process.platform === 'win32')('answers as git does at the top, in a subfolder and in a linked worktree, with no process', async () => {
    const main = repository('main');
    const linked = path.join(base, 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    mkdirSync(path.join(linked, 'sub'));
    for (const folder of [main, path.join(main, 'src'), path.join(main, 'src', 'deep'), linked, path.join(linked, 'sub')]) {
      const read = await repositoryFromFiles(folder, {});
      expect(read, folder).not.toBe('ask-git');
      expect(read, folder).toEqual(gitsAnswer(folder));
      expect(await findRepository(folder, { timeoutMs: 10_000 }), folder).toEqual(gitsAnswer(folder));
    }
  });

  it.skipIf(process.platform === 'win32')('gives the real path when the folder is reached through a link, as git does', async () => {
    const main = repository('linked-path');
    const link = path.join(base, 'via-link');
    symlinkSync(main, link);
    expect(await repositoryFromFiles(path.join(link, 'src'), {})).toEqual(gitsAnswer(path.join(link, 'src')));
  });

  it.skipIf(process.platform === 'win32')('finds nothing outside a work tree', async () => {
    const outside = path.join(base, 'plain', 'folder');
    mkdirSync(outside, { recursive: true });
    // Only meaningful where no repository sits above the temporary folder (git agrees).
    if (gitsAnswer(outside) === undefined) expect(await repositoryFromFiles(outside, {})).toBeUndefined();
  });

  it.skipIf(process.platform === 'win32')('asks git where a plain reading could differ from its answer', async () => {
    const main = repository('unusual');
    // Inside the git dir, a discovery variable, a config that moves the work tree.
    expect(await repositoryFromFiles(path.join(main, '.git', 'refs'), {})).toBe('ask-git');
    expect(await repositoryFromFiles(main, { GIT_DIR: path.join(main, '.git') })).toBe('ask-git');
    expect(await repositoryFromFiles(main, { GIT_CEILING_DIRECTORIES: base })).toBe('ask-git');
    const moved = repository('moved');
    git(moved, 'config', 'core.worktree', path.join(base, 'elsewhere'));
    expect(await repositoryFromFiles(moved, {})).toBe('ask-git');
    const included = repository('included');
    git(included, 'config', 'include.path', 'extra.cfg');
    expect(await repositoryFromFiles(included, {})).toBe('ask-git');
    // A bare repository: git's answer (none) comes from git.
    const bare = path.join(base, 'bare.git');
    git(base, 'init', '-q', '--bare', bare);
    expect(await repositoryFromFiles(bare, {})).toBe('ask-git');
    expect(await findRepository(bare, { timeoutMs: 10_000 })).toEqual(gitsAnswer(bare));
  });

  it.skipIf(process.platform === 'win32')('a submodule, whose git dir sets core.worktree, is asked of git and answered as git does', async () => {
    const inner = repository('inner');
    const outer = repository('outer');
    git(outer, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner, 'mod');
    const folder = path.join(outer, 'mod');
    expect(await repositoryFromFiles(folder, {})).toBe('ask-git');
    expect(await findRepository(folder, { timeoutMs: 10_000 })).toEqual(gitsAnswer(folder));
  });
});
