import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../../src/beads/errors';
import type { LastClose } from '../../../src/core/next';
import { buildRecoveryContext } from '../../../src/core/recovery';
import { buildSidebarModel } from '../../../src/core/viewModel';
import { closeObstaclesFor, closeWithFiles, filesOfCommits, writeNowOrQueue, WorkRefusedError } from '../../../src/services/closeFlow';
import { Outbox } from '../../../src/services/outbox';
import { FakeBackend } from '../support/fakeBackend';
import { comments as numbered, issueDetails } from '../support/fakeIssues';

const ROOT = '/project';

/**
 * A beads of five issues: demo-1 (in progress) blocks demo-2 and, with demo-4, demo-3; demo-5 is
 * open and unblocked. Every write is logged in order, with a script of failures.
 */
function fiveIssues(): FakeBackend {
  const beads = new FakeBackend([], { root: ROOT });
  const add = (id: string, status: string, texts: string[] = []) =>
    beads.add(issueDetails(id, { status, comments: numbered(texts.map((text) => ({ text, createdAt: '2026-01-01T01:00:00Z' })), 'a') }));
  add('demo-1', 'in_progress', ['Auto-checkpoint (issue switch): 2 edits, 1 file, 0 commits\n- Files: src/old.ts']);
  add('demo-2', 'open');
  add('demo-3', 'open');
  add('demo-4', 'open');
  add('demo-5', 'open');
  beads.block('demo-1', 'demo-2');
  beads.block('demo-1', 'demo-3');
  beads.block('demo-4', 'demo-3');
  return beads;
}

const locked = () => new CliError({ kind: 'exit', command: 'br', args: [], exitCode: 2, cliMessage: 'database is locked' });

let dir: string;
let outbox: Outbox;
let beads: FakeBackend;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'close-'));
  beads = fiveIssues();
  outbox = new Outbox({ file: join(dir, 'outbox.json'), root: ROOT, backend: beads, policy: { baseMs: 60_000, maxMs: 60_000, unexplainedMaxMs: 60_000 } });
});

