import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOCKING_TYPES, isTerminal } from '../../../src/core/model';
import { LISTED_DESCRIPTION_CHARS, MAX_TEXT_CHARS } from '../../../src/core/parse';
import { CliError, ReadOnlyError } from '../../../src/beads/errors';
import { createJsonlBackend } from '../../../src/beads/jsonlBackend';

const DATA = resolve(__dirname, '../..', 'fixtures', 'beads', 'data');
const base = mkdtempSync(join(tmpdir(), 'beads-jsonl-backend-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const NOW = Date.UTC(2026, 5, 1, 12);
let counter = 0;

interface Line {
  id: string;
  status?: string;
  priority?: number;
  issue_type?: string;
  created_at?: string;
  updated_at?: string;
  dependencies?: { issue_id: string; depends_on_id: string; type: string }[];
  [key: string]: unknown;
}

function project(lines: Line[]): string {
  const root = join(base, `p${++counter}`);
  mkdirSync(join(root, '.beads'), { recursive: true });
  writeJsonl(root, lines);
  return root;
}

function writeJsonl(root: string, lines: Line[]): void {
  const text = lines
    .map((line) => JSON.stringify({ title: `Title of ${line.id}`, status: 'open', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', ...line }))
    .join('\n');
  writeFileSync(join(root, '.beads', 'issues.jsonl'), `${text}\n`);
}

function dep(issue: string, target: string, type: string) {
  return { issue_id: issue, depends_on_id: target, type };
}

/** Each readiness rule of docs/BEADS_CONTRACT.md §1, one issue per rule. */
const READINESS: Line[] = [
  { id: 'r-free' },
  { id: 'r-blocked', dependencies: [dep('r-blocked', 'r-blocker', 'blocks')] },
  { id: 'r-blocker' },
  { id: 'r-unblocked', dependencies: [dep('r-unblocked', 'r-done', 'blocks')] },
  { id: 'r-done', status: 'closed' },
  { id: 'r-conditional', dependencies: [dep('r-conditional', 'r-blocker', 'conditional-blocks')] },
  { id: 'r-waits', dependencies: [dep('r-waits', 'r-blocker', 'waits-for')] },
  { id: 'r-related', dependencies: [dep('r-related', 'r-blocker', 'related')] },
  { id: 'r-dangling', dependencies: [dep('r-dangling', 'r-not-in-file', 'blocks')] },
  // A blocked parent holds its children back.
  { id: 'r-parent', issue_type: 'feature', dependencies: [dep('r-parent', 'r-blocker', 'blocks')] },
  { id: 'r-child-of-blocked', dependencies: [dep('r-child-of-blocked', 'r-parent', 'parent-child')] },
  { id: 'r-grandchild', dependencies: [dep('r-grandchild', 'r-child-of-blocked', 'parent-child')] },
  // An epic with an open child is not ready in br; its child is.
  { id: 'r-epic', issue_type: 'epic' },
  { id: 'r-epic-child', dependencies: [dep('r-epic-child', 'r-epic', 'parent-child')] },
  { id: 'r-deferred', defer_until: '2026-07-01T00:00:00Z' },
  { id: 'r-defer-passed', defer_until: '2026-05-01T00:00:00+02:00' },
  { id: 'r-deferred-parent', defer_until: '2026-12-01T00:00:00Z' },
  { id: 'r-child-of-deferred', dependencies: [dep('r-child-of-deferred', 'r-deferred-parent', 'parent-child')] },
  { id: 'r-pinned', pinned: true },
  { id: 'r-ephemeral', ephemeral: true },
  { id: 'r-template', is_template: true },
  { id: 'r-wisp-1' },
  { id: 'r-agent', issue_type: 'agent' },
  { id: 'r-in-progress', status: 'in_progress' },
  { id: 'r-custom', status: 'invalid' },
  { id: 'r-gone', status: 'tombstone' },
  { id: 'r-cycle-a', dependencies: [dep('r-cycle-a', 'r-cycle-b', 'parent-child')] },
  { id: 'r-cycle-b', dependencies: [dep('r-cycle-b', 'r-cycle-a', 'parent-child')] },
];

const READY_IN_BOTH = ['r-free', 'r-blocker', 'r-unblocked', 'r-related', 'r-dangling', 'r-epic-child', 'r-defer-passed', 'r-cycle-a', 'r-cycle-b'];

describe('jsonl backend readiness', () => {
  it('follows br: blockers, parents, deferral, flags, wisps and epics with open children', async () => {
    const backend = createJsonlBackend({ root: project(READINESS), dialect: 'br', now: () => NOW });
    const ready = (await backend.listReady()).map((issue) => issue.id);
    expect(ready.sort()).toEqual([...READY_IN_BOTH, 'r-agent'].sort());
  });

  it('follows bd: infrastructure types are not work, epics are ready with open children', async () => {
    const backend = createJsonlBackend({ root: project(READINESS), dialect: 'bd', now: () => NOW });
    const ready = (await backend.listReady()).map((issue) => issue.id);
    expect(ready.sort()).toEqual([...READY_IN_BOTH, 'r-epic'].sort());
  });

  it('lets the clock decide deferral', async () => {
    const root = project(READINESS);
    const later = createJsonlBackend({ root, dialect: 'br', now: () => Date.UTC(2027, 0, 1) });
    const ready = (await later.listReady()).map((issue) => issue.id);
    expect(ready).toEqual(expect.arrayContaining(['r-deferred', 'r-deferred-parent', 'r-child-of-deferred']));
  });

  it("orders ready issues the dialect's default way", async () => {
    const lines: Line[] = [
      { id: 'o-p3-old', priority: 3, created_at: '2026-01-01T00:00:00Z' },
      { id: 'o-p0-new', priority: 0, created_at: '2026-03-01T00:00:00Z' },
      { id: 'o-p2-oldest', priority: 2, created_at: '2025-06-01T00:00:00Z' },
      { id: 'o-p1-old', priority: 1, created_at: '2026-02-01T00:00:00Z' },
      // Later as text, earlier as a time: 2026-02-01T05:00:00+09:00 is 2026-01-31T20:00Z.
      { id: 'o-p1-offset', priority: 1, created_at: '2026-02-01T05:00:00+09:00' },
    ];
    const root = project(lines);
    const br = await createJsonlBackend({ root, dialect: 'br', now: () => NOW }).listReady();
    expect(br.map((issue) => issue.id)).toEqual(['o-p1-offset', 'o-p1-old', 'o-p0-new', 'o-p2-oldest', 'o-p3-old']);
    const bd = await createJsonlBackend({ root, dialect: 'bd', now: () => NOW }).listReady();
    expect(bd.map((issue) => issue.id)).toEqual(['o-p0-new', 'o-p1-old', 'o-p1-offset', 'o-p2-oldest', 'o-p3-old']);
  });
});

describe('jsonl backend queries', () => {
  it('lists in-progress issues most recently updated first, comparing instants not text', async () => {
    const root = project([
      { id: 'w-utc', status: 'in_progress', updated_at: '2026-01-01T12:00:00Z' },
      { id: 'w-offset', status: 'in_progress', updated_at: '2026-01-01T10:00:00-08:00' },
      { id: 'w-nanos', status: 'in_progress', updated_at: '2026-01-01T12:00:00.000000001Z' },
      { id: 'w-open', status: 'open', updated_at: '2026-02-01T00:00:00Z' },
      { id: 'w-no-time', status: 'in_progress', updated_at: '' },
    ]);
    const backend = createJsonlBackend({ root });
    const inProgress = await backend.listInProgress();
    expect(inProgress.map((issue) => issue.id)).toEqual(['w-offset', 'w-nanos', 'w-utc', 'w-no-time']);
    expect(inProgress[0]).not.toHaveProperty('dependencies');
  });

  it('shows the requested issues with both directions of their links and leaves unknown ids out', async () => {
    const root = project([
      { id: 's-parent', issue_type: 'epic' },
      { id: 's-child', status: 'in_progress', dependencies: [dep('s-child', 's-parent', 'parent-child'), dep('s-child', 's-missing', 'blocks')], comments: [{ id: 7, author: 'a', text: 'hello', created_at: '2026-01-02T00:00:00Z' }] },
    ]);
    const backend = createJsonlBackend({ root });
    const shown = await backend.show(['s-child', 'nope', 's-parent', 's-child']);
    expect(shown.map((issue) => issue.id)).toEqual(['s-child', 's-parent']);
    expect(shown[0]?.dependencies.map((link) => [link.id, link.status, link.dependencyType])).toEqual([
      ['s-parent', 'open', 'parent-child'],
      ['s-missing', 'unknown', 'blocks'],
    ]);
    expect(shown[0]?.comments).toEqual([{ id: '7', author: 'a', text: 'hello', createdAt: '2026-01-02T00:00:00Z' }]);
    expect(shown[1]?.dependents.map((link) => link.id)).toEqual(['s-child']);
  });

  it('refuses every write with a ReadOnlyError that says why', async () => {
    const backend = createJsonlBackend({ root: project([{ id: 'x-1' }]), reason: 'no beads CLI was found' });
    expect(backend.readOnly).toBe(true);
    expect(backend.kind).toBe('jsonl');
    await expect(backend.addComment('x-1', 'text')).rejects.toBeInstanceOf(ReadOnlyError);
    await expect(backend.claim('x-1')).rejects.toThrow('Cannot claim an issue: this beads project is open read-only (no beads CLI was found).');
    await expect(backend.close('x-1', 'done')).rejects.toBeInstanceOf(ReadOnlyError);
  });

  it('sees a rewritten file and reuses an unchanged one', async () => {
    const root = project([{ id: 'c-1', status: 'in_progress' }]);
    const backend = createJsonlBackend({ root });
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['c-1']);
    writeJsonl(root, [{ id: 'c-1', status: 'closed' }, { id: 'c-2', status: 'in_progress' }]);
    expect((await backend.listInProgress()).map((issue) => issue.id)).toEqual(['c-2']);
    const first = await backend.show(['c-2']);
    const second = await backend.show(['c-2']);
    expect(second[0]).toBe(first[0]);
  });

  it('explains a missing file per dialect', async () => {
    const root = join(base, 'empty-project');
    mkdirSync(join(root, '.beads'), { recursive: true });
    await expect(createJsonlBackend({ root, dialect: 'bd' }).listReady()).rejects.toThrow(/export\.auto/);
    await expect(createJsonlBackend({ root, dialect: 'br' }).listReady()).rejects.toThrow(/There is no .*issues\.jsonl to read/);
  });

  it.skipIf(process.platform === 'win32')('refuses an issues.jsonl that is a link to /dev/urandom, a FIFO or a link out of the project, at once', async () => {
    const random = join(base, 'urandom');
    mkdirSync(join(random, '.beads'), { recursive: true });
    symlinkSync('/dev/urandom', join(random, '.beads', 'issues.jsonl'));
    // Before: read to the end of an endless device (17 s and 2.5 GB, then a failure to parse).
    await expect(createJsonlBackend({ root: random }).listInProgress()).rejects.toThrow(/issues\.jsonl is a symbolic link to \/dev\/urandom, outside .*; it was not read/);

    const fifo = join(base, 'fifo');
    mkdirSync(join(fifo, '.beads'), { recursive: true });
    expect(spawnSync('mkfifo', [join(fifo, '.beads', 'issues.jsonl')]).status).toBe(0);
    // Before: the open waited for a writer that never comes.
    await expect(createJsonlBackend({ root: fifo }).listInProgress()).rejects.toThrow(/named pipe \(FIFO\), not a regular file/);

    const outside = project([{ id: 'o-1', status: 'in_progress' }]);
    const linked = join(base, 'linked-out');
    mkdirSync(join(linked, '.beads'), { recursive: true });
    symlinkSync(join(outside, '.beads', 'issues.jsonl'), join(linked, '.beads', 'issues.jsonl'));
    await expect(createJsonlBackend({ root: linked }).listInProgress()).rejects.toThrow(/is a symbolic link to .*, outside/);
  });

  it('keeps a text field of megabytes cut to what views can show, and reads the file line by line', async () => {
    const huge = 'word '.repeat(2 * 1024 * 1024);
    const root = project([{ id: 'h-1', status: 'in_progress', description: huge, notes: `${'n'.repeat(MAX_TEXT_CHARS - 1)}😀 and more`, comments: [{ id: 1, author: 'a', text: huge, created_at: '2026-01-02T00:00:00Z' }] }]);
    const [issue] = await createJsonlBackend({ root }).show(['h-1']);
    expect(issue!.description).toBe(`${huge.slice(0, MAX_TEXT_CHARS)}…`);
    // Never half a surrogate pair.
    expect(issue!.notes).toBe(`${'n'.repeat(MAX_TEXT_CHARS - 1)}…`);
    // A comment stays whole: a write is known to have landed by its exact text.
    expect(issue!.comments[0]!.text).toBe(huge);
  });

  it('holds no issue\'s comments or long texts between queries: show reads them from the issue\'s line', async () => {
    const words = (word: string) => `${word} `.repeat(10_000);
    const root = project([
      { id: 'l-1', status: 'in_progress', description: words('first'), design: words('plan'), comments: [{ id: 1, author: 'a', text: words('said'), created_at: '2026-01-02T00:00:00Z' }] },
      { id: 'l-2', dependencies: [dep('l-2', 'l-1', 'blocks')] },
    ]);
    const file = join(root, '.beads', 'issues.jsonl');
    // A fixed time, so that a rewrite in place of the same size is not seen by size, time or inode.
    utimesSync(file, 1_000, 1_000);
    const backend = createJsonlBackend({ root });
    const [listed] = await backend.listInProgress();
    expect(listed!.description).toBe(`${words('first').slice(0, LISTED_DESCRIPTION_CHARS)}…`);
    expect(listed).not.toHaveProperty('design');
    // The same bytes count, other words: only a backend that reads the line again sees them.
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('said', 'told').replaceAll('plan', 'idea'));
    utimesSync(file, 1_000, 1_000);
    const [shown] = await backend.show(['l-1']);
    expect(shown!.comments.map((comment) => comment.text)).toEqual([words('told')]);
    expect(shown!.design).toBe(words('idea'));
    expect(shown!.description).toBe(words('first'));
    expect(shown!.dependents.map((issue) => issue.id)).toEqual(['l-2']);
  });

  it('reads the file again when a line no longer holds its issue (rewritten in place, same size and time)', async () => {
    const root = project([
      { id: 's-1', status: 'in_progress', notes: 'one' },
      { id: 's-2', status: 'in_progress', notes: 'two' },
    ]);
    const file = join(root, '.beads', 'issues.jsonl');
    utimesSync(file, 1_000, 1_000);
    const backend = createJsonlBackend({ root });
    expect(await backend.listInProgress()).toHaveLength(2);
    const [first, second] = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(file, `${second}\n${first}\n`);
    utimesSync(file, 1_000, 1_000);
    expect((await backend.show(['s-1', 's-2'])).map((issue) => [issue.id, issue.notes])).toEqual([
      ['s-1', 'one'],
      ['s-2', 'two'],
    ]);
  });

  it('names a removed issue that a live one depends on by its title, read from its line', async () => {
    const root = join(base, 'removed-blocker');
    mkdirSync(join(root, '.beads'), { recursive: true });
    // bd's own order (id first, then status): the tombstone is recognized without being parsed.
    writeFileSync(
      join(root, '.beads', 'issues.jsonl'),
      [
        JSON.stringify({ id: 't-gone', title: 'Removed blocker', description: 'long gone', status: 'tombstone', priority: 1, issue_type: 'bug', created_at: '2026-01-01T00:00:00Z' }),
        JSON.stringify({ id: 't-live', title: 'Live', status: 'in_progress', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', dependencies: [dep('t-live', 't-gone', 'blocks')] }),
        '',
      ].join('\n'),
    );
    const [live] = await createJsonlBackend({ root }).show(['t-live']);
    expect(live!.dependencies).toEqual([{ id: 't-gone', title: 'Removed blocker', status: 'tombstone', priority: 1, issueType: 'bug', dependencyType: 'blocks' }]);
  });

  it('stops as canceled when the signal is already aborted', async () => {
    const backend = createJsonlBackend({ root: project([{ id: 'a-1' }]) });
    const error = await backend.listReady(AbortSignal.abort()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).kind).toBe('canceled');
  });
});

describe('jsonl backend on real data', () => {
  function dataProject(file: string): string {
    const root = join(base, file.slice(0, 20));
    mkdirSync(join(root, '.beads'), { recursive: true });
    copyFileSync(join(DATA, file), join(root, '.beads', 'issues.jsonl'));
    return root;
  }

  it('answers from the 5,722-line bd store: ready issues are open and unblocked', async () => {
    const backend = createJsonlBackend({ root: dataProject('bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl'), dialect: 'bd', now: () => NOW });
    // Nothing is in_progress there, but 13 issues are `hooked`: bd's other work in progress (C2).
    const working = await backend.listInProgress();
    expect(working.length).toBeGreaterThan(0);
    expect(new Set(working.map((issue) => issue.status))).toEqual(new Set(['hooked']));
    const ready = await backend.listReady();
    expect(ready.length).toBeGreaterThan(0);
    expect(ready.length).toBeLessThanOrEqual(131);
    const details = await backend.show(ready.map((issue) => issue.id));
    expect(details).toHaveLength(ready.length);
    for (const issue of details) {
      expect(issue.status).toBe('open');
      const openBlockers = issue.dependencies.filter((link) => BLOCKING_TYPES.has(link.dependencyType) && link.status !== 'unknown' && !isTerminal(link.status));
      expect(openBlockers, issue.id).toEqual([]);
    }
    for (let index = 1; index < ready.length; index++) {
      expect((ready[index - 1] as { priority: number }).priority).toBeLessThanOrEqual((ready[index] as { priority: number }).priority);
    }
  });

  it('answers from the small project, where everything is closed', async () => {
    const backend = createJsonlBackend({ root: dataProject('bd_3rdparty_jkarasha-fastapi-todo-api-beads_e3314363_small.issues.jsonl'), dialect: 'bd' });
    expect(await backend.listReady()).toEqual([]);
    expect(await backend.listInProgress()).toEqual([]);
    expect(await backend.show(['fastapi-todo-api-beads-5og'])).toHaveLength(1);
  });
});
