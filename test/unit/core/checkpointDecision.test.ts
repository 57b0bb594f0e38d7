// The pure decision of a checkpoint (src/core/checkpointDecision.ts): from gathered facts alone,
// the issue, the comment and its key, the bindings that end, and where the thread goes.
import { describe, expect, it } from 'vitest';
import type { AgentSession, AgentSessionsState } from '../../../src/core/agentSessions';
import { checkpointWrite, decideCheckpoint, gitReadFrom, gitWorkSince, type CheckpointFacts, type GitRecords } from '../../../src/core/checkpointDecision';
import { emptyLedgerState, recordFileChange, setFocus } from '../../../src/core/ledger';
import { comments, issueDetails } from '../support/fakeIssues';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const iso = (at: number) => new Date(at).toISOString();

function session(fields: Partial<AgentSession> & Pick<AgentSession, 'sessionId'>): AgentSession {
  return { agent: 'claude', named: [], files: {}, commits: [], compactions: 0, startedAt: T0, lastEventAt: NOW - MIN, ...fields };
}

function sessions(...entries: AgentSession[]): AgentSessionsState {
  return { version: 1, sessions: Object.fromEntries(entries.map((entry) => [`${entry.agent}:${entry.sessionId}`, entry])) };
}

/** demo-1 claimed at T0 + 10 min, demo-2 at T0 + 30 min (the newer); each with no checkpoint yet. */
const inProgress = [
  issueDetails('demo-2', { status: 'in_progress', startedAt: iso(T0 + 30 * MIN), updatedAt: iso(T0 + 30 * MIN) }),
  issueDetails('demo-1', { status: 'in_progress', startedAt: iso(T0 + 10 * MIN), updatedAt: iso(T0 + 10 * MIN) }),
];

/** One commit before demo-2's claim and one after; an uncommitted file changed after both claims, one before. */
const git: GitRecords = {
  commits: [
    { hash: 'a'.repeat(40), subject: 'early work', committedAt: T0 + 20 * MIN, files: ['early.ts'] },
    { hash: 'b'.repeat(40), subject: 'late work', committedAt: T0 + 40 * MIN, files: ['late.ts'] },
  ],
  changed: [
    { path: 'edited.ts', modifiedAt: T0 + 50 * MIN },
    { path: 'stale.ts', modifiedAt: T0 + 5 * MIN },
  ],
};

function folderFacts(extra: Partial<CheckpointFacts> = {}): CheckpointFacts {
  return { now: NOW, ask: { trigger: 'pre-compaction', thread: ['- Asked: fix the parser'] }, inProgress, details: inProgress, git, ...extra };
}

