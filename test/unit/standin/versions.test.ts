// Holds the stand-ins' version switch (test/fixtures/standin/versions.cjs) to what each release
// of bd and br does, one behaviour per test, each named after its source in docs/BEADS_CONTRACT.md §9.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJson, runStandin, runStandinAsync, storeWith } from '../../fixtures/standin/harness';

const TIMEOUT = 60_000;
type Json = Record<string, unknown>;

const at = '2026-02-01T10:00:00Z';
const issue = (id: string, fields: Json = {}) => ({ id, title: `Title of ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: at, updated_at: at, ...fields });
const bd13 = { BEADS_STANDIN_BD_VERSION: '1.3.0' };

/** A bd store last used by bd 1.0.5: its schema is the one bd 1.3 migrates on its first run. */
function storeFromBd105(records: unknown[] = [issue('m-1')]): string {
  const ws = storeWith(records);
  fs.writeFileSync(path.join(ws, '.beads', '.local_version'), '1.0.5\n');
  return ws;
}

describe('bd 1.3.0 / 1.3.1 (CHANGELOG [1.3.0], gastownhall/beads @ 011d5d95)', () => {
  it('every store-opening run records its version in .beads/.local_version first (cmd/bd/version_tracking.go trackBdVersion)', () => {
    const ws = storeWith([issue('v-1')]);
    runJson('bd', ['list', '--json'], { cwd: ws, env: { BEADS_STANDIN_BD_VERSION: '1.0.4' } });
    expect(fs.readFileSync(path.join(ws, '.beads', '.local_version'), 'utf8')).toBe('1.0.4\n');
    runJson('bd', ['list', '--json'], { cwd: ws, env: { BEADS_STANDIN_BD_VERSION: '1.3.1', BEADS_STANDIN_BD_MIGRATION_MS: '0' } });
    expect(fs.readFileSync(path.join(ws, '.beads', '.local_version'), 'utf8')).toBe('1.3.1\n');
  }, TIMEOUT);

  it('Upgrade notes: the first run after an upgrade migrates in place, slowly, printing nothing when piped; the next run is quick', async () => {
    const ws = storeFromBd105();
    const env = { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '1500' };
    const first = await runStandinAsync('bd', ['list', '--json'], { cwd: ws, env });
    expect(first.code).toBe(0);
    expect(first.ms).toBeGreaterThanOrEqual(1500);
    expect(first.stderr).toBe('');
    expect((JSON.parse(first.stdout) as Json[]).map((found) => found.id)).toEqual(['m-1']);
    // Not a stopwatch on a loaded machine: the next run is told a migration would take ten minutes,
    // so only a run that does not migrate again answers inside the half minute it is given.
    const second = runStandin('bd', ['list', '--json'], { cwd: ws, env: { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '600000' }, timeoutMs: 30_000 });
    expect(second.signal).toBeNull();
    expect(second.code).toBe(0);
  }, TIMEOUT);

  it('Upgrade notes: a migration that is killed is resumed by the next run (crash-resumable), and another bd meanwhile meets the exclusive lock', async () => {
    const ws = storeFromBd105();
    const env = { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '30000' };
    const killed = runStandin('bd', ['list', '--json'], { cwd: ws, env, timeoutMs: 1500 });
    expect(killed.signal).toBe('SIGTERM');
    const migrating = runStandinAsync('bd', ['list', '--json'], { cwd: ws, env: { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '2000' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const meanwhile = runStandin('bd', ['show', 'm-1', '--json'], { cwd: ws, env: bd13 });
    expect(meanwhile.code).toBe(1);
    expect(meanwhile.stderr).toMatch(/another process holds the exclusive lock/);
    const done = await migrating;
    expect(done.code).toBe(0);
    expect(done.ms).toBeGreaterThanOrEqual(2000);
  }, TIMEOUT);

  it('`version` opens no store, so it neither migrates nor waits (CHANGELOG be-xil: version skips store init)', () => {
    const ws = storeFromBd105();
    const result = runStandin('bd', ['version', '--json'], { cwd: ws, env: { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '30000' } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ version: '1.3.0' });
    expect(fs.readFileSync(path.join(ws, '.beads', '.local_version'), 'utf8')).toBe('1.0.5\n');
  }, TIMEOUT);

  it('Changed (dc-6jaq, #6028): a MIGRATION-FREEZE in the workspace, the cwd or an ancestor makes writes exit 14 naming the marker; reads work', () => {
    const ws = storeWith([issue('f-1')]);
    const sub = path.join(ws, 'sub', 'dir');
    fs.mkdirSync(sub, { recursive: true });
    for (const marker of [path.join(ws, 'MIGRATION-FREEZE'), path.join(ws, 'sub', 'MIGRATION-FREEZE')]) {
      fs.writeFileSync(marker, '');
      const refused = runStandin('bd', ['update', 'f-1', '--claim', '--json'], { cwd: sub, env: bd13 });
      expect(refused.code).toBe(14);
      expect(refused.stderr).toMatch(/workspace is frozen for migration/);
      expect(refused.stderr).toContain(marker);
      expect(runStandin('bd', ['comments', 'add', 'f-1', 'x', '--json'], { cwd: sub, env: bd13 }).code).toBe(14);
      expect(runJson('bd', ['show', 'f-1', '--json'], { cwd: sub, env: bd13 })).toHaveLength(1);
      fs.rmSync(marker);
    }
    expect(runStandin('bd', ['update', 'f-1', '--claim', '--json'], { cwd: sub, env: bd13 }).code).toBe(0);
    // bd before 1.3 knows no freeze.
    const older = storeWith([issue('f-2')]);
    fs.writeFileSync(path.join(older, 'MIGRATION-FREEZE'), '');
    expect(runStandin('bd', ['update', 'f-2', '--claim', '--json'], { cwd: older, env: { BEADS_STANDIN_BD_VERSION: '1.0.5' } }).code).toBe(0);
  }, TIMEOUT);

  it('Changed (#5920, #6048, #5043): a shared server is never migrated without consent; reads warn and go on, writes refuse; BD_ALLOW_REMOTE_MIGRATE=1 migrates', () => {
    const ws = storeFromBd105([issue('s-1')]);
    fs.writeFileSync(path.join(ws, '.beads', 'metadata.json'), JSON.stringify({ backend: 'dolt', dolt_mode: 'server' }));
    const read = runStandin('bd', ['list', '--json'], { cwd: ws, env: bd13 });
    expect(read.code).toBe(0);
    expect(read.stderr).toMatch(/never migrated automatically.*bd migrate schema.*BD_ALLOW_REMOTE_MIGRATE=1/);
    const write = runStandin('bd', ['update', 's-1', '--claim', '--json'], { cwd: ws, env: bd13 });
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/refusing to write: .*BD_ALLOW_REMOTE_MIGRATE=1/);
    const consented = runStandin('bd', ['update', 's-1', '--claim', '--json'], { cwd: ws, env: { ...bd13, BD_ALLOW_REMOTE_MIGRATE: '1', BEADS_STANDIN_BD_MIGRATION_MS: '100' } });
    expect(consented.code).toBe(0);
    expect(runStandin('bd', ['update', 's-1', '--title', 'again', '--json'], { cwd: ws, env: bd13 }).code).toBe(0);
  }, TIMEOUT);

  it('Added (#5046, #5093): .beads.gate.lock beside .beads and .beads/embeddeddolt.gate.lock appear and stay', () => {
    const ws = storeWith([issue('g-1')]);
    runJson('bd', ['list', '--json'], { cwd: ws, env: { BEADS_STANDIN_BD_VERSION: '1.0.5' } });
    expect(fs.existsSync(path.join(ws, '.beads.gate.lock'))).toBe(false);
    runJson('bd', ['list', '--json'], { cwd: ws, env: { ...bd13, BEADS_STANDIN_BD_MIGRATION_MS: '0' } });
    expect(fs.existsSync(path.join(ws, '.beads.gate.lock'))).toBe(true);
    expect(fs.existsSync(path.join(ws, '.beads', 'embeddeddolt.gate.lock'))).toBe(true);
  }, TIMEOUT);

  it('[1.2.1] Added (#5546–#5586): show --brief-deps cuts each dependency to six keys; list/ready --brief drop the free text; 1.0.5 rejects both', () => {
    const ws = storeWith([
      issue('b-1', { description: 'long text', notes: 'more', design: 'd', acceptance_criteria: 'a' }),
      issue('b-2', { dependencies: [{ issue_id: 'b-2', depends_on_id: 'b-1', type: 'blocks', created_at: at }] }),
    ]);
    const [shown] = runJson('bd', ['show', 'b-2', '--json', '--brief-deps'], { cwd: ws, env: bd13 }) as Json[];
    expect(Object.keys((shown?.dependencies as Json[])[0] ?? {}).sort()).toEqual(['dependency_type', 'id', 'issue_type', 'priority', 'status', 'title']);
    for (const command of ['list', 'ready']) {
      const items = runJson('bd', [command, '--json', '--brief', '--limit', '0'], { cwd: ws, env: bd13 }) as Json[];
      const first = items.find((item) => item.id === 'b-1');
      expect(first).toBeDefined();
      for (const key of ['description', 'notes', 'design', 'acceptance_criteria']) expect(first).not.toHaveProperty(key);
    }
    const older = runStandin('bd', ['list', '--json', '--brief'], { cwd: ws, env: { BEADS_STANDIN_BD_VERSION: '1.0.5' } });
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(/unknown flag: --brief/);
  }, TIMEOUT);
});

describe('bd memories (cmd/bd/memory.go @ 094cd587)', () => {
  it('`bd memories --json` is the key -> value map with schema_version injected among the memories; `bd remember` adds one', () => {
    const ws = storeWith([issue('r-1')]);
    expect(runJson('bd', ['memories', '--json'], { cwd: ws })).toEqual({ schema_version: 1 });
    const stored = runJson('bd', ['remember', 'Always run the race detector', '--json'], { cwd: ws }) as Json;
    expect(stored).toMatchObject({ action: 'remembered', key: 'always-run-the-race-detector' });
    runJson('bd', ['remember', 'auth uses JWT', '--key', 'auth-jwt', '--json'], { cwd: ws });
    expect(runJson('bd', ['memories', '--json'], { cwd: ws })).toEqual({ 'always-run-the-race-detector': 'Always run the race detector', 'auth-jwt': 'auth uses JWT', schema_version: 1 });
    // The export's memory lines: `{"_type":"memory","key","value"}` (docs/BEADS_CONTRACT.md §3).
    const lines = fs.readFileSync(path.join(ws, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json);
    expect(lines.filter((line) => line._type === 'memory')).toHaveLength(2);
  }, TIMEOUT);
});

describe('br 0.5.7 and main (CHANGELOG, Dicklesworthstone/beads_rust @ 056d271d)', () => {
  const br057 = { BEADS_STANDIN_BR_VERSION: '0.5.7' };

  it('v0.5.3: search --json is always {issues, hidden_closed_count}; 0.2.15 prints a bare array', () => {
    const ws = storeWith([issue('s-1', { title: 'Find me' }), issue('s-2', { title: 'Find me too', status: 'closed' })]);
    expect(runJson('br', ['search', 'find', '--json'], { cwd: ws, env: br057 })).toMatchObject({ issues: [{ id: 's-1' }], hidden_closed_count: 1 });
    expect(runJson('br', ['search', 'nothing', '--json'], { cwd: ws, env: br057 })).toEqual({ issues: [], hidden_closed_count: 0 });
    expect(runJson('br', ['search', 'find', '--json'], { cwd: ws })).toMatchObject([{ id: 's-1' }]);
  }, TIMEOUT);

  it('v0.5.4: every open takes a .br-db-openers-*.lock lease and gives it back at exit; v0.5.2/v0.5.6 engine sidecars and the -shm are touched on a read', () => {
    const ws = storeWith([issue('l-1')]);
    const beads = path.join(ws, '.beads');
    runJson('br', ['list', '--json'], { cwd: ws });
    expect(fs.readdirSync(beads).sort()).toEqual(['issues.jsonl']);
    runJson('br', ['show', 'l-1', '--json'], { cwd: ws, env: br057 });
    const names = fs.readdirSync(beads);
    for (const sidecar of ['beads.db-shm', 'beads.db-wal-cert', 'beads.db-wal-cert-head', 'beads.db-fsqlite-ns-gate', 'beads.db-fsqlite-ns-use', 'beads.db.fsqlite-migration-state']) expect(names).toContain(sidecar);
    expect(names.filter((name) => name.startsWith('.br-db-openers-'))).toEqual([]);
  }, TIMEOUT);

  it('C8: from 0.5 the --json errors are on stdout', () => {
    const ws = storeWith([issue('e-1')]);
    const missing = runStandin('br', ['show', 'nope', '--json'], { cwd: ws, env: br057 });
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'ISSUE_NOT_FOUND' } });
  }, TIMEOUT);

  it('beads_rust#297: agent_context is an issue field, kept by show and the export', () => {
    const ws = storeWith([issue('a-1', { agent_context: 'Run `make check` before closing.' })]);
    expect(runJson('br', ['show', 'a-1', '--json'], { cwd: ws, env: br057 })).toMatchObject([{ agent_context: 'Run `make check` before closing.' }]);
  }, TIMEOUT);

  it('Unreleased (#467, #480): on main, update refuses to replace a non-empty free-text field without --force; --append-notes adds; 0.5.7 replaces', () => {
    const ws = storeWith([issue('o-1', { description: 'the original words', notes: 'first' })]);
    const main = { BEADS_STANDIN_BR_VERSION: 'main' };
    const refused = runStandin('br', ['update', 'o-1', '--description', 'other words', '--json'], { cwd: ws, env: main });
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    runJson('br', ['update', 'o-1', '--append-notes', 'second', '--json'], { cwd: ws, env: main });
    expect(runJson('br', ['show', 'o-1', '--json'], { cwd: ws, env: main })).toMatchObject([{ description: 'the original words', notes: 'first\nsecond' }]);
    runJson('br', ['update', 'o-1', '--description', 'forced', '--force', '--json'], { cwd: ws, env: main });
    runJson('br', ['update', 'o-1', '--notes', 'replaced', '--json'], { cwd: ws, env: br057 });
    expect(runJson('br', ['show', 'o-1', '--json'], { cwd: ws, env: br057 })).toMatchObject([{ description: 'forced', notes: 'replaced' }]);
  }, TIMEOUT);
});