afterEach(() => {
  outbox.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function close(overrides: Partial<Parameters<typeof closeWithFiles>[0]> = {}) {
  return closeWithFiles({
    backend: beads,
    queue: outbox,
    issueId: 'demo-1',
    reason: 'Verified: parser works',
    cli: 'br',
    ledgerFiles: ['src/parser.ts'],
    // A commit that also carried beads' own files and an agent's settings: those are not the issue's work.
    commitFiles: async (hashes) => (hashes.includes('a1b2c3d') ? ['src/tokenizer.ts', '.beads/.gitignore', '.beads/issues.jsonl', '.claude/settings.local.json'] : []),
    flushTimeoutMs: 1_000,
    now: Date.parse('2026-03-01T12:00:00Z'),
    ...overrides,
  });
}

describe('closeWithFiles', () => {
  it('lands queued writes, then closes, then writes the file list; and offers what that unblocked', async () => {
    beads.issues.get('demo-1')?.comments.push({ id: 'c', author: 'a', text: 'commit: a1b2c3d feat: tokenizer', createdAt: '2026-01-01T02:00:00Z' });
    await outbox.enqueue({ key: 'commit:ffff', kind: 'comment', issueId: 'demo-1', text: 'commit: ffff000 fix: last one' });
    const outcome = await close({ onClosed: async () => void beads.log.push('counters reset') });

    const writes = beads.log.filter((entry) => !entry.startsWith('show') && entry !== 'ready');
    expect(writes).toEqual([
      'comment demo-1: commit: ffff000 fix: last one',
      'close demo-1: Verified: parser works',
      'counters reset',
      'comment demo-1: Files modified: src/old.ts, src/parser.ts',
    ]);
    expect(outcome.state).toBe('closed');
    // The files recorded while the issue was in progress; not every path its commits carried.
    expect(outcome.filesComment).toBe('Files modified: src/old.ts, src/parser.ts');
    // demo-2 had only demo-1 as blocker; demo-3 is still blocked by demo-4.
    expect(outcome.unblocked.map((issue) => issue.id)).toEqual(['demo-2']);
    expect(outcome.ready.map((item) => item.issue.id)).toEqual(['demo-2', 'demo-4', 'demo-5']);
    expect(outcome.ready.find((item) => item.issue.id === 'demo-4')?.unblocks.map((issue) => issue.id)).toEqual(['demo-3']);
    expect(outcome.continuePrompt).toContain('## Closed: demo-1');
    expect(outcome.continuePrompt).toMatch(/\*\*Unblocked:\*\* .*demo-2/);
    // The prompt, the notification and the sidebar name the same next issue: the one just unblocked.
    expect(outcome.next).toEqual({ issue: expect.objectContaining({ id: 'demo-2' }), reason: 'unblocked' });
    expect(outcome.continuePrompt).toContain('**Next:** demo-2 — Issue demo-2 (just unblocked). Claim it with `br update --claim -- demo-2`');
  });

  it('names the commits the ledger still holds in a checkpoint that lands before the close', async () => {
    const checkpoint = 'Auto-checkpoint (before close): 0 files, 1 commit\n- Commits: c0ffee1 feat: last one';
    let asked = 0;
    await close({
      ledgerCommits: ['c0ffee1'.padEnd(40, '0')],
      checkpointCommits: async () => {
        asked += 1;
        await outbox.enqueue({ key: 'auto:demo-1:x', kind: 'comment', issueId: 'demo-1', text: checkpoint });
      },
    });
    const writes = beads.log.filter((entry) => !entry.startsWith('show') && entry !== 'ready');
    expect(writes).toEqual([`comment demo-1: ${checkpoint}`, 'close demo-1: Verified: parser works', 'comment demo-1: Files modified: src/old.ts, src/parser.ts']);
    expect(asked).toBe(1);
  });

  it('asks for no checkpoint when the ledger holds no commit', async () => {
    let asked = 0;
    await close({ ledgerCommits: [], checkpointCommits: async () => void (asked += 1) });
    expect(asked).toBe(0);
    expect(beads.log.filter((entry) => entry.startsWith('comment'))).toEqual(['comment demo-1: Files modified: src/old.ts, src/parser.ts']);
  });

  it('lists the files of linked commits only when neither the ledger nor a checkpoint recorded any', async () => {
    beads.issues.get('demo-1')!.comments = [
      { id: 'c', author: 'a', text: 'Checkpoint: tokenizer done\n- Commits: a1b2c3d feat: tokenizer; 0123abc fix: typo', createdAt: '2026-01-01T02:00:00Z' },
    ];
    const asked: string[][] = [];
    const outcome = await close({
      ledgerFiles: [],
      ledgerCommits: ['beefcafe'.padEnd(40, '0')],
      commitFiles: async (hashes) => {
        asked.push([...hashes]);
        return ['src/tokenizer.ts', '.beads/.gitignore', '.claude/settings.local.json'];
      },
    });
    expect(asked).toEqual([['a1b2c3d', '0123abc', 'beefcafe'.padEnd(40, '0')]]);
    expect(outcome.filesComment).toBe('Files modified: src/tokenizer.ts');
  });

  it('writes no file list when there are no files', async () => {
    beads.issues.get('demo-1')!.comments = [];
    const outcome = await close({ ledgerFiles: [] });
    expect(outcome.filesComment).toBeUndefined();
    expect(beads.log.filter((entry) => entry.startsWith('comment'))).toEqual([]);
    expect(outcome.state).toBe('closed');
  });

  it('queues the file list behind the close when beads is locked, and both land once, in order', async () => {
    beads.failures = [locked()];
    let reset = false;
    const outcome = await close({ flushTimeoutMs: 200, onClosed: async () => void (reset = true) });
    expect(outcome.state).toBe('queued');
    expect(outcome.why).toMatch(/locked/);
    expect(reset).toBe(false);
    expect(beads.issues.get('demo-1')?.status).toBe('in_progress');
    expect(outbox.pending.map((entry) => entry.write.kind)).toEqual(['close', 'comment']);

    // The close's retry is due after the outbox's backoff; a person's Retry makes it due now.
    await outbox.retryNow();
    await outbox.drain(AbortSignal.timeout(2_000));
    const writes = beads.log.filter((entry) => !entry.startsWith('show') && entry !== 'ready');
    expect(writes).toEqual([
      'FAILED close demo-1',
      'close demo-1: Verified: parser works',
      'comment demo-1: Files modified: src/old.ts, src/parser.ts',
    ]);
    expect(outbox.pendingCount).toBe(0);
  });

  it('queues the close itself when only the close meets a locked database', async () => {
    beads.issues.get('demo-1')!.comments = [];
    beads.failures = [locked()];
    const outcome = await close({ ledgerFiles: [] });
    expect(outcome.state).toBe('queued');
    expect(outbox.pending.map((entry) => entry.write.kind)).toEqual(['close']);
  });

  it('refuses clearly: unknown issue, already closed, read-only', async () => {
    await expect(close({ issueId: 'demo-404' })).rejects.toThrow(/demo-404 was not found/);
    beads.issues.get('demo-5')!.status = 'closed';
    await expect(close({ issueId: 'demo-5' })).rejects.toThrow(/already closed/);
    const readOnly = Object.assign(Object.create(beads) as FakeBackend, { readOnly: true });
    await expect(close({ backend: readOnly })).rejects.toBeInstanceOf(WorkRefusedError);
  });

  it('gives the CLI own words when it refuses the close (open blockers), and queues nothing', async () => {
    beads.issues.get('demo-1')!.comments = [];
    beads.failures = [new CliError({ kind: 'exit', command: 'br', args: ['close'], exitCode: 5, cliMessage: 'Cannot close demo-1: it has open blockers' })];
    await expect(close({ ledgerFiles: [] })).rejects.toThrow(/open blockers/);
    expect(outbox.pendingCount).toBe(0);
  });

  it('on a refusal writes no file list, leaves the counters alone and keeps nothing queued', async () => {
    const reason = 'epic has 1/1 open children (use --force to close anyway)';
    beads.failures = [new CliError({ kind: 'refused', command: 'br', args: ['close', '--', 'demo-1'], exitCode: 3, cliMessage: reason })];
    let reset = false;
    const error = await close({ onClosed: async () => void (reset = true) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkRefusedError);
    expect((error as Error).message).toContain(reason);
    expect(beads.log.filter((entry) => entry.startsWith('comment'))).toEqual([]);
    expect(beads.issues.get('demo-1')?.status).toBe('in_progress');
    expect(reset).toBe(false);
    expect(outbox.pendingCount).toBe(0);
    expect(outbox.failedCount).toBe(0);
  });

  it('says what blocks the close before asking the CLI, and stops when the user cancels', async () => {
    const asked: string[] = [];
    const outcome = close({
      issueId: 'demo-3',
      ledgerFiles: [],
      confirmObstacles: async (obstacles) => {
        asked.push(...obstacles.blockers.map((blocker) => blocker.id));
        return false;
      },
    });
    await expect(outcome).rejects.toMatchObject({ kind: 'canceled' });
    expect(asked).toEqual(['demo-1', 'demo-4']);
    expect(beads.log.filter((entry) => !entry.startsWith('show'))).toEqual([]);
  });

  it('closes anyway with --force when the user says so, or when asked to force', async () => {
    const outcome = await close({ issueId: 'demo-3', ledgerFiles: [], confirmObstacles: async () => true });
    expect(outcome.state).toBe('closed');
    expect(beads.log).toContain('close demo-3 --force: Verified: parser works');
    const forced = await close({ issueId: 'demo-2', ledgerFiles: [], force: true, confirmObstacles: async () => expect.fail('not asked') });
    expect(forced.state).toBe('closed');
    expect(beads.log).toContain('close demo-2 --force: Verified: parser works');
  });

  it('reads what stands in the way before anything is asked, and refuses what cannot be closed', async () => {
    expect(await closeObstaclesFor(beads, 'demo-5')).toBeUndefined();
    expect(await closeObstaclesFor(beads, 'demo-2')).toMatchObject({ blockers: [expect.objectContaining({ id: 'demo-1' })] });
    await expect(closeObstaclesFor(beads, 'demo-404')).rejects.toThrow(WorkRefusedError);
    beads.issues.get('demo-4')!.status = 'closed';
    await expect(closeObstaclesFor(beads, 'demo-4')).rejects.toThrow('already closed');
  });

  it('asks nothing when nothing stands in the way', async () => {
    const outcome = await close({ ledgerFiles: [], confirmObstacles: async () => expect.fail('not asked') });
    expect(outcome.state).toBe('closed');
    expect(beads.log).toContain('close demo-1: Verified: parser works');
  });
});

describe('writeNowOrQueue', () => {
  it('claims through the outbox and answers at once when beads answers', async () => {
    expect(await writeNowOrQueue(beads, outbox, { key: 'claim:demo-5:1', kind: 'claim', issueId: 'demo-5' })).toEqual({ state: 'written' });
    expect(beads.issues.get('demo-5')?.status).toBe('in_progress');
    expect(outbox.status('claim:demo-5:1')).toBe('done');
  });

  it('queues a claim that meets a locked database and says so; it lands once later, under the outbox\'s backoff', async () => {
    beads.failures = [locked()];
    const outcome = await writeNowOrQueue(beads, outbox, { key: 'claim:demo-5:1', kind: 'claim', issueId: 'demo-5' });
    expect(outcome).toMatchObject({ state: 'queued' });
    expect(outcome.state === 'queued' && outcome.why).toMatch(/locked/);
    // The one drainer spaces the attempts: nothing is sent again before the retry is due.
    expect(outbox.pending[0]?.nextAttemptAt).toBeGreaterThan(Date.now());
    await outbox.retryNow();
    await outbox.drain(AbortSignal.timeout(2_000));
    expect(beads.log.filter((entry) => entry.includes('claim'))).toEqual(['FAILED claim demo-5', 'claim demo-5']);
  });

  it('throws the CLI\'s refusal and keeps nothing: no parked write, no parked-write notice', async () => {
    const parked: string[] = [];
    outbox.onDidPark((failed) => parked.push(failed.write.key));
    beads.failures = [new CliError({ kind: 'exit', command: 'br', args: [], exitCode: 4, cliMessage: 'validation failed: no such status' })];
    await expect(writeNowOrQueue(beads, outbox, { key: 'claim:demo-5:1', kind: 'claim', issueId: 'demo-5' })).rejects.toThrow(WorkRefusedError);
    expect(outbox.failed).toEqual([]);
    expect(outbox.pending).toEqual([]);
    expect(parked).toEqual([]);
  });

  it('waits behind an earlier write of the same issue that still fails, and says so', async () => {
    // The claim makes the earlier write due at once (it goes first); beads is still locked.
    beads.failures = [locked(), locked()];
    await outbox.enqueue({ key: 'note:demo-5', kind: 'comment', issueId: 'demo-5', text: 'a note' });
    await outbox.sendDue();
    const outcome = await writeNowOrQueue(beads, outbox, { key: 'claim:demo-5:1', kind: 'claim', issueId: 'demo-5' });
    expect(outcome).toMatchObject({ state: 'queued' });
    expect(outcome.state === 'queued' && outcome.why).toMatch(/locked/);
    expect(beads.log.filter((entry) => entry.includes('claim'))).toEqual([]);
  });
});

describe('filesOfCommits', () => {
  let repo: string;
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'close-git-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(join(repo, 'a.ts'), 'a');
    git('add', '.');
    git('commit', '-qm', 'one');
    writeFileSync(join(repo, 'b.ts'), 'b');
    writeFileSync(join(repo, 'c d.ts'), 'c');
    git('add', '.');
    git('commit', '-qm', 'two');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('lists the files of several commits in one process, skipping hashes git does not know', async () => {
    const hashes = execFileSync('git', ['log', '--format=%h'], { cwd: repo, encoding: 'utf8' }).trim().split('\n');
    const files = await filesOfCommits(repo, [...hashes, 'deadbee'], { timeoutMs: 5_000 });
    expect(files.sort()).toEqual(['a.ts', 'b.ts', 'c d.ts']);
  });
});

describe('one "next" after a close, on every surface', () => {
  /** wf-2 (in progress) blocks wf-3 (P2); wf-6 (P1) and wf-4 (P3) are ready; the epic wf-1 (P0) is ready too. */
  function workflow(): FakeBackend {
    const flow = new FakeBackend([], { root: ROOT });
    flow.add(issueDetails('wf-1', { issueType: 'epic', priority: 0, title: 'Workflow epic' }));
    flow.add(issueDetails('wf-2', { status: 'in_progress', title: 'Load widgets.yaml' }));
    flow.add(issueDetails('wf-4', { priority: 3 }));
    flow.add(issueDetails('wf-3', { priority: 2, title: 'Validate widgets' }));
    flow.add(issueDetails('wf-6', { priority: 1, title: 'Faster start-up' }));
    flow.block('wf-2', 'wf-3');
    return flow;
  }

  /** What each surface names as next: the notification, the sidebar's offer, its Ready list (tag and first row), the continue prompt and the recovery context. */
  async function surfaces(flow: FakeBackend, outcome: Awaited<ReturnType<typeof closeWithFiles>>, lastClose: LastClose | undefined) {
    const [inProgress, ready] = await Promise.all([flow.listInProgress(), flow.listReady()]);
    const details = await flow.show([...inProgress, ...ready].map((issue) => issue.id));
    const model = buildSidebarModel({ inProgress: { ok: true, value: inProgress }, ready: { ok: true, value: ready }, details: { ok: true, value: details }, focusedId: inProgress[0]?.id, now: NOW, ...(lastClose ? { lastClose } : {}) });
    const context = buildRecoveryContext({
      now: NOW,
      budget: 4096,
      project: { cli: 'br', readOnly: false },
      inProgress: { ok: true, value: inProgress },
      details: { ok: true, value: details },
      ready: { ok: true, value: ready },
      uncommitted: { ok: true, value: [] },
      ...(lastClose ? { lastClose } : {}),
    });
    const readyRows = model.ready.ok ? model.ready.value.items.map((item) => item.issue.id) : [];
    return {
      notification: outcome.next?.issue.id,
      prompt: /\*\*Next:\*\* (\S+)/.exec(outcome.continuePrompt ?? '')?.[1],
      sidebar: model.next?.item.issue.id,
      offer: model.next?.afterClose ? model.next.item.issue.id : undefined,
      readyFirst: readyRows[0],
      readyRows,
      context: /\*\*Next:\*\* (\S+)/.exec(context.markdown)?.[1],
      contextState: context.state,
    };
  }

  const NOW = Date.parse('2026-03-01T12:00:00Z');

  it('names the issue the close unblocked everywhere, first in Ready; once it is claimed from a terminal it is in progress, not next', async () => {
    const flow = workflow();
    // The outbox sends through its own project's backend.
    outbox.setBackend(flow);
    const outcome = await closeWithFiles({ backend: flow, queue: outbox, issueId: 'wf-2', reason: 'done', cli: 'br', ledgerFiles: [], flushTimeoutMs: 1_000, now: NOW });
    const lastClose: LastClose = { closed: outcome.closed, unblocked: outcome.unblocked.map((issue) => issue.id), inProgressAfter: [] };
    const after = await surfaces(flow, outcome, lastClose);
    expect(after).toMatchObject({ notification: 'wf-3', prompt: 'wf-3', sidebar: 'wf-3', offer: 'wf-3', readyFirst: 'wf-3', context: 'wf-3', contextState: 'none' });
    // The epic takes no row; the rest keep the queue's order.
    expect(after.readyRows).toEqual(['wf-3', 'wf-4', 'wf-6']);

    await flow.claim('wf-3');
    const claimed = await surfaces(flow, outcome, lastClose);
    expect(claimed.offer).toBeUndefined();
    expect(claimed.sidebar).toBe('wf-6');
    expect(claimed.readyFirst).toBe('wf-6');
    expect(claimed.readyRows).not.toContain('wf-3');
    expect(claimed.contextState).toBe('resume');
  });
});
