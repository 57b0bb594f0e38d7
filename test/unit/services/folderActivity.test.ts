// The activity of one workspace folder, without VS Code: file events handed in through fake
// watchers, time through a hand-driven clock, beads through the fake backend. The folder is a
// real temporary folder outside git, so the ledger lives in the "workspace storage" folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BeadsBackend } from '../../../src/beads/backend';
import { FolderActivity } from '../../../src/services/folderActivity';
import { expectOwnWrite } from '../../../src/services/ownWrites';
import { FakeBackend } from '../support/fakeBackend';
import { FakeWatchers } from '../support/fakeWatchers';
import { issueDetails } from '../support/fakeIssues';
import { ManualClock } from '../support/manualClock';

let dir: string;
let root: string;
let storage: string;
let beads: FakeBackend;
let watchers: FakeWatchers;
let clock: ManualClock;
const warnings: string[] = [];
const opened: FolderActivity[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'folder-activity-'));
  root = join(dir, 'work');
  storage = join(dir, 'storage');
  mkdirSync(root);
  beads = new FakeBackend([issueDetails('demo-1', { status: 'in_progress' }), 'demo-2'], { root });
  watchers = new FakeWatchers();
  clock = new ManualClock();
  warnings.length = 0;
});

async function close(): Promise<void> {
  for (const activity of opened.splice(0)) await activity.close();
}

