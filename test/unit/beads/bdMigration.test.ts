// bd 1.3's first run migrates the store (src/beads/bdMigration.ts): recognised before it starts,
// run once to the end in the background however short the CLI timeout, the project read from its
// file meanwhile, and writable again once it is done. Without that, a timeout kills it on every call.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationEnded } from '../../../src/beads/bdMigration';
import { createCliBackend } from '../../../src/beads/cliBackend';
import { detectProject } from '../../../src/beads/detect';
import { CliError } from '../../../src/beads/errors';
import { recoveryContextFor } from '../../../src/bin/context';

const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'bd-migration-'));
const previousProcessDir = process.env.BEADS_RECOVERY_PROCESS_DIR;
beforeAll(() => {
  // The markers live beside the process registry: this test's own, not the machine's.
  process.env.BEADS_RECOVERY_PROCESS_DIR = join(base, 'state', 'processes');
});
afterAll(() => {
  // A migration a test left running (the stand-in's, detached by design) ends with the test.
  const markers = join(base, 'state', 'migrations');
  for (const name of existsSync(markers) ? readdirSync(markers) : []) {
    if (!name.endsWith('.json') || name === 'versions.json') continue;
    const { pid } = JSON.parse(readFileSync(join(markers, name), 'utf8')) as { pid: number };
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (previousProcessDir === undefined) delete process.env.BEADS_RECOVERY_PROCESS_DIR;
  else process.env.BEADS_RECOVERY_PROCESS_DIR = previousProcessDir;
  rmSync(base, { recursive: true, force: true });
});
let counter = 0;

const at = '2026-02-01T10:00:00Z';
const STORE = [
  { id: 'm-work', title: 'The work in progress', status: 'in_progress', priority: 1, issue_type: 'task', assignee: 'me', created_at: at, updated_at: at },
  { id: 'm-next', title: 'Next up', status: 'open', priority: 2, issue_type: 'task', created_at: at, updated_at: at },
];

/** A bd store last used by bd 1.0.5 (its `.local_version`), and bd 1.3.0 on PATH whose migration takes `migrationMs`. */
function upgradedStore(migrationMs: number) {
  const root = join(base, `ws-${++counter}`);
  mkdirSync(join(root, '.beads'), { recursive: true });
  writeFileSync(join(root, '.beads', 'issues.jsonl'), STORE.map((line) => JSON.stringify(line)).join('\n') + '\n');
  writeFileSync(join(root, '.beads', 'metadata.json'), JSON.stringify({ database: 'dolt', backend: 'dolt', dolt_mode: 'embedded' }));
  writeFileSync(join(root, '.beads', '.local_version'), '1.0.5\n');
  const log = join(root, 'calls.log');
  const env = { BEADS_STANDIN_BD_VERSION: '1.3.0', BEADS_STANDIN_BD_MIGRATION_MS: String(migrationMs), BEADS_STANDIN_LOG: log };
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { args: string[]; exit: number | null; signal?: string }) : []);
  const migrations = () => calls().filter((call) => call.args.join(' ') === 'list --json --limit 1');
  return { root, env, calls, migrations };
}

const detect = (root: string, env: Record<string, string>, timeoutMs = 1_000) => detectProject(root, { trusted: true, timeoutMs, pathEnv: BIN, preferred: 'bd', env });

