// The stand-in CLIs' behaviour beyond output shapes: fault switches, the call log, concurrent
// writers and the write lock, round-tripping of records they do not understand, and the places
// where bd and br read the same arguments differently.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Dialect, readIssuesFile, runJson, runStandin, runStandinAsync, storeWith, tempDir } from '../../fixtures/standin/harness';

const TIMEOUT = 60_000;
type Json = Record<string, unknown>;

function issue(id: string, extra: Json = {}): Json {
  return { id, title: `Issue ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', ...extra };
}

function blocks(from: string, to: string): Json {
  return { issue_id: from, depends_on_id: to, type: 'blocks', created_at: '2026-01-01T00:00:00Z' };
}

function ids(value: unknown): string[] {
  const items = Array.isArray(value) ? value : ((value as Json).issues as Json[]);
  return (items as Json[]).map((item) => item.id as string);
}

const DIALECTS: Dialect[] = ['bd', 'br'];

describe.each(DIALECTS)('%s fault switches', (dialect) => {
  it('hang: never exits until killed; the log records the signal', () => {
    const ws = storeWith([issue('t-1')]);
    const log = path.join(ws, 'calls.jsonl');
    const result = runStandin(dialect, ['list', '--json'], { cwd: ws, env: { BEADS_STANDIN_FAULT: 'hang', BEADS_STANDIN_LOG: log }, timeoutMs: 1500 });
    expect(result.signal).toBe('SIGTERM');
    expect(result.stdout).toBe('');
    const entries = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ dialect, args: ['list', '--json'], exit: null, signal: 'SIGTERM', fault: 'hang' });
  }, TIMEOUT);

  it('slow:<ms>: answers normally after the delay', () => {
    const ws = storeWith([issue('t-1')]);
    const result = runStandin(dialect, ['list', '--json'], { cwd: ws, env: { BEADS_STANDIN_FAULT: 'slow:600' } });
    expect(result.code).toBe(0);
    expect(result.ms).toBeGreaterThanOrEqual(600);
    expect(ids(JSON.parse(result.stdout))).toEqual(['t-1']);
  }, TIMEOUT);

  it('exit:<code>: the dialect generic error JSON on stderr and that exit code', () => {
    const result = runStandin(dialect, ['list', '--json'], { cwd: storeWith(), env: { BEADS_STANDIN_FAULT: 'exit:7' } });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    const err = JSON.parse(result.stderr) as Json;
    if (dialect === 'br') expect(Object.keys(err.error as Json)).toEqual(['code', 'message', 'hint', 'retryable', 'context']);
    else expect(Object.keys(err)).toEqual(['error', 'schema_version']);
  }, TIMEOUT);

  it('garbage: non-JSON on stdout with exit 0', () => {
    const result = runStandin(dialect, ['ready', '--json'], { cwd: storeWith(), env: { BEADS_STANDIN_FAULT: 'garbage' } });
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(0);
    expect(() => JSON.parse(result.stdout)).toThrow();
  }, TIMEOUT);

  it('after:garbage / after:hang: the write lands, then its answer is garbage or never comes', () => {
    const ws = storeWith([issue('t-1')]);
    const comments = () => ((JSON.parse(readIssuesFile(ws)[0] as string) as Json).comments as Json[] | undefined)?.map((comment) => comment.text) ?? [];
    const garbled = runStandin(dialect, ['comments', 'add', 't-1', 'first', '--json'], { cwd: ws, env: { BEADS_STANDIN_FAULT: 'after:garbage write' } });
    expect(garbled.code).toBe(0);
    expect(() => JSON.parse(garbled.stdout)).toThrow();
    expect(comments()).toEqual(['first']);
    const hung = runStandin(dialect, ['comments', 'add', 't-1', 'second', '--json'], { cwd: ws, env: { BEADS_STANDIN_FAULT: 'after:hang write' }, timeoutMs: 1500 });
    expect(hung.signal).toBe('SIGTERM');
    expect(hung.stdout).toBe('');
    expect(comments()).toEqual(['first', 'second']);
  }, TIMEOUT);

  it('locked: the dialect database-locked error', () => {
    const result = runStandin(dialect, ['update', 't-1', '--claim', '--json'], { cwd: storeWith([issue('t-1')]), env: { BEADS_STANDIN_FAULT: 'locked' } });
    const err = JSON.parse(result.stderr) as Json;
    if (dialect === 'br') {
      expect(result.code).toBe(2);
      expect(err.error).toMatchObject({ code: 'DATABASE_LOCKED', retryable: true });
    } else {
      expect(result.code).toBe(1);
      expect(err.error).toContain('another process holds the exclusive lock');
    }
  }, TIMEOUT);

  it('scope write/read: only mutating / only other commands misbehave', () => {
    const ws = storeWith([issue('t-1')]);
    const before = readIssuesFile(ws);
    const writeFault = { BEADS_STANDIN_FAULT: 'exit:9 write' };
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws, env: writeFault }).code).toBe(0);
    expect(runStandin(dialect, ['comments', 'add', 't-1', 'note', '--json'], { cwd: ws, env: writeFault }).code).toBe(9);
    expect(readIssuesFile(ws)).toEqual(before);
    const readFault = { BEADS_STANDIN_FAULT: 'garbage read' };
    expect(() => JSON.parse(runStandin(dialect, ['show', 't-1', '--json'], { cwd: ws, env: readFault }).stdout)).toThrow();
    expect(runStandin(dialect, ['comments', 'add', 't-1', 'note', '--json'], { cwd: ws, env: readFault }).code).toBe(0);
  }, TIMEOUT);

  it('a fault file is re-read at every start, so a test can toggle it', () => {
    const ws = storeWith([issue('t-1')]);
    const file = path.join(ws, 'fault.txt');
    const env = { BEADS_STANDIN_FAULT_FILE: file };
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws, env }).code).toBe(0);
    fs.writeFileSync(file, 'exit:5\nignored second line\n');
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws, env }).code).toBe(5);
    fs.writeFileSync(file, '');
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws, env: { ...env, BEADS_STANDIN_FAULT: 'exit:6' } }).code).toBe(0);
    fs.rmSync(file);
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws, env: { ...env, BEADS_STANDIN_FAULT: 'exit:6' } }).code).toBe(6);
  }, TIMEOUT);

  it('the call log gets one line per invocation with args, cwd, times and exit code', () => {
    const ws = storeWith([issue('t-1')]);
    const log = path.join(ws, 'calls.jsonl');
    const env = { BEADS_STANDIN_LOG: log };
    runStandin(dialect, ['where', '--json'], { cwd: ws, env });
    runStandin(dialect, ['show', 'missing-1', '--json'], { cwd: ws, env });
    runStandin(dialect, ['comments', 'add', 't-1', 'hello', '--json'], { cwd: ws, env });
    const entries = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(entries.map((e) => e.args)).toEqual([['where', '--json'], ['show', 'missing-1', '--json'], ['comments', 'add', 't-1', 'hello', '--json']]);
    expect(entries.map((e) => e.exit)).toEqual([0, dialect === 'br' ? 3 : 1, 0]);
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual(['dialect', 'args', 'cwd', 'startedAt', 'endedAt', 'exit']);
      expect(entry.dialect).toBe(dialect);
      expect(fs.realpathSync(entry.cwd as string)).toBe(fs.realpathSync(ws));
      expect(Date.parse(entry.endedAt as string)).toBeGreaterThanOrEqual(Date.parse(entry.startedAt as string));
    }
  }, TIMEOUT);
});

describe.each(DIALECTS)('%s store: concurrency, lock, round trip', (dialect) => {
  it('concurrent writers never lose a comment', async () => {
    const ws = storeWith([issue('t-1'), issue('t-2')]);
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => runStandinAsync(dialect, ['comments', 'add', i % 2 ? 't-1' : 't-2', `note ${i}`, '--json'], { cwd: ws })),
    );
    expect(runs.map((r) => r.code)).toEqual(Array(8).fill(0));
    const texts = ['t-1', 't-2'].flatMap((id) => (runJson(dialect, ['comments', id, '--json'], { cwd: ws }) as Json[]).map((c) => c.text));
    expect(texts.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `note ${i}`).sort());
    const commentIds = ['t-1', 't-2'].flatMap((id) => (runJson(dialect, ['comments', id, '--json'], { cwd: ws }) as Json[]).map((c) => c.id));
    expect(new Set(commentIds).size).toBe(8);
    if (dialect === 'br') expect([...commentIds].sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fs.existsSync(path.join(ws, '.beads', '.write.lock'))).toBe(false);
  }, TIMEOUT);

  it('a held write lock makes writes fail as locked; a stale one, or one whose writer is gone, is taken over', () => {
    const ws = storeWith([issue('t-1')]);
    const lock = path.join(ws, '.beads', '.write.lock');
    // Held by a live process (this one).
    fs.writeFileSync(lock, `${process.pid}\n`);
    const held = runStandin(dialect, ['comments', 'add', 't-1', 'blocked', '--json'], { cwd: ws, env: { BEADS_STANDIN_LOCK_TIMEOUT_MS: '300' } });
    expect(held.ms).toBeGreaterThanOrEqual(300);
    expect(held.code).toBe(dialect === 'br' ? 2 : 1);
    expect(held.stderr).toMatch(dialect === 'br' ? /DATABASE_LOCKED/ : /exclusive lock/);
    expect(runStandin(dialect, ['list', '--json'], { cwd: ws }).code).toBe(0);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    expect(runStandin(dialect, ['comments', 'add', 't-1', 'after stale lock', '--json'], { cwd: ws }).code).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
    // Left by a writer that was killed (as br's SQLite lock, it ends with its process): free at once.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    fs.writeFileSync(lock, `${gone}\n`);
    const afterKill = runStandin(dialect, ['comments', 'add', 't-1', 'after a killed writer', '--json'], { cwd: ws, env: { BEADS_STANDIN_LOCK_TIMEOUT_MS: '300' } });
    expect(afterKill.code, afterKill.stderr).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
  }, TIMEOUT);

  it('keeps unknown fields, non-issue lines and broken lines; writes issues sorted by id', () => {
    const custom = JSON.stringify({ id: 'z-9', x_custom: { nested: [1, 2] }, title: 'Custom fields first', status: 'open', priority: 1, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
    const memory = JSON.stringify({ _type: 'memory', key: 'k', value: 'v' });
    const typed = JSON.stringify({ _type: 'issue', ...issue('m-5') });
    const tombstone = JSON.stringify(issue('a-0', { status: 'tombstone', deleted_at: '2026-01-02T00:00:00Z', deleted_by: 'x', delete_reason: 'dup', original_type: 'task' }));
    const ws = storeWith([custom, memory, JSON.stringify(issue('b-2')), typed, tombstone, '{"id":"broken-partial-li']);
    const listed = runJson(dialect, ['list', '--json', '--limit', '0'], { cwd: ws });
    expect(ids(listed).sort()).toEqual(['b-2', 'm-5', 'z-9']);
    expect(ids(runJson(dialect, ['ready', '--json', '--limit', '0'], { cwd: ws })).sort()).toEqual(['b-2', 'm-5', 'z-9']);
    expect(ids(runJson(dialect, ['show', 'a-0', '--json'], { cwd: ws }))).toEqual(['a-0']);
    runJson(dialect, ['update', 'b-2', '--status', 'in_progress', '--json'], { cwd: ws });
    const lines = readIssuesFile(ws);
    expect(lines).toContain(custom);
    expect(lines).toContain(memory);
    expect(lines).toContain(typed);
    expect(lines).toContain(tombstone);
    expect(lines.at(-1)).toBe('{"id":"broken-partial-li');
    const issueIds = lines.map((line) => (line.startsWith('{"id":"broken') ? undefined : (JSON.parse(line) as Json).id)).filter(Boolean);
    expect(issueIds).toEqual(['a-0', 'b-2', 'm-5', 'z-9']);
    expect(JSON.parse(lines[1]) as Json).toMatchObject({ id: 'b-2', status: 'in_progress' });
    expect((JSON.parse(lines[1]) as Json).updated_at).not.toBe('2026-01-01T00:00:00Z');
  }, TIMEOUT);

  it('finds .beads from a subfolder and honours BEADS_DIR', () => {
    const ws = storeWith([issue('t-1')]);
    const sub = path.join(ws, 'src', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    expect(ids(runJson(dialect, ['list', '--json'], { cwd: sub }))).toEqual(['t-1']);
    const elsewhere = tempDir('elsewhere');
    expect(ids(runJson(dialect, ['list', '--json'], { cwd: elsewhere, env: { BEADS_DIR: path.join(ws, '.beads') } }))).toEqual(['t-1']);
  }, TIMEOUT);
});

describe('where bd and br read the same arguments differently', () => {
  const statuses = [issue('s-1'), issue('s-2', { status: 'in_progress' }), issue('s-3', { status: 'closed', closed_at: '2026-01-02T00:00:00Z' })];

  it('--status: bd takes a comma list (and the last -s), br repeats -s and reads a comma as part of one status', () => {
    const ws = storeWith(statuses);
    expect(ids(runJson('bd', ['list', '--status', 'open,in_progress', '--json'], { cwd: ws })).sort()).toEqual(['s-1', 's-2']);
    expect(ids(runJson('bd', ['list', '-s', 'open', '-s', 'in_progress', '--json'], { cwd: ws }))).toEqual(['s-2']);
    expect(ids(runJson('br', ['list', '-s', 'open', '-s', 'in_progress', '--json'], { cwd: ws })).sort()).toEqual(['s-1', 's-2']);
    expect(ids(runJson('br', ['list', '--status', 'open,in_progress', '--json'], { cwd: ws }))).toEqual([]);
    expect(ids(runJson('bd', ['list', '--all', '--json'], { cwd: ws })).sort()).toEqual(['s-1', 's-2', 's-3']);
    expect(ids(runJson('br', ['list', '--all', '--json'], { cwd: ws })).sort()).toEqual(['s-1', 's-2', 's-3']);
  }, TIMEOUT);

  it('--sort: bd accepts `updated` only, br also `updated_at`; both newest first', () => {
    const ws = storeWith([issue('u-1', { updated_at: '2026-01-03T00:00:00Z' }), issue('u-2', { updated_at: '2026-01-05T00:00:00Z' }), issue('u-3', { updated_at: '2026-01-05T00:00:00-08:00' })]);
    expect(ids(runJson('bd', ['list', '--sort', 'updated', '--json'], { cwd: ws }))).toEqual(['u-3', 'u-2', 'u-1']);
    expect(ids(runJson('br', ['list', '--sort', 'updated_at', '--json'], { cwd: ws }))).toEqual(['u-3', 'u-2', 'u-1']);
    expect(ids(runJson('br', ['list', '--sort', 'updated', '-r', '--json'], { cwd: ws }))).toEqual(['u-1', 'u-2', 'u-3']);
    expect(runStandin('bd', ['list', '--sort', 'updated_at', '--json'], { cwd: ws }).code).toBe(1);
  }, TIMEOUT);

  it('default limits: bd list 50 (hint on stderr), br list 50 (has_more), br ready 20, bd ready 100; --limit 0 is everything', () => {
    const many = Array.from({ length: 120 }, (_, i) => issue(`n-${String(i).padStart(3, '0')}`));
    const ws = storeWith(many);
    const bdList = runStandin('bd', ['list', '--json'], { cwd: ws });
    expect(ids(JSON.parse(bdList.stdout))).toHaveLength(50);
    expect(bdList.stderr).toContain('--limit 0');
    const brList = runJson('br', ['list', '--json'], { cwd: ws }) as Json;
    expect(brList).toMatchObject({ total: 120, limit: 50, offset: 0, has_more: true });
    expect(ids(runJson('br', ['ready', '--json'], { cwd: ws }))).toHaveLength(20);
    expect(ids(runJson('bd', ['ready', '--json'], { cwd: ws }))).toHaveLength(100);
    for (const dialect of DIALECTS) {
      expect(ids(runJson(dialect, ['list', '--json', '--limit', '0'], { cwd: ws }))).toHaveLength(120);
      expect(ids(runJson(dialect, ['ready', '--json', '--limit', '0'], { cwd: ws }))).toHaveLength(120);
    }
  }, TIMEOUT);

  it('comments add: bd keeps only the first text argument, br joins the words and also takes -m', () => {
    const ws = storeWith([issue('c-1')]);
    expect((runJson('bd', ['comments', 'add', 'c-1', 'one', 'two', '--json'], { cwd: ws }) as Json).text).toBe('one');
    expect((runJson('br', ['comments', 'add', 'c-1', 'one', 'two', '--json'], { cwd: ws }) as Json).text).toBe('one two');
    expect((runJson('br', ['comments', 'add', 'c-1', '-m', 'Checkpoint: via -m', '--json'], { cwd: ws }) as Json).text).toBe('Checkpoint: via -m');
    expect((runJson('bd', ['comments', 'add', '--json', '--', 'c-1', '--looks-like-a-flag'], { cwd: ws }) as Json).text).toBe('--looks-like-a-flag');
  }, TIMEOUT);

  it('claim: br refuses a blocked issue (exit 4), bd claims it; both refuse someone else’s claim', () => {
    const records = [issue('k-1', { dependencies: [blocks('k-1', 'k-2')] }), issue('k-2'), issue('k-3', { status: 'in_progress', assignee: 'someone-else' })];
    const brWs = storeWith(records);
    const refused = runStandin('br', ['update', 'k-1', '--claim', '--json'], { cwd: brWs });
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr)).toEqual({ error: { code: 'VALIDATION_FAILED', message: 'Validation failed: claim: cannot claim blocked issue: k-2', hint: null, retryable: true, context: { field: 'claim', reason: 'cannot claim blocked issue: k-2' } } });
    expect((runJson('br', ['update', 'k-2', '--claim', '--json'], { cwd: brWs }) as Json[])[0]).toMatchObject({ id: 'k-2', status: 'in_progress' });
    expect(runStandin('br', ['update', 'k-3', '--claim', '--json'], { cwd: brWs }).code).toBe(4);

    const bdWs = storeWith(records);
    expect((runJson('bd', ['update', 'k-1', '--claim', '--json'], { cwd: bdWs }) as Json[])[0]).toMatchObject({ id: 'k-1', status: 'in_progress', assignee: 'standin-tester' });
    const taken = runStandin('bd', ['update', 'k-3', '--claim', '--json'], { cwd: bdWs });
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toContain('issue already claimed by someone-else');
    expect((runJson('bd', ['update', 'k-1', '--claim', '--json'], { cwd: bdWs }) as Json[])[0].id).toBe('k-1');
  }, TIMEOUT);

  it('close with an open blocker: br prints the skip and fails NOTHING_TO_DO (exit 3), bd refuses on stderr (exit 1); -f closes', () => {
    const records = [issue('x-1', { dependencies: [blocks('x-1', 'x-2')] }), issue('x-2')];
    const brWs = storeWith(records);
    const brRefused = runStandin('br', ['close', 'x-1', '--json'], { cwd: brWs });
    expect(brRefused.code).toBe(3);
    expect(JSON.parse(brRefused.stdout)).toEqual({ closed: [], skipped: [{ id: 'x-1', reason: 'blocked by: x-2' }] });
    expect((JSON.parse(brRefused.stderr) as { error: Json }).error.code).toBe('NOTHING_TO_DO');
    expect((runJson('br', ['close', 'x-1', '-f', '--json'], { cwd: brWs }) as Json[])[0]).toMatchObject({ id: 'x-1', status: 'closed', close_reason: 'done' });

    const bdWs = storeWith(records);
    const bdRefused = runStandin('bd', ['close', 'x-1', '--json'], { cwd: bdWs });
    expect(bdRefused.code).toBe(1);
    expect(bdRefused.stdout).toBe('');
    expect(bdRefused.stderr).toContain('cannot close x-1: blocked by open issues [x-2]');
    expect((runJson('bd', ['close', 'x-1', '--force', '--json'], { cwd: bdWs }) as Json[])[0]).toMatchObject({ id: 'x-1', status: 'closed', close_reason: 'Closed' });
  }, TIMEOUT);

  it('create --deps: bd reads `blocks:X` as "the new issue blocks X", br as "depends on X"', () => {
    for (const dialect of DIALECTS) {
      const ws = storeWith([issue('d-1')]);
      const created = runJson(dialect, ['create', 'New work', '--deps', 'blocks:d-1', '--json'], { cwd: ws }) as Json;
      const ready = ids(runJson(dialect, ['ready', '--json', '--limit', '0'], { cwd: ws }));
      if (dialect === 'bd') expect(ready).toEqual([created.id]);
      else expect(ready).toEqual(['d-1']);
    }
  }, TIMEOUT);

  it('create --parent makes a hierarchical child id with a parent-child record', () => {
    for (const dialect of DIALECTS) {
      const ws = storeWith([issue('p-1'), issue('p-1.1')]);
      const created = runJson(dialect, ['create', 'Child', '--parent', 'p-1', '--json'], { cwd: ws }) as Json;
      expect(created.id).toBe('p-1.2');
      const shown = runJson(dialect, ['show', 'p-1.2', '--json'], { cwd: ws }) as Json[];
      expect(shown[0].parent).toBe('p-1');
    }
  }, TIMEOUT);

  it('unknown flags are usage errors: br exit 2, bd exit 1', () => {
    const ws = storeWith();
    const brResult = runStandin('br', ['list', '--json', '--bogus'], { cwd: ws });
    expect(brResult.code).toBe(2);
    expect(brResult.stderr).toContain("unexpected argument '--bogus'");
    const bdResult = runStandin('bd', ['list', '--json', '--bogus'], { cwd: ws });
    expect(bdResult.code).toBe(1);
    expect(bdResult.stderr).toContain('unknown flag: --bogus');
  }, TIMEOUT);

  it('readiness: br blocks an epic with open children and on a missing target, bd on an unfinished waits-for gate; both skip deferred', () => {
    const records = [
      issue('e-1', { issue_type: 'epic' }),
      issue('e-2', { dependencies: [{ issue_id: 'e-2', depends_on_id: 'e-1', type: 'parent-child', created_at: '2026-01-01T00:00:00Z' }] }),
      issue('g-1', { dependencies: [blocks('g-1', 'gone-404')] }),
      issue('w-1', { dependencies: [{ issue_id: 'w-1', depends_on_id: 'e-1', type: 'waits-for', created_at: '2026-01-01T00:00:00Z' }] }),
      issue('f-1', { defer_until: '2999-01-01T00:00:00Z' }),
    ];
    const ws = storeWith(records);
    expect(ids(runJson('br', ['ready', '--json', '--limit', '0'], { cwd: ws })).sort()).toEqual(['e-2']);
    expect(ids(runJson('bd', ['ready', '--json', '--limit', '0'], { cwd: ws })).sort()).toEqual(['e-1', 'e-2', 'g-1']);
  }, TIMEOUT);
});
