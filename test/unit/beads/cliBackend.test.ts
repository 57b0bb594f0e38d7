import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../../src/core/model';
import { createCliBackend, DIALECT_ARGS } from '../../../src/beads/cliBackend';
import { CliError } from '../../../src/beads/errors';

// The stand-in CLIs (test doubles for bd and br, see test/fixtures/standin/main.cjs) run as real
// processes; their call log shows the exact argv each backend method produced.
const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'beads-cli-backend-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const at = (day: number, hour: number) => `2026-01-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

/** The store the stand-ins read: br's JSONL export format. */
const SCENARIO = [
  { id: 't-epic', title: 'Epic', status: 'open', priority: 1, issue_type: 'epic', created_at: at(1, 0), updated_at: at(1, 0) },
  {
    id: 't-a',
    title: 'Working on A',
    status: 'in_progress',
    priority: 2,
    issue_type: 'task',
    created_at: at(1, 1),
    updated_at: at(2, 10),
    dependencies: [{ issue_id: 't-a', depends_on_id: 't-epic', type: 'parent-child', created_at: at(1, 1) }],
    comments: [{ id: 1, issue_id: 't-a', author: 'me', text: 'first checkpoint', created_at: at(2, 9) }],
  },
  { id: 't-b', title: 'Working on B', status: 'in_progress', priority: 2, issue_type: 'task', created_at: at(1, 2), updated_at: at(2, 12) },
  {
    id: 't-c',
    title: 'Waits for A',
    status: 'open',
    priority: 2,
    issue_type: 'task',
    created_at: at(1, 3),
    updated_at: at(1, 3),
    dependencies: [{ issue_id: 't-c', depends_on_id: 't-a', type: 'blocks', created_at: at(1, 3) }],
  },
  { id: 't-d', title: 'Ready D', status: 'open', priority: 0, issue_type: 'bug', created_at: at(1, 4), updated_at: at(1, 4) },
  { id: 't-e', title: 'Done E', status: 'closed', priority: 2, issue_type: 'task', created_at: at(1, 5), updated_at: at(1, 6), closed_at: at(1, 6) },
];

interface Call {
  dialect: string;
  args: string[];
  cwd: string;
  exit: number | null;
}

function workspace(dialect: Dialect, env: Record<string, string> = {}, timeoutMs = 10_000) {
  const root = join(base, `${dialect}-${++counter}`);
  mkdirSync(join(root, '.beads'), { recursive: true });
  writeFileSync(join(root, '.beads', 'issues.jsonl'), SCENARIO.map((line) => JSON.stringify(line)).join('\n') + '\n');
  const log = join(root, 'calls.log');
  const backend = createCliBackend({ dialect, command: join(BIN, dialect), root, timeoutMs, env: { BEADS_STANDIN_LOG: log, ...env } });
  const calls = (): Call[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : []);
  /** Runs `action` and returns the calls it made. */
  const counting = async <T>(action: () => Promise<T>): Promise<{ value: T; made: Call[] }> => {
    const before = calls().length;
    const value = await action();
    return { value, made: calls().slice(before) };
  };
  return { root, backend, calls, counting };
}

const EXPECTED: Record<Dialect, Record<string, string[]>> = {
  bd: {
    inProgress: ['list', '--status', 'in_progress,hooked', '--json', '--limit', '0', '--sort', 'updated'],
    ready: ['ready', '--json', '--limit', '0'],
    show: ['show', '--json', '--include-comments', '--include-dependents', '--', 't-a', 't-c'],
    comment: ['comments', 'add', '--json', '--', 't-b', '--not-a-flag "quoted" $HOME\nsecond line'],
    claim: ['update', '--claim', '--json', '--', 't-d'],
    close: ['close', '--reason=-r done: all green', '--json', '--', 't-b'],
  },
  br: {
    inProgress: ['list', '-s', 'in_progress', '-s', 'hooked', '--json', '--limit', '0', '--sort', 'updated_at'],
    ready: ['ready', '--json', '--limit', '0'],
    show: ['show', '--json', '--', 't-a', 't-c'],
    comment: ['comments', 'add', '--json', '--message=--not-a-flag "quoted" $HOME\nsecond line', '--', 't-b'],
    claim: ['update', '--claim', '--json', '--', 't-d'],
    close: ['close', '--reason=-r done: all green', '--json', '--', 't-b'],
  },
};

const COMMENT = '--not-a-flag "quoted" $HOME\nsecond line';
const REASON = '-r done: all green';

