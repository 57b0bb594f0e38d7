import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyLedgerState, markCheckpoint, noteEarlierCheckpoint, recordCommit, recordFileChange, setFocus, type LedgerState } from '../../../src/core/ledger';
import { lastCheckpointPhrase } from '../../../src/core/policy';
import { formatAge } from '../../../src/core/time';
import { buildSidebarModel } from '../../../src/core/viewModel';
import type { IssueDetails } from '../../../src/core/model';
import { activityOf, checkpointWrite, Checkpoints, SAME_WORDS_WINDOW_MS, markCheckpointsOnLanding, noticeExternalCheckpoint, type CheckpointLedger } from '../../../src/services/checkpoints';
import { runCheckpoint, type CheckpointFlowResult } from '../../../src/services/checkpointFlow';
import { Outbox } from '../../../src/services/outbox';
import type { AutoCheckpointTrigger } from '../../../src/core/checkpoint';
import { FakeBackend } from '../support/fakeBackend';
import { comments as numbered, issueDetails } from '../support/fakeIssues';

function details(id: string, entries: { text: string; createdAt: string }[]): IssueDetails {
  return issueDetails(id, { title: id, status: 'in_progress', comments: numbered(entries, 'x') });
}

const T0 = Date.parse('2026-03-01T10:00:00Z');

/** The ledger store's checkpoint surface over the pure ledger. */
class MemoryLedger implements CheckpointLedger {
  state: LedgerState = emptyLedgerState();
  async markCheckpoint(issueId: string, now: number): Promise<void> {
    this.state = markCheckpoint(this.state, issueId, now);
  }
  async noteEarlierCheckpoint(issueId: string, at: number, now?: number): Promise<void> {
    this.state = noteEarlierCheckpoint(this.state, issueId, at, now);
  }
}

/** What the fake beads holds as demo-1's comments, oldest first. */
function commentsOnDemo1(): string[] {
  return beads.issues.get('demo-1')?.comments.map((comment) => comment.text) ?? [];
}

/**
 * A checkpoint through the one checkpoint flow, on a project kept open (as VS Code keeps it): the
 * outbox and ledger given, or the test's own. Its checkpoint time is the test's `now`.
 */
function checkpointOpen(
  ask: { message: string } | { trigger: AutoCheckpointTrigger },
  on: { queue?: Outbox; ledger?: MemoryLedger; issueId?: string; at?: number } = {},
): Promise<CheckpointFlowResult> {
  const onLedger = on.ledger ?? ledger;
  const at = on.at ?? now;
  return runCheckpoint(
    { ask, issueId: on.issueId ?? onLedger.state.focusedId, place: { kind: 'open', backend: beads, outbox: on.queue ?? outbox, ledger: onLedger } },
    { deadline: Date.now() + 2_000, now: () => at },
  );
}

let dir: string;
let outbox: Outbox;
let ledger: MemoryLedger;
let beads: FakeBackend;
let now: number;
let checkpoints: Checkpoints;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  // The CLI stamps every comment at T0, before the times the tests move `now` to.
  beads = new FakeBackend([issueDetails('demo-1', { status: 'in_progress' })], { root: '/p', clock: () => T0 });
  outbox = new Outbox({ file: join(dir, 'outbox.json'), root: '/p', backend: beads });
  ledger = new MemoryLedger();
  now = T0;
  checkpoints = new Checkpoints({ queue: outbox, ledger, now: () => now });
  markCheckpointsOnLanding(outbox, () => ledger);
  ledger.state = ledgerBefore();
  now = T0 + 25 * 60_000;
});

