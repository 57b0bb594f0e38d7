// beads' own files (src/core/beadsFiles.ts) are nobody's work, for both CLIs and every version the
// stand-ins model: what a run leaves in and beside `.beads/` never shows under Uncommitted
// Changes, in a checkpoint's Files: line or as an edit, and a read's own files refresh nothing.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBeadsFile, isVolatileBeadsFile } from '../../../src/core/beadsFiles';
import { trackedPathFilter } from '../../../src/core/ledger';
import { gitStatus } from '../../../src/git/status';
import { runStandin } from '../../fixtures/standin/harness';

const base = mkdtempSync(join(tmpdir(), 'beads-files-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const issue = { id: 'f-1', title: 'One', status: 'open', priority: 2, issue_type: 'task', created_at: '2026-02-01T10:00:00Z', updated_at: '2026-02-01T10:00:00Z' };

/** A committed git work tree with a `.beads/` store whose issues.jsonl is tracked, as users keep it. */
function repository(): string {
  const dir = join(base, `repo-${++counter}`);
  mkdirSync(join(dir, '.beads'), { recursive: true });
  writeFileSync(join(dir, '.beads', 'issues.jsonl'), JSON.stringify(issue) + '\n');
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return dir;
}

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === '.git') return [];
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

const RUNS: { name: string; dialect: 'bd' | 'br'; env: Record<string, string> }[] = [
  { name: 'bd 1.0.4', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.0.4' } },
  { name: 'bd 1.3.0, after its first-run migration', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.3.0', BEADS_STANDIN_BD_MIGRATION_MS: '0' } },
  { name: 'br 0.2.15', dialect: 'br', env: {} },
  { name: 'br 0.5.7', dialect: 'br', env: { BEADS_STANDIN_BR_VERSION: '0.5.7' } },
];

describe.each(RUNS)('what $name leaves behind', ({ dialect, env }) => {
  it('is not work: git status, the ledger and the Files: line leave it out; a read refreshes nothing', async () => {
    const dir = repository();
    // A write (which changes issues.jsonl, as it should), then reads on the written store.
    expect(runStandin(dialect, ['update', 'f-1', '--claim', '--json'], { cwd: dir, env }).code).toBe(0);
    const stamp = () => new Map(filesUnder(dir).map((file) => [file, statSync(join(dir, file)).mtimeMs]));
    const afterWrite = stamp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const args of [['list', '--json'], ['show', 'f-1', '--json'], ['ready', '--json']]) expect(runStandin(dialect, args, { cwd: dir, env }).code).toBe(0);

    expect(await gitStatus(dir, { timeoutMs: 10_000 })).toEqual([]);
    const isWork = trackedPathFilter([]);
    const left = filesUnder(dir).filter((file) => file !== 'README.md');
    expect(left.length).toBeGreaterThan(0);
    for (const file of left) expect({ file, work: isWork(file) }).toEqual({ file, work: false });
    // What the reads created or touched is volatile: a refresh after a read must not cause another.
    const byReads = [...stamp()].filter(([file, mtime]) => afterWrite.get(file) !== mtime).map(([file]) => file);
    if (dialect === 'br' && env.BEADS_STANDIN_BR_VERSION) expect(byReads.length).toBeGreaterThan(0);
    for (const file of byReads) expect({ file, volatile: isVolatileBeadsFile(file.slice('.beads/'.length)) }).toEqual({ file, volatile: true });
  }, 60_000);
});

describe('the one list of beads files', () => {
  it('names the gate lock beside .beads, the store folders, and nothing that merely resembles them', () => {
    for (const file of ['.beads.gate.lock', 'pkg/.beads.gate.lock', '.beads/issues.jsonl', 'sub/_beads/beads.db', '.beads/embeddeddolt/x', 'MIGRATION-FREEZE']) expect(isBeadsFile(file)).toBe(true);
    for (const file of ['src/beads.ts', 'my.beads/x', '.beadsrc', 'docs/.beads.gate.lock/x', 'beads.gate.lock', 'MIGRATION-FREEZE.md']) expect(isBeadsFile(file)).toBe(false);
  });

  it('tells the engine files of every version from the data: locks, sidecars and runtime state are volatile, the data is not', () => {
    const volatile = [
      '.write.lock', '.br-db-openers-123.lock', 'embeddeddolt.gate.lock', 'beads.db-shm', 'beads.db-wal-cert', 'beads.db-wal-cert-head',
      'beads.db-fsqlite-ns-gate', 'beads.db-fsqlite-ns-use', 'beads.db.fsqlite-migration-state', '.doctor/run-1/actions.jsonl', '.br_history/a.jsonl',
      '.br_recovery/x', 'last-touched', '.local_version', 'issues.jsonl.4242.tmp', 'bd.sock', 'daemon.pid', 'dolt-server.port', 'export-state.json',
    ];
    const data = ['issues.jsonl', 'beads.db', 'beads.db-wal', 'config.yaml', 'metadata.json', 'policy.yaml', 'embeddeddolt/beads/.dolt/noms/abc', 'interactions.jsonl'];
    for (const file of volatile) expect({ file, volatile: isVolatileBeadsFile(file) }).toEqual({ file, volatile: true });
    for (const file of data) expect({ file, volatile: isVolatileBeadsFile(file) }).toEqual({ file, volatile: false });
  });
});