afterEach(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(excludes: string[] = [], backend: BeadsBackend = beads as BeadsBackend): Promise<FolderActivity> {
  const activity = await FolderActivity.open({
    name: 'work',
    root,
    project: { backend },
    watchers,
    clock,
    watcherExcludes: excludes,
    fallbackDir: storage,
    timeoutMs: 5_000,
    log: { info: () => undefined, warn: (message) => warnings.push(message) },
    onDamage: (message) => warnings.push(message),
  });
  if (!activity) throw new Error('the folder did not open');
  opened.push(activity);
  await activity.flush();
  return activity;
}

const lists = () => beads.calls.filter((call) => call.op === 'list').length;
const file = (relative: string) => join(root, ...relative.split('/'));

describe('FolderActivity', () => {
  it('watches the folder and its ledger file, and focuses the in-progress issue', async () => {
    const activity = await open();
    expect(watchers.watched()).toEqual([`${root}|**/*`, `${storage}|ledger.json`]);
    expect(activity.inProgressIssues?.map((issue) => issue.id)).toEqual(['demo-1']);
    expect(activity.focusedIssue()).toBe('demo-1');
    expect(activity.commitFocus()).toEqual({ known: true, issueId: 'demo-1' });
    expect(activity.linker).toBeUndefined();
  });

  it('records changed and deleted files against the focused issue, at the clock\'s time', async () => {
    const activity = await open();
    watchers.fire('changed', file('src/a.ts'));
    await activity.flush();
    clock.advance(5_000);
    watchers.fire('deleted', file('src/b.ts'));
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['src/a.ts', 'src/b.ts']);
    expect(activity.focusedLedger()?.touched).toEqual([clock.now() - 5_000, clock.now()]);
    expect(activity.focusedLedger()?.edits).toBe(2);
  });

  it('skips .git, node_modules, agent settings, excluded globs and the extension\'s own writes', async () => {
    const activity = await open(['**/dist/**']);
    for (const skipped of ['.git/index', 'node_modules/x/index.js', '.claude/settings.local.json', 'app/dist/out.js', 'AGENTS.md']) {
      if (skipped === 'AGENTS.md') expectOwnWrite(file(skipped), clock.now());
      watchers.fire('changed', file(skipped));
    }
    await activity.flush();
    expect(activity.focusedLedger()?.files ?? []).toEqual([]);
    activity.setWatcherExcludes([]);
    watchers.fire('changed', file('app/dist/out.js'));
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['app/dist/out.js']);
  });

  it('counts a save as an edit only when the content changed (Ctrl+S, auto-save, format-on-save)', async () => {
    const activity = await open();
    mkdirSync(file('src'), { recursive: true });
    writeFileSync(file('src/a.ts'), 'one');
    watchers.fire('changed', file('src/a.ts'));
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(1);
    // Sixty saves of the same bytes, each a second apart so that no coalescing hides them.
    for (let save = 0; save < 60; save++) {
      clock.advance(1_000);
      writeFileSync(file('src/a.ts'), 'one');
      watchers.fire('changed', file('src/a.ts'));
      await activity.flush();
    }
    expect(activity.focusedLedger()?.edits).toBe(1);
    clock.advance(1_000);
    writeFileSync(file('src/a.ts'), 'two');
    watchers.fire('changed', file('src/a.ts'));
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(2);
    // Written back: a change of content again.
    clock.advance(1_000);
    writeFileSync(file('src/a.ts'), 'one');
    watchers.fire('changed', file('src/a.ts'));
    clock.advance(1_000);
    watchers.fire('deleted', file('gone.ts'));
    watchers.fire('deleted', file('gone.ts'));
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(4);
  });

  it('counts every editor save that changes the text, however fast they come, and its file events not again', async () => {
    // The report: 22 changing saves 0.7 s apart counted 15 edits (bursts of events settle into one).
    const activity = await open();
    mkdirSync(file('src'), { recursive: true });
    for (let save = 0; save < 22; save++) {
      clock.advance(700);
      const text = `version ${save}`;
      writeFileSync(file('src/a.ts'), text);
      activity.noticeSave(file('src/a.ts'), text);
      watchers.fire('changed', file('src/a.ts'));
      // Only every fourth burst settles before the next save.
      if (save % 4 === 3) await activity.flush();
    }
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(22);
    // Saves that write the same text again are no edits.
    for (let save = 0; save < 5; save++) {
      clock.advance(700);
      writeFileSync(file('src/a.ts'), 'version 21');
      activity.noticeSave(file('src/a.ts'), 'version 21');
      watchers.fire('changed', file('src/a.ts'));
    }
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(22);
    // Another process changes it later: one edit, from its event.
    clock.advance(10_000);
    writeFileSync(file('src/a.ts'), 'from a formatter run in a terminal');
    watchers.fire('changed', file('src/a.ts'));
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(23);
  });

  it('lists a new folder whose files had no events of their own', async () => {
    const activity = await open();
    mkdirSync(file('gen/deep'), { recursive: true });
    writeFileSync(file('gen/deep/one.ts'), '1');
    writeFileSync(file('gen/two.ts'), '2');
    watchers.fire('created', file('gen'));
    watchers.fire('created', file('gone.tmp'));
    expect(activity.focusedLedger()?.files ?? []).toEqual([]);
    clock.advance(100);
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['gen/deep/one.ts', 'gen/two.ts']);
  });

  it('gives edits made while nothing was in progress to the issue claimed within five minutes', async () => {
    beads.issues.get('demo-1')!.status = 'open';
    const activity = await open();
    expect(activity.focusedIssue()).toBeUndefined();
    watchers.fire('changed', file('early.ts'));
    clock.advance(60_000);
    await beads.claim('demo-2');
    const before = lists();
    watchers.fire('changed', file('.beads/issues.jsonl'));
    clock.advance(499);
    expect(lists()).toBe(before);
    clock.advance(1);
    expect(lists()).toBe(before + 1);
    await activity.flush();
    expect(activity.focusedIssue()).toBe('demo-2');
    expect(activity.focusedLedger()?.files).toEqual(['early.ts']);
  });

  it('drops edits made while nothing was in progress once five minutes have passed', async () => {
    beads.issues.get('demo-1')!.status = 'open';
    const activity = await open();
    watchers.fire('changed', file('stale.ts'));
    clock.advance(5 * 60_000 + 1);
    await beads.claim('demo-2');
    await activity.refreshInProgress();
    expect(activity.focusedIssue()).toBe('demo-2');
    expect(activity.focusedLedger()).toBeUndefined();
  });

  it('watches the store where detection found it: br\'s _beads is beads\' own, not the user\'s work', async () => {
    // The same fake, seen with the store folder detection reports for a `_beads` project.
    const underscored = Object.assign(Object.create(beads) as BeadsBackend, { beadsDir: file('_beads') });
    const activity = await open([], underscored);
    const before = lists();
    watchers.fire('changed', file('_beads/issues.jsonl'));
    clock.advance(500);
    expect(lists()).toBe(before + 1);
    await activity.flush();
    expect(activity.focusedLedger()?.files ?? []).not.toContain('_beads/issues.jsonl');
  });

  it('ignores lock and log files under .beads/ (a query\'s own reads touch them)', async () => {
    await open();
    const before = lists();
    watchers.fire('changed', file('.beads/beads.db.lock'));
    watchers.fire('changed', file('.beads/daemon.log'));
    clock.advance(1_000);
    expect(lists()).toBe(before);
  });

  it('keeps the user\'s pick while it is in progress and follows the most recent one otherwise', async () => {
    await beads.claim('demo-2');
    const activity = await open();
    await activity.focus('demo-2');
    expect(activity.state.focusPinned).toBe(true);
    await activity.refreshInProgress();
    expect(activity.focusedIssue()).toBe('demo-2');
    await beads.close('demo-2', 'done');
    await activity.refreshInProgress();
    expect(activity.focusedIssue()).toBe('demo-1');
  });

  it('says when the focus follows an issue claimed elsewhere, and not for a claim made here', async () => {
    beads.issues.get('demo-1')!.status = 'open';
    const activity = await open();
    const moves: unknown[] = [];
    activity.onDidMoveFocus((move) => moves.push(move));
    await beads.claim('demo-2');
    await activity.refreshInProgress();
    expect(activity.focusedIssue()).toBe('demo-2');
    expect(moves).toEqual([{ from: undefined, to: 'demo-2', title: 'Issue demo-2' }]);
    // A claim made in this window says so itself.
    activity.expectClaim('demo-1');
    clock.advance(60_000);
    await beads.claim('demo-1');
    await activity.refreshInProgress();
    expect(activity.focusedIssue()).toBe('demo-1');
    expect(moves).toHaveLength(1);
  });

  it('tells its listeners when the ledger or the in-progress issues change', async () => {
    const activity = await open();
    let changes = 0;
    const listening = activity.onDidChange(() => changes++);
    await activity.refreshInProgress();
    expect(changes).toBeGreaterThan(0);
    listening.dispose();
    const before = changes;
    await activity.refreshInProgress();
    expect(changes).toBe(before);
  });

  it('lets go of its watchers and timers when closed, and writes what it gathered', async () => {
    const activity = await open();
    watchers.fire('changed', file('last.ts'));
    watchers.fire('created', file('pending.ts'));
    watchers.fire('changed', file('.beads/issues.jsonl'));
    expect(clock.timers).toBeGreaterThan(0);
    await activity.close();
    expect(watchers.watched()).toEqual([]);
    expect(clock.timers).toBe(0);
    const reopened = await open();
    expect(reopened.focusedLedger()?.files).toEqual(['last.ts']);
  });

  it('watches a .beads folder outside the workspace folder', async () => {
    const elsewhere = join(dir, 'elsewhere');
    beads = new FakeBackend([issueDetails('demo-1', { status: 'in_progress' })], { root: elsewhere });
    await open();
    expect(watchers.watched()).toContain(`${join(elsewhere, '.beads')}|**/*`);
    const before = lists();
    watchers.fire('changed', join(elsewhere, '.beads', 'beads.db.lock'));
    watchers.fire('changed', join(elsewhere, '.beads', 'issues.jsonl'));
    clock.advance(500);
    expect(lists()).toBe(before + 1);
  });
});