afterEach(() => {
  outbox.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('Checkpoints', () => {
  it('suggests a summary of the ledger', () => {
    expect(checkpoints.suggestion()).toBe('1 commit and 2 edits to 2 files in 25 min, latest src/lexer.ts');
    expect(checkpoints.suggestion('demo-1', 'escapes')).toBe('1 commit and 2 edits to 2 files in 25 min, latest src/lexer.ts');
  });

  it('orders the files most edited first, then most recently touched, whatever their names', () => {
    ledger.state = recordFileChange(ledger.state, 'demo-1', 'src/parser.ts', T0 + 240_000);
    expect(checkpoints.activity()).toMatchObject({ files: ['src/parser.ts', 'src/lexer.ts'], fileEdits: [2, 1] });
    expect(checkpoints.suggestion()).toMatch(/3 edits to 2 files in 25 min, most edits in src\/parser\.ts$/);
    // The file worked on most leads, though another was touched later.
    for (const at of [T0 + 300_000, T0 + 310_000]) ledger.state = recordFileChange(ledger.state, 'demo-1', 'src/lexer.ts', at);
    ledger.state = recordFileChange(ledger.state, 'demo-1', 'src/zz-new.ts', T0 + 400_000);
    expect(checkpoints.activity()?.files).toEqual(['src/lexer.ts', 'src/parser.ts', 'src/zz-new.ts']);
    const comment = checkpoints.suggestion();
    expect(comment).toMatch(/most edits in src\/lexer\.ts$/);
  });

  it('writes Checkpoint: <text> through the outbox and starts the counters again', async () => {
    const { comment } = await checkpointOpen({ message: checkpoints.suggestion() });
    await outbox.drain(AbortSignal.timeout(2_000));
    expect(commentsOnDemo1()).toEqual([comment]);
    // The commit linked since the last checkpoint is written here, in its Commits line, and nowhere else.
    expect(comment).toBe('Checkpoint: 1 commit and 2 edits to 2 files in 25 min, latest src/lexer.ts\n- Files: src/lexer.ts, src/parser.ts\n- Commits: a1b2c3d feat: lexer');
    expect(ledger.state.ledgers['demo-1']).toMatchObject({ files: [], edits: 0, commits: [], lastCheckpointAt: now });
    expect(checkpoints.suggestion()).toBe('Progress: …');
    expect(checkpoints.suggestion('demo-1', 'escapes')).toBe('Progress: …; Next: escapes');
  });

  it('writes an automatic checkpoint only when something is new, and never twice for one state', async () => {
    const first = await checkpointOpen({ trigger: 'issue-switch' });
    expect(first).toMatchObject({ outcome: 'written', issueId: 'demo-1' });
    await outbox.drain(AbortSignal.timeout(2_000));
    expect(await checkpointOpen({ trigger: 'issue-switch' })).toMatchObject({ outcome: 'nothing-new', issueId: 'demo-1', notes: [] });

    // A process that saw it land but died before the ledger noted it comes back with the same
    // state: the same key, found landed, so nothing is sent and the ledger notes it now.
    const restarted = new MemoryLedger();
    restarted.state = ledgerBefore();
    const second = await checkpointOpen({ trigger: 'issue-switch' }, { ledger: restarted, at: now + 5_000 });
    expect(second).toMatchObject({ outcome: 'written', key: first.key });
    expect(restarted.state.ledgers['demo-1']).toMatchObject({ files: [], commits: [], lastCheckpointAt: now + 5_000 });
    await outbox.drain(AbortSignal.timeout(2_000));
    expect(commentsOnDemo1()).toHaveLength(1);
    expect(commentsOnDemo1()?.[0]).toBe(
      'Auto-checkpoint (issue switch): 2 edits, 2 files, 1 commit in 25 min\n- Files: src/lexer.ts, src/parser.ts\n- Commits: a1b2c3d feat: lexer',
    );
  });

  it('counts a checkpoint only once it has landed; work recorded meanwhile stays for the next one', async () => {
    // No CLI yet: the checkpoint is only queued, and its work still counts.
    const waiting = new Outbox({ file: join(dir, 'waiting.json'), root: '/p' });
    markCheckpointsOnLanding(waiting, () => ledger);
    const takenAt = now;
    const key = (await checkpointOpen({ message: 'parser and lexer' }, { queue: waiting })).key as string;
    expect(waiting.status(key)).toBe('pending');
    expect(ledger.state.ledgers['demo-1']).toMatchObject({ files: ['src/lexer.ts', 'src/parser.ts'], commits: [{ hash: 'a1b2c3d4' }] });
    expect(ledger.state.ledgers['demo-1']?.lastCheckpointAt).toBe(T0);

    // Asked again before it lands (a retry, a re-queue after a crash): the same key, queued once.
    expect((await checkpointOpen({ message: 'parser and lexer' }, { queue: waiting })).key).toBe(key);
    expect(waiting.pendingCount).toBe(1);

    // Nothing new to record would not hide it either: with no activity, the pending write is reported.
    const idle = new MemoryLedger();
    idle.state = setFocus(markCheckpoint(emptyLedgerState(), 'demo-1', T0), 'demo-1', T0);
    expect(await checkpointOpen({ trigger: 'shutdown' }, { queue: waiting, ledger: idle })).toMatchObject({
      outcome: 'nothing-new',
      issueId: 'demo-1',
      notes: ['1 write(s) still queued.'],
    });

    now += 60_000;
    ledger.state = recordFileChange(ledger.state, 'demo-1', 'src/later.ts', now);
    waiting.setBackend(beads);
    await waiting.drain(AbortSignal.timeout(2_000));
    waiting.dispose();
    expect(commentsOnDemo1()).toHaveLength(1);
    expect(ledger.state.ledgers['demo-1']).toMatchObject({ files: ['src/later.ts'], commits: [], edits: 1, lastCheckpointAt: takenAt });
  });

  it('lets whichever process lands the checkpoint count it in the ledger', async () => {
    const offline = new Outbox({ file: join(dir, 'shared.json'), root: '/p' });
    const key = (await checkpointOpen({ message: 'handed over' }, { queue: offline })).key as string;
    offline.dispose();
    // Another process (a window, the command line) on the same file, with the same ledger beside it.
    const other = new Outbox({ file: join(dir, 'shared.json'), root: '/p', backend: beads });
    markCheckpointsOnLanding(other, () => ledger);
    await other.drain(AbortSignal.timeout(2_000));
    other.dispose();
    expect(other.status(key)).toBe('done');
    expect(ledger.state.ledgers['demo-1']).toMatchObject({ files: [], commits: [], lastCheckpointAt: now });
  });

  it('says when nothing is in progress to checkpoint', async () => {
    ledger.state = setFocus(ledger.state, undefined, now);
    beads = new FakeBackend([issueDetails('demo-1', { status: 'open' })], { root: '/p', clock: () => T0 });
    expect(await checkpointOpen({ trigger: 'shutdown' })).toMatchObject({ outcome: 'failed', failure: 'no-issue' });
  });

  it('flushes before recovery: the checkpoint has landed when it returns', async () => {
    const outcome = await checkpointOpen({ trigger: 'before-recovery' });
    expect(outcome.outcome).toBe('written');
    expect(commentsOnDemo1()?.[0]).toMatch(/^Auto-checkpoint \(before recovery\)/);
  });
});

describe('noticeExternalCheckpoint', () => {
  it('resets the counters on a comment newer than the last checkpoint that we did not write', async () => {
    const typed = details('demo-1', [{ text: 'Checkpoint: typed in a terminal', createdAt: new Date(T0 + 600_000).toISOString() }]);
    expect(await checkpoints.noticeExternalCheckpoint(typed)).toBe(true);
    expect(ledger.state.ledgers['demo-1']).toMatchObject({ edits: 0, files: [], lastCheckpointAt: T0 + 600_000 });
    expect(await checkpoints.noticeExternalCheckpoint(typed)).toBe(false);
  });

  it('ignores comments older than the last checkpoint and comments the outbox wrote', async () => {
    const comment = (await checkpointOpen({ message: 'mine' })).comment as string;
    await outbox.drain(AbortSignal.timeout(2_000));
    ledger.state = recordFileChange(ledger.state, 'demo-1', 'src/after.ts', now + 1_000);
    const seen = details('demo-1', [
      { text: 'old note', createdAt: new Date(T0 - 60_000).toISOString() },
      { text: comment, createdAt: new Date(now + 2_000).toISOString() },
    ]);
    expect(await checkpoints.noticeExternalCheckpoint(seen)).toBe(false);
    expect(ledger.state.ledgers['demo-1']?.files).toEqual(['src/after.ts']);
  });

  it('learns the time of checkpoints older than the ledger, counters kept, so the status bar and the sidebar agree', async () => {
    // The ledger started after three checkpoints were written (an earlier session): it knows none.
    let state = setFocus(emptyLedgerState(), 'demo-1', T0);
    state = recordFileChange(state, 'demo-1', 'src/parser.ts', T0 + 60_000);
    state = recordFileChange(state, 'demo-1', 'src/lexer.ts', T0 + 120_000);
    ledger.state = state;
    expect(lastCheckpointPhrase(ledger.state.ledgers['demo-1'], now)).toBe('no checkpoint yet');
    const issue = details('demo-1', [
      { text: 'Checkpoint: one', createdAt: new Date(T0 - 3 * 3_600_000).toISOString() },
      { text: 'Checkpoint: two', createdAt: new Date(T0 - 2 * 3_600_000).toISOString() },
      { text: 'Checkpoint: three', createdAt: new Date(T0 - 3_600_000).toISOString() },
    ]);
    expect(await checkpoints.noticeExternalCheckpoint(issue)).toBe(false);
    const noted = ledger.state.ledgers['demo-1']!;
    expect(noted).toMatchObject({ lastCheckpointAt: T0 - 3_600_000, edits: 2, files: ['src/lexer.ts', 'src/parser.ts'] });
    // One truth: the tooltip's phrase, the sidebar's age and the activity's window all read it.
    const sidebar = buildSidebarModel({
      inProgress: { ok: true, value: [issue] },
      ready: { ok: true, value: [] },
      details: { ok: true, value: [issue] },
      focusedId: 'demo-1',
      activity: activityOf(noted),
      now,
    });
    expect(sidebar.trail.items).toHaveLength(3);
    expect(lastCheckpointPhrase(noted, now)).toBe(`last checkpoint ${sidebar.activity?.lastCheckpointAge}`);
    expect(sidebar.activity?.lastCheckpointAge).toBe(formatAge(T0 - 3_600_000, now));
    expect(sidebar.activity?.edits).toBe(noted.edits);
    // Seen again: nothing changes.
    await checkpoints.noticeExternalCheckpoint(issue);
    expect(ledger.state.ledgers['demo-1']).toBe(noted);
  });

  it('does nothing for an issue without a ledger that is not in progress', async () => {
    const closed = issueDetails('demo-9', { title: 'demo-9', status: 'closed', comments: numbered([{ text: 'x', createdAt: new Date(T0).toISOString() }], 'x') });
    expect(await noticeExternalCheckpoint(closed, ledger, now)).toBe(false);
    expect(ledger.state.ledgers['demo-9']).toBeUndefined();
  });

  it('on a first open (no ledger: nothing recorded yet) the status bar learns the checkpoints the view lists', async () => {
    ledger.state = setFocus(emptyLedgerState(), 'demo-9', now);
    const issue = details('demo-9', [
      { text: 'Checkpoint: one', createdAt: new Date(T0 - 3 * 86_400_000).toISOString() },
      { text: 'Checkpoint: three', createdAt: new Date(T0 - 3 * 86_400_000 + 60_000).toISOString() },
    ]);
    expect(await checkpoints.noticeExternalCheckpoint(issue)).toBe(false);
    const noted = ledger.state.ledgers['demo-9'];
    expect(noted).toMatchObject({ lastCheckpointAt: T0 - 3 * 86_400_000 + 60_000, edits: 0, files: [], startedAt: now });
    expect(lastCheckpointPhrase(noted, now)).toBe(`last checkpoint ${formatAge(T0 - 3 * 86_400_000 + 60_000, now)}`);
    expect(lastCheckpointPhrase(noted, now)).not.toContain('no checkpoint yet');
  });
});

function ledgerBefore(): LedgerState {
  let state = setFocus(emptyLedgerState(), 'demo-1', T0);
  state = markCheckpoint(state, 'demo-1', T0);
  state = recordFileChange(state, 'demo-1', 'src/parser.ts', T0 + 60_000);
  state = recordFileChange(state, 'demo-1', 'src/lexer.ts', T0 + 120_000);
  return recordCommit(state, 'demo-1', { hash: 'a1b2c3d4', subject: 'feat: lexer', at: T0 + 180_000 }, T0 + 180_000);
}

describe('checkpointWrite: one definition of a checkpoint for VS Code, the command line and agent tools', () => {
  const activity = { issueId: 'wf-7', files: ['src/parse.ts', 'src/lex.ts'], fileEdits: [4, 1], commits: [{ hash: 'abc1234', subject: 'Lex numbers' }], edits: 5, lastCheckpointAt: T0 };
  const nothing = { issueId: 'wf-7', files: [], commits: [], edits: 0, lastCheckpointAt: T0 };
  const now = T0 + 20 * 60_000;

  it('writes given words even with nothing new, keyed by the issue and the words alone: not the time, not the window that moves once they land', () => {
    const first = checkpointWrite(nothing, { message: 'Next: wire LineError' }, now);
    const again = checkpointWrite(nothing, { message: 'Next: wire LineError' }, now + 60_000);
    expect(first.comment).toMatch(/^Checkpoint: Next: wire LineError/);
    expect(again.key).toBe(first.key);
    // The first copy landed and moved the window: a retry of the same words is still the same write.
    expect(checkpointWrite({ ...nothing, lastCheckpointAt: T0 + 1 }, { message: 'Next: wire LineError' }, now).key).toBe(first.key);
    expect(first.sameWithinMs).toBe(SAME_WORDS_WINDOW_MS);
    expect(checkpointWrite(nothing, { message: 'Next: other words' }, now).key).not.toBe(first.key);
  });

  it('writes an automatic or summary checkpoint only when there is something new, under one key for one activity', () => {
    expect(checkpointWrite(nothing, { trigger: 'pre-compaction' }, now)).toBeUndefined();
    expect(checkpointWrite(nothing, { summary: true }, now)).toBeUndefined();
    const automatic = checkpointWrite(activity, { trigger: 'pre-compaction' }, now);
    const summary = checkpointWrite(activity, { summary: true }, now);
    expect(automatic?.comment).toMatch(/^Auto-checkpoint \(pre-compaction\)/);
    expect(summary?.comment).toMatch(/^Checkpoint: /);
    // The same recorded work is one checkpoint whichever process or trigger asks for it.
    expect(summary?.key).toBe(automatic?.key);
    expect(checkpointWrite(activity, { trigger: 'agent-hook' }, now + 1000)?.key).toBe(automatic?.key);
  });

  it("carries the session's thread below the first line; the thread alone is new work, and another thread another checkpoint", () => {
    const thread = ['- Request: make the parser accept nested keys', "- Failing: test_parser.py::test_nested_keys — KeyError: 'a'", '- Next: wait for the user to answer the open question above'];
    const withThread = checkpointWrite(activity, { trigger: 'pre-compaction', thread }, now);
    expect(withThread?.comment.split('\n').slice(0, 4)).toEqual([expect.stringMatching(/^Auto-checkpoint \(pre-compaction\): 5 edits, 2 files, 1 commit in 20 min$/), ...thread]);
    expect(withThread?.comment).toContain('- Files: src/parse.ts, src/lex.ts');
    const onlyThread = checkpointWrite(nothing, { trigger: 'pre-compaction', thread }, now);
    expect(onlyThread?.comment).toMatch(/^Auto-checkpoint \(pre-compaction\): 0 files, 0 commits in 20 min\n- Request: /);
    expect(checkpointWrite(nothing, { trigger: 'pre-compaction', thread: [] }, now)).toBeUndefined();
    expect(withThread?.key).not.toBe(checkpointWrite(activity, { trigger: 'pre-compaction' }, now)?.key);
    expect(checkpointWrite(activity, { trigger: 'pre-compaction', thread: [...thread, '- Files the session changed: parser.py (edited)'] }, now)?.key).not.toBe(withThread?.key);
    expect(checkpointWrite(activity, { trigger: 'pre-compaction', thread }, now + 5000)?.key).toBe(withThread?.key);
  });

  it('is what the extension queues', async () => {
    const ledger = new MemoryLedger();
    ledger.state = recordFileChange(setFocus(ledger.state, 'wf-7', T0), 'wf-7', 'src/parse.ts', T0 + 1000);
    // No CLI: the write stays in the queue, as it was planned.
    const offline = new Outbox({ file: join(dir, 'planned.json'), root: '/p' });
    await checkpointOpen({ trigger: 'pre-compaction' }, { queue: offline, ledger, issueId: 'wf-7', at: now });
    const expected = checkpointWrite(activityOf(ledger.state.ledgers['wf-7']!), { trigger: 'pre-compaction' }, now);
    expect(offline.pending.map((entry) => ({ key: entry.write.key, text: 'text' in entry.write ? entry.write.text : undefined }))).toEqual([{ key: expected?.key, text: expected?.comment }]);
    offline.dispose();
  });
});