describe.each(['bd', 'br'] as const)('%s CLI backend against the stand-in', (dialect) => {
  it('lists in-progress issues with one process and the exact arguments, newest update first', async () => {
    const { backend, counting, root } = workspace(dialect);
    expect(backend).toMatchObject({ kind: dialect, readOnly: false, root });
    const { value, made } = await counting(() => backend.listInProgress());
    expect(made.map((call) => call.args)).toEqual([EXPECTED[dialect].inProgress]);
    expect(made[0]?.cwd).toBe(root);
    expect(value.map((issue) => issue.id)).toEqual(['t-b', 't-a']);
    expect(value[1]).toMatchObject({ title: 'Working on A', status: 'in_progress', priority: 2, issueType: 'task' });
  });

  it('lists ready issues with one process', async () => {
    const { backend, counting } = workspace(dialect);
    const { value, made } = await counting(() => backend.listReady());
    expect(made.map((call) => call.args)).toEqual([EXPECTED[dialect].ready]);
    const ids = value.map((issue) => issue.id);
    expect(ids).toContain('t-d');
    for (const notReady of ['t-a', 't-b', 't-c', 't-e']) expect(ids).not.toContain(notReady);
  });

  it('shows several issues in one process, with parent, dependents and comments', async () => {
    const { backend, counting } = workspace(dialect);
    const { value, made } = await counting(() => backend.show(['t-a', 't-c', 't-a']));
    expect(made.map((call) => call.args)).toEqual([EXPECTED[dialect].show]);
    const [a, c] = value;
    expect(a?.id).toBe('t-a');
    expect(a?.dependencies.map((link) => [link.id, link.title, link.dependencyType])).toEqual([['t-epic', 'Epic', 'parent-child']]);
    expect(a?.dependents.map((link) => [link.id, link.status, link.dependencyType])).toEqual([['t-c', 'open', 'blocks']]);
    expect(a?.comments.map((comment) => [comment.id, comment.text])).toEqual([[dialect === 'bd' ? expect.any(String) : '1', 'first checkpoint']]);
    expect(c?.dependencies.map((link) => [link.id, link.status, link.dependencyType])).toEqual([['t-a', 'in_progress', 'blocks']]);
  });

  it('spends no process on an empty show', async () => {
    const { backend, counting } = workspace(dialect);
    const { value, made } = await counting(() => backend.show([]));
    expect(value).toEqual([]);
    expect(made).toEqual([]);
  });

  it('leaves an unknown id out of a multi-id show instead of failing the others', async () => {
    const { backend, counting } = workspace(dialect);
    const { value, made } = await counting(() => backend.show(['t-a', 't-gone', 't-d']));
    expect(value.map((issue) => issue.id)).toEqual(['t-a', 't-d']);
    if (dialect === 'bd') {
      // bd answers the ids it knows and exits 0.
      expect(made.map((call) => call.args)).toEqual([['show', '--json', '--include-comments', '--include-dependents', '--', 't-a', 't-gone', 't-d']]);
    } else {
      // br fails the whole call (exit 3, ISSUE_NOT_FOUND naming the id): asked again without it.
      expect(made.map((call) => [call.args, call.exit])).toEqual([
        [['show', '--json', '--', 't-a', 't-gone', 't-d'], 3],
        [['show', '--json', '--', 't-a', 't-d'], 0],
      ]);
    }
  });

  it('answers an empty list when no requested id exists', async () => {
    const { backend, counting } = workspace(dialect);
    const { value, made } = await counting(() => backend.show(['t-gone']));
    expect(value).toEqual([]);
    expect(made).toHaveLength(1);
  });

  it('adds a comment verbatim in one process: leading dashes, quotes, $ and newlines', async () => {
    const { backend, counting } = workspace(dialect);
    const { value: added, made } = await counting(() => backend.addComment('t-b', COMMENT));
    expect(made.map((call) => [call.args, call.exit])).toEqual([[EXPECTED[dialect].comment, 0]]);
    const [b] = await backend.show(['t-b']);
    expect(b?.comments.map((comment) => comment.text)).toEqual([COMMENT]);
    // The CLI's stamp of the comment, as it printed it: the outbox measures the CLI's clock on it.
    expect(added).toEqual({ createdAt: b?.comments[0]?.createdAt });
    expect(added?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('claims in one process', async () => {
    const { backend, counting } = workspace(dialect);
    const { made } = await counting(() => backend.claim('t-d'));
    expect(made.map((call) => [call.args, call.exit])).toEqual([[EXPECTED[dialect].claim, 0]]);
    expect((await backend.listInProgress()).map((issue) => issue.id)).toContain('t-d');
  });

  it('closes in one process with the reason verbatim', async () => {
    const { backend, counting } = workspace(dialect);
    const { made } = await counting(() => backend.close('t-b', REASON));
    expect(made.map((call) => [call.args, call.exit])).toEqual([[EXPECTED[dialect].close, 0]]);
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['t-a']);
  });

  it('keeps the argument table and the calls in step', () => {
    const args = DIALECT_ARGS[dialect];
    expect(args.inProgress).toEqual(EXPECTED[dialect].inProgress);
    expect(args.addComment('t-b', COMMENT)).toEqual(EXPECTED[dialect].comment);
    expect(args.close('t-b', REASON)).toEqual(EXPECTED[dialect].close);
  });
});

describe.each(['bd', 'br'] as const)('%s CLI backend under faults', (dialect) => {
  it('kills a hang at the timeout', async () => {
    const { backend, calls } = workspace(dialect, { BEADS_STANDIN_FAULT: 'hang' }, 800);
    const started = Date.now();
    const error = await backend.listReady().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).kind).toBe('timeout');
    expect((error as CliError).message).toContain(`'${dialect} ready'`);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The stand-in logs the SIGTERM it got: it was stopped, not left running.
    expect(calls().at(-1)).toMatchObject({ signal: 'SIGTERM' });
  });

  it('is canceled through the AbortSignal', async () => {
    const { backend } = workspace(dialect, { BEADS_STANDIN_FAULT: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const error = await backend.show(['t-a'], controller.signal).catch((caught: unknown) => caught);
    expect((error as CliError).kind).toBe('canceled');
  });

  it('waits for a slow CLI within the timeout', async () => {
    const { backend } = workspace(dialect, { BEADS_STANDIN_FAULT: 'slow:300' });
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['t-b', 't-a']);
  });

  it('reports a non-zero exit with its code', async () => {
    const { backend } = workspace(dialect, { BEADS_STANDIN_FAULT: 'exit:2' });
    const error = await backend.listInProgress().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'exit', exitCode: 2 });
  });

  it('reports garbage output as badJson, for reads and for writes', async () => {
    const reads = workspace(dialect, { BEADS_STANDIN_FAULT: 'garbage read' });
    expect(await reads.backend.listReady().catch((caught: unknown) => caught)).toMatchObject({ kind: 'badJson' });
    const writes = workspace(dialect, { BEADS_STANDIN_FAULT: 'garbage write' });
    expect(await writes.backend.addComment('t-a', 'lost?').catch((caught: unknown) => caught)).toMatchObject({ kind: 'badJson' });
  });

  it("surfaces lock contention on writes with the CLI's own message, while reads still work", async () => {
    const { backend } = workspace(dialect, { BEADS_STANDIN_FAULT: 'locked write' });
    const error = (await backend.claim('t-d').catch((caught: unknown) => caught)) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.kind).toBe('exit');
    expect(error.cliMessage).toMatch(/lock/i);
    expect(error.message).toContain(`'${dialect} update -- t-d'`);
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['t-b', 't-a']);
  });

  it('reports a missing executable as notFound', async () => {
    const backend = createCliBackend({ dialect, command: join(base, 'nowhere', dialect), root: base, timeoutMs: 5_000 });
    expect(await backend.listReady().catch((caught: unknown) => caught)).toMatchObject({ kind: 'notFound' });
  });
});

describe('CLI backend ordering', () => {
  it('orders in-progress issues by parsed update time whatever order and offsets the CLI used', async () => {
    // A CLI that answers out of order, with local offsets (bd's SQLite era kept them).
    const dir = join(base, 'unsorted');
    mkdirSync(dir, { recursive: true });
    const script = join(dir, 'bd');
    const answer = [
      { id: 'u-1', title: 'utc', status: 'in_progress', updated_at: '2026-01-01T12:00:00Z' },
      { id: 'u-2', title: 'west', status: 'in_progress', updated_at: '2026-01-01T10:00:00-08:00' },
      { id: 'u-3', title: 'east', status: 'in_progress', updated_at: '2026-01-01T20:00:00+09:00' },
    ];
    writeFileSync(script, `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(JSON.stringify(answer))});\n`);
    chmodSync(script, 0o755);
    const backend = createCliBackend({ dialect: 'bd', command: script, root: dir, timeoutMs: 5_000 });
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['u-2', 'u-1', 'u-3']);
  });
});