describe('FolderActivity reconciled with git status', () => {
  let git: (...args: string[]) => string;

  beforeEach(() => {
    // Real time: git reports real modification times.
    clock = new ManualClock(Date.now());
    git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: root, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(file('committed.ts'), 'v1');
    writeFileSync(file('doomed.ts'), 'v1');
    git('add', '.');
    git('commit', '-q', '-m', 'start');
  });

  /** Writes a file with no watcher event, as a missed event would leave it, dated `at`. */
  function writeUnseen(relative: string, at: number): void {
    mkdirSync(join(file(relative), '..'), { recursive: true });
    writeFileSync(file(relative), String(at));
    utimesSync(file(relative), new Date(at), new Date(at));
  }

  it('records a file changed while the issue was focused that no event reported', async () => {
    const activity = await open();
    expect(activity.linker).toBeDefined();
    const focusedAt = activity.state.focusedAt as number;
    writeUnseen('src/missed.ts', focusedAt + 1_000);
    writeUnseen('committed.ts', focusedAt + 2_000);
    watchers.fire('changed', file('src/seen.ts'));
    clock.advance(5_000);
    await activity.refreshInProgress();
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['committed.ts', 'src/missed.ts', 'src/seen.ts']);
    expect(activity.focusedLedger()?.touched.slice(0, 2)).toEqual([focusedAt + 2_000, focusedAt + 1_000]);
  });

  it('names a file no event reported at the next flush (before a checkpoint, a recovery or a close), and its late event is no second edit', async () => {
    const activity = await open();
    await activity.flush();
    const focusedAt = activity.state.focusedAt as number;
    const edits = activity.focusedLedger()?.edits ?? 0;
    writeUnseen('agent/deep/written.ts', focusedAt + 1_000);
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['agent/deep/written.ts']);
    expect(activity.focusedLedger()?.edits).toBe(edits + 1);
    watchers.fire('changed', file('agent/deep/written.ts'));
    clock.advance(5_000);
    await activity.flush();
    expect(activity.focusedLedger()?.edits).toBe(edits + 1);
  });

  it('never counts a save of a file that holds what git has, nor a repeat save of a dirty file', async () => {
    const activity = await open();
    const five = ['committed.ts', 'doomed.ts'];
    for (let save = 0; save < 60; save++) {
      clock.advance(1_000);
      for (const name of five) {
        writeFileSync(file(name), 'v1');
        watchers.fire('changed', file(name));
      }
      await activity.flush();
    }
    expect(activity.focusedLedger()?.edits ?? 0).toBe(0);
    expect(activity.focusedLedger()?.files ?? []).toEqual([]);
    // A real edit, then saves that write the same again: one edit, and git status finds nothing missed.
    writeFileSync(file('committed.ts'), 'v2');
    watchers.fire('changed', file('committed.ts'));
    await activity.flush();
    await activity.focus('demo-1');
    await activity.store.markCheckpoint('demo-1', clock.now());
    for (let save = 0; save < 5; save++) {
      clock.advance(1_000);
      writeFileSync(file('committed.ts'), 'v2');
      // Dated after the checkpoint, as a real save would be: git status alone would call it missed work.
      utimesSync(file('committed.ts'), new Date(clock.now()), new Date(clock.now()));
      watchers.fire('changed', file('committed.ts'));
      await activity.flush();
    }
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.edits ?? 0).toBe(0);
  });

  it('never gives a newly claimed issue a file that was dirty before the claim', async () => {
    beads.issues.get('demo-1')!.status = 'open';
    const activity = await open();
    expect(activity.focusedIssue()).toBeUndefined();
    writeUnseen('before-claim.ts', clock.now() - 60_000);
    clock.advance(10_000);
    await beads.claim('demo-2');
    await activity.refreshInProgress();
    await activity.flush();
    expect(activity.focusedIssue()).toBe('demo-2');
    expect(activity.state.focusedAt).toBe(clock.now());
    writeUnseen('after-claim.ts', clock.now() + 1_000);
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['after-claim.ts']);
  });

  it('records nothing while no issue is in progress', async () => {
    beads.issues.get('demo-1')!.status = 'open';
    const activity = await open();
    writeUnseen('loose.ts', clock.now() + 1_000);
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.state.ledgers).toEqual({});
  });

  it('counts a deletion only once it happened after an earlier look at the same focus', async () => {
    // Gone before the first look: when is unknown, so it is not this issue's work.
    rmSync(file('committed.ts'));
    const activity = await open();
    await activity.reconcileWithGit();
    expect(activity.focusedLedger()?.files ?? []).toEqual([]);
    rmSync(file('doomed.ts'));
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['doomed.ts']);
  });

  it('respects the filters: beads files, agent settings, excluded globs, the extension\'s own unchanged writes', async () => {
    const activity = await open(['**/generated/**']);
    const after = (activity.state.focusedAt as number) + 1_000;
    for (const skipped of ['.beads/issues.jsonl', '.claude/settings.local.json', 'generated/out.ts', 'AGENTS.md']) writeUnseen(skipped, after);
    expectOwnWrite(file('AGENTS.md'), after - 500);
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.files ?? []).toEqual([]);
    // Edited after the extension's write: the user's work now.
    writeUnseen('AGENTS.md', after + 60_000);
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['AGENTS.md']);
  });

  it('reads paths relative to the work tree in a folder below its top', async () => {
    await close();
    mkdirSync(file('packages/app'), { recursive: true });
    root = join(root, 'packages', 'app');
    const activity = await open();
    writeUnseen('inside.ts', (activity.state.focusedAt as number) + 1_000);
    writeFileSync(join(root, '..', 'outside.ts'), 'x');
    await activity.reconcileWithGit();
    await activity.flush();
    expect(activity.focusedLedger()?.files).toEqual(['inside.ts']);
  });
});