describe("bd 1.3's first-run migration", () => {
  it('without recognising it, every call is killed at the timeout and the migration never finishes (the problem)', async () => {
    const { root, env, calls } = upgradedStore(4_000);
    const backend = createCliBackend({ dialect: 'bd', command: join(BIN, 'bd'), root, timeoutMs: 1_000, env });
    for (let attempt = 0; attempt < 2; attempt++) {
      const failure = await backend.listInProgress().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CliError);
      expect((failure as CliError).kind).toBe('timeout');
    }
    expect(calls().every((call) => call.signal !== undefined)).toBe(true);
  }, 30_000);

  it('is recognised before it starts, left to finish however short the timeout, read from the file meanwhile, then writable', async () => {
    const { root, env, migrations } = upgradedStore(3_000);
    const first = await detect(root, env);
    expect(first.kind).toBe('readonly');
    if (first.kind !== 'readonly') return;
    expect(first.reason).toBe('migrating');
    expect(first.message).toMatch(/bd 1\.3\.0 is migrating this project's store in place \(last used with bd 1\.0\.5\).*left to finish rather than stopped/);
    expect(first.message).toContain('issues.jsonl read-only');
    // Read meanwhile: from the file, no process.
    expect((await first.backend.listInProgress()).map((issue) => issue.id)).toEqual(['m-work']);

    // Another process meanwhile (a hook, a second window): the same migration, not a second one.
    const second = await detect(root, env);
    expect(second.kind === 'readonly' && second.reason).toBe('migrating');
    expect(migrations()).toHaveLength(0);

    if (!first.migration) throw new Error('expected the running migration');
    await migrationEnded(first.migration, 100);
    const [migration] = migrations();
    expect(migration).toMatchObject({ exit: 0 });
    expect(migration?.signal).toBeUndefined();

    const after = await detect(root, env);
    expect(after.kind).toBe('cli');
    if (after.kind !== 'cli') return;
    expect((await after.backend.listInProgress()).map((issue) => issue.id)).toEqual(['m-work']);
    await after.backend.claim('m-next');
    expect(migrations()).toHaveLength(1);
  }, 30_000);

  it('a migration that was interrupted (its process killed) is started again and then finishes', async () => {
    const { root, env, migrations } = upgradedStore(60_000);
    const first = await detect(root, env);
    if (first.kind !== 'readonly' || !first.migration) throw new Error('expected a migration');
    // Killed once bd has started on it (it records its version first).
    for (let waited = 0; readFileSync(join(root, '.beads', '.local_version'), 'utf8') !== '1.3.0\n' && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
    process.kill(-first.migration.pid, 'SIGKILL');
    await migrationEnded(first.migration, 50);
    // bd has recorded 1.3.0 by now; only the note of the unfinished migration says the schema is behind.
    expect(readFileSync(join(root, '.beads', '.local_version'), 'utf8')).toBe('1.3.0\n');
    const quick = { ...env, BEADS_STANDIN_BD_MIGRATION_MS: '500' };
    const again = await detect(root, quick);
    if (again.kind !== 'readonly' || !again.migration) throw new Error('expected the migration to start again');
    await migrationEnded(again.migration, 100);
    // The killed run never logged (SIGKILL); the one started again finished.
    expect(migrations().map((call) => call.exit)).toEqual([0]);
    expect((await detect(root, quick)).kind).toBe('cli');
  }, 30_000);

  it('the command line and hooks say so on stderr and give the context from the file, in time', async () => {
    const { root, env } = upgradedStore(20_000);
    const warnings: string[] = [];
    const started = Date.now();
    // The command line finds bd on PATH and hands it its own environment.
    const saved = { ...process.env };
    Object.assign(process.env, env, { PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}` });
    const result = await recoveryContextFor(root, {
      env: { ...process.env, BEADS_RECOVERY_CLI: 'bd', BEADS_RECOVERY_TIMEOUT_MS: '1000' },
      warn: (line) => warnings.push(line),
    }).finally(() => {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(warnings.join('\n')).toMatch(/bd 1\.3\.0 is migrating this project's store/);
    expect(result.markdown).toContain('m-work');
    expect(result.state).toBe('resume');
  }, 30_000);

  it('a store already on 1.3, or never used by an older bd, is not migrated and costs no extra process', async () => {
    const { root, env, calls } = upgradedStore(5_000);
    writeFileSync(join(root, '.beads', '.local_version'), '1.3.0\n');
    expect((await detect(root, env)).kind).toBe('cli');
    rmSync(join(root, '.beads', '.local_version'));
    expect((await detect(root, env)).kind).toBe('cli');
    expect(calls().map((call) => call.args[0])).toEqual(['where', 'where']);
  }, 30_000);

  it('an older bd on PATH with an older store is asked its version once, then remembered', async () => {
    const { root, calls } = upgradedStore(5_000);
    const env = { BEADS_STANDIN_BD_VERSION: '1.2', BEADS_STANDIN_LOG: join(root, 'calls.log') };
    expect((await detect(root, env)).kind).toBe('cli');
    expect((await detect(root, env)).kind).toBe('cli');
    expect(calls().map((call) => call.args[0])).toEqual(['version', 'where', 'where']);
  }, 30_000);
});