describe('decideCheckpoint', () => {
  it("chooses the session's issue, names git's work in that issue's window only, and queues one cumulative comment", () => {
    const identity = { agent: 'claude', sessionId: 'me', transcript: '/t/me.jsonl' };
    // Bound to demo-1 by its claim: demo-1's window (its claim at T0 + 10 min) includes the early commit.
    const state = sessions(session({ sessionId: 'me', transcript: '/t/me.jsonl', claimed: 'demo-1', claimedAt: T0 + 10 * MIN, files: { 'early.ts': T0 + 20 * MIN, 'late.ts': T0 + 40 * MIN, 'edited.ts': T0 + 50 * MIN } }));
    const decision = decideCheckpoint(folderFacts({ session: { identity, state, live: [] } }));
    expect(decision.kind).toBe('write');
    if (decision.kind !== 'write') return;
    expect(decision.issueId).toBe('demo-1');
    expect(decision.endBindings).toBeUndefined();
    expect(decision.enqueue).toMatchObject({ kind: 'comment', issueId: 'demo-1', checkpointAt: NOW, cumulative: true });
    expect(decision.enqueue.key).toMatch(/^auto:demo-1:/);
    expect(decision.enqueue.text).toMatch(/^Auto-checkpoint \(pre-compaction\)/);
    expect(decision.enqueue.text).toContain('early.ts');
    expect(decision.enqueue.text).toContain('edited.ts');
    expect(decision.enqueue.text).not.toContain('stale.ts');
    expect(decision.enqueue.text).toContain('Asked: fix the parser');
    expect(decision.thread).toEqual({ destination: 'beads' });
  });

  it('ends a binding to an issue no longer in progress, as an output for the write step, and chooses by the next rule', () => {
    const identity = { agent: 'claude', sessionId: 'me' };
    const state = sessions(session({ sessionId: 'me', claimed: 'demo-9', claimedAt: T0 }));
    const facts = folderFacts({ session: { identity, state, live: [] } });
    const decision = decideCheckpoint(facts);
    expect(decision).toMatchObject({ kind: 'write', issueId: 'demo-2', endBindings: ['demo-2', 'demo-1'] });
    // Decided from the facts alone: nothing in them changed, and the same facts decide the same.
    expect(facts.session?.state?.sessions['claude:me']?.claimed).toBe('demo-9');
    expect(decideCheckpoint(facts)).toEqual(decision);
  });

  it("takes no issue another live session holds, and says which; the ended binding still ends", () => {
    const identity = { agent: 'claude', sessionId: 'me' };
    const state = sessions(session({ sessionId: 'me', claimed: 'demo-9' }));
    const live = [
      { agent: 'codex', sessionId: 'other', bindings: [{ issueId: 'demo-1', since: T0 }], lastActive: NOW - MIN },
      { agent: 'gemini', sessionId: 'third', bindings: [{ issueId: 'demo-2', since: T0 }], lastActive: NOW - MIN },
    ];
    const decision = decideCheckpoint(folderFacts({ session: { identity, state, live } }));
    expect(decision.kind).toBe('no-issue');
    if (decision.kind !== 'no-issue') return;
    expect(decision.reason).toContain('held by another live session: demo-2 (gemini), demo-1 (codex)');
    expect(decision.endBindings).toEqual(['demo-2', 'demo-1']);
  });

  it('with nothing in progress and none asked for, decides no issue', () => {
    expect(decideCheckpoint(folderFacts({ inProgress: [], details: [] }))).toEqual({ kind: 'no-issue', reason: 'no issue is in progress; no checkpoint written.' });
  });

  it("on a project VS Code keeps open (no details read), counts the ledger's activity alone", () => {
    let ledger = recordFileChange(emptyLedgerState(), 'demo-1', 'src/a.ts', T0 + MIN);
    ledger = setFocus(ledger, 'demo-1', T0);
    const decision = decideCheckpoint({ now: NOW, ask: { message: 'parser half done' }, issueId: 'demo-1', ledger });
    expect(decision.kind).toBe('write');
    if (decision.kind !== 'write') return;
    expect(decision.enqueue).toEqual({ ...checkpointWritten('demo-1', 'parser half done', ['src/a.ts']), checkpointAt: NOW });
    expect(decision.enqueue.cumulative).toBeUndefined();
  });

  it('an automatic checkpoint with nothing new since the last one decides nothing new, with that time', () => {
    const since = T0 + 55 * MIN;
    const quiet = [issueDetails('demo-1', { status: 'in_progress', comments: comments([{ text: 'Checkpoint: earlier', createdAt: iso(since) }]) })];
    const decision = decideCheckpoint({ now: NOW, ask: { trigger: 'agent-hook' }, issueId: 'demo-1', details: quiet, git: { commits: [], changed: [] } });
    expect(decision).toEqual({ kind: 'nothing-new', issueId: 'demo-1', lastCheckpointAt: since, thread: { destination: 'beads' } });
  });

  it("with the thread kept on this machine, beads' comment leaves the thread out and the full one keeps it", () => {
    const decision = decideCheckpoint(folderFacts({ issueId: 'demo-1', threadDestination: 'local' }));
    expect(decision.kind).toBe('write');
    if (decision.kind !== 'write' || decision.thread.destination !== 'local') throw new Error(JSON.stringify(decision));
    expect(decision.enqueue.text).not.toContain('Asked: fix the parser');
    expect(decision.thread.full?.comment).toContain('Asked: fix the parser');
  });
});

describe('what git is read for', () => {
  it('from the earliest window among the issues the decision may choose; the one asked for alone when given', () => {
    expect(gitReadFrom(folderFacts())).toBe(T0 + 10 * MIN);
    expect(gitReadFrom(folderFacts({ issueId: 'demo-2' }))).toBe(T0 + 30 * MIN);
    expect(gitReadFrom({ now: NOW, inProgress: [] })).toBeUndefined();
  });

  it("takes a commit after the window (git's whole seconds at the window's own second left out) and files changed after it", () => {
    expect(gitWorkSince(git, T0 + 30 * MIN)).toEqual({ files: ['late.ts', 'edited.ts'], commits: [{ hash: 'b'.repeat(40), subject: 'late work' }] });
    expect(gitWorkSince(git, T0 + 40 * MIN).commits).toEqual([]);
    expect(gitWorkSince({ commits: [], changed: [{ path: 'deleted.ts' }] }, NOW).files).toEqual(['deleted.ts']);
  });
});

/** What checkpointWrite plans for typed words, as the comment the decision queues. */
function checkpointWritten(issueId: string, message: string, files: string[]) {
  const planned = checkpointWrite({ issueId, files, commits: [] }, { message }, NOW);
  return { key: planned.key, kind: 'comment', issueId, text: planned.comment, sameWithinMs: planned.sameWithinMs };
}
