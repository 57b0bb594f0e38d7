// The sidebar's agent sessions: recorded and on-disk sessions as one list, the live ones only,
// each with its issue (while in progress), last activity and compactions, and the one the status
// bar follows marked.
import { describe, expect, it } from 'vitest';
import { bindIssue, emptyAgentSessions, endSession, handIssue } from '../../../src/core/agentSessions';
import { sessionRows } from '../../../src/core/sessionRows';

const now = Date.parse('2026-11-26T14:00:00Z');
const minutes = (count: number) => now - count * 60_000;

describe('sessionRows', () => {
  let state = bindIssue(emptyAgentSessions(), { agent: 'claude', sessionId: '0f1e2d3c-aaaa-bbbb' }, 'demo-1', minutes(3));
  state = handIssue(state, { agent: 'codex', sessionId: 'codex-one' }, 'demo-2', minutes(10));
  state = handIssue(state, { agent: 'claude', sessionId: 'gone-long-ago' }, 'demo-1', minutes(900));
  const inProgress = [
    { id: 'demo-1', title: 'Parse config' },
    { id: 'demo-2', title: 'Render widgets' },
  ];

  it('lists live sessions, newest first, with their issue, age and compactions; marks the one on the focus', () => {
    const rows = sessionRows({
      recorded: Object.values(state.sessions),
      onDisk: [
        { agent: 'claude', sessionId: '0f1e2d3c-aaaa-bbbb', transcript: '/t/a.jsonl', lastActivityAt: minutes(1), compactions: 2 },
        { agent: 'claude', sessionId: 'disk-only', transcript: '/t/b.jsonl', lastActivityAt: minutes(20), compactions: 0 },
      ],
      inProgress,
      focusedId: 'demo-2',
      now,
      idleMs: 720 * 60_000,
    });
    expect(rows).toEqual([
      { agent: 'Claude Code', session: '0f1e2d3c', sessionId: '0f1e2d3c-aaaa-bbbb', issue: { id: 'demo-1', title: 'Parse config' }, lastActivityAge: expect.any(String), compactions: 2, state: 'working', stateReason: 'its last event was 1m ago', followed: false },
      { agent: 'Codex', session: 'codex-on', sessionId: 'codex-one', issue: { id: 'demo-2', title: 'Render widgets' }, lastActivityAge: expect.any(String), compactions: 0, state: 'idle', stateReason: expect.stringContaining('does not show whether a turn is still running'), followed: true },
      { agent: 'Claude Code', session: 'disk-onl', sessionId: 'disk-only', lastActivityAge: expect.any(String), compactions: 0, state: 'idle', stateReason: expect.any(String), followed: false },
    ]);
  });

  it('an issue no longer in progress is no session’s issue; a transcript path names its session by file name', () => {
    const rows = sessionRows({
      recorded: Object.values(handIssue(emptyAgentSessions(), { agent: 'codex', sessionId: '/home/x/.codex/sessions/rollout-abc.jsonl' }, 'demo-9', minutes(1)).sessions),
      onDisk: [],
      inProgress,
      now,
      idleMs: 60 * 60_000,
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.issue).toBeUndefined();
    expect(rows[0]?.session).toBe('rollout-');
  });

  it("names the window's own session 'this window', another window's by its id", () => {
    const recorded = Object.values(handIssue(handIssue(emptyAgentSessions(), { agent: 'vscode', sessionId: 'someValue.sessionId' }, 'demo-1', minutes(1)), { agent: 'vscode', sessionId: 'b7c1d2e3-f4' }, 'demo-2', minutes(2)).sessions);
    const rows = sessionRows({ recorded, onDisk: [], inProgress, now, idleMs: 60 * 60_000, ownSession: { agent: 'vscode', sessionId: 'someValue.sessionId' } });
    expect(rows.map((row) => row.session)).toEqual(['this window', 'b7c1d2e3']);
  });

  it("the window's own row names the issue it claimed, else the one it records its edits against (its focus)", () => {
    const own = { agent: 'vscode', sessionId: 'someValue.sessionId' };
    // A claim from the view binds the window's session (src/adapters/workCommands.ts).
    const claimed = sessionRows({ recorded: Object.values(bindIssue(emptyAgentSessions(), own, 'demo-2', minutes(1)).sessions), onDisk: [], inProgress, focusedId: 'demo-2', now, idleMs: 60 * 60_000, ownSession: own });
    expect(claimed.map((row) => [row.session, row.issue?.id])).toEqual([['this window', 'demo-2']]);
    // Its claim closed and the focus followed an issue claimed in a terminal: the focus is where its edits go.
    const followed = sessionRows({ recorded: Object.values(bindIssue(emptyAgentSessions(), own, 'demo-7', minutes(1)).sessions), onDisk: [], inProgress, focusedId: 'demo-1', now, idleMs: 60 * 60_000, ownSession: own });
    expect(followed.map((row) => [row.session, row.issue?.id])).toEqual([['this window', 'demo-1']]);
    // Another window's session is never given this window's focus.
    const other = sessionRows({ recorded: Object.values(bindIssue(emptyAgentSessions(), { agent: 'vscode', sessionId: 'b7c1d2e3-f4' }, 'demo-7', minutes(1)).sessions), onDisk: [], inProgress, focusedId: 'demo-1', now, idleMs: 60 * 60_000, ownSession: own });
    expect(other[0]?.issue).toBeUndefined();
  });

  it('says each session’s live state from the facts that decide a live session: working, idle, ended', () => {
    let sessions = bindIssue(emptyAgentSessions(), { agent: 'claude', sessionId: 'busy' }, 'demo-1', minutes(1));
    sessions = bindIssue(sessions, { agent: 'claude', sessionId: 'quiet' }, 'demo-2', minutes(40));
    sessions = endSession(bindIssue(sessions, { agent: 'gemini', sessionId: 'done' }, 'demo-1', minutes(6)), { agent: 'gemini', sessionId: 'done' }, minutes(5));
    const rows = sessionRows({ recorded: Object.values(sessions.sessions), onDisk: [], inProgress, now, idleMs: 720 * 60_000 });
    expect(rows.map((row) => [row.session, row.state])).toEqual([
      ['busy', 'working'],
      ['done', 'ended'],
      ['quiet', 'idle'],
    ]);
    // An agent may write its transcript after its end hook ran: ended is still ended.
    const late = sessionRows({ recorded: Object.values(sessions.sessions), onDisk: [{ agent: 'gemini', sessionId: 'done', transcript: '/t/g.json', lastActivityAt: minutes(0), compactions: 0 }], inProgress, now, idleMs: 720 * 60_000 });
    expect(late.find((row) => row.sessionId === 'done')?.state).toBe('ended');
  });

  it("waits for input when its transcript's last record ends a turn, however recent; says which fact decided each state", () => {
    let sessions = bindIssue(emptyAgentSessions(), { agent: 'claude', sessionId: 'answered' }, 'demo-1', minutes(1));
    sessions = bindIssue(sessions, { agent: 'codex', sessionId: 'long-ago' }, 'demo-2', minutes(40));
    sessions = endSession(sessions, { agent: 'codex', sessionId: 'long-ago' }, minutes(30));
    const onDisk = [
      { agent: 'claude', sessionId: 'answered', transcript: '/t/a.jsonl', lastActivityAt: minutes(0.5), compactions: 0, turnEndedAt: minutes(0.5) },
      { agent: 'codex', sessionId: 'asked-hours-ago', transcript: '/t/r.jsonl', lastActivityAt: minutes(180), compactions: 0, turnEndedAt: minutes(180) },
      { agent: 'codex', sessionId: 'long-ago', transcript: '/t/l.jsonl', lastActivityAt: minutes(30), compactions: 0, turnEndedAt: minutes(30) },
      { agent: 'claude', sessionId: 'mid-turn', transcript: '/t/m.jsonl', lastActivityAt: minutes(10), compactions: 0 },
    ];
    const rows = sessionRows({ recorded: Object.values(sessions.sessions), onDisk, inProgress, now, idleMs: 720 * 60_000 });
    expect(rows.map((row) => [row.sessionId, row.state, row.stateReason])).toEqual([
      ['answered', 'waiting', 'its transcript shows its turn ended just now, with nothing after it'],
      ['mid-turn', 'idle', 'its last event was 10m ago; its transcript does not show whether a turn is still running'],
      // Its end hook ran: ended wins over the turn that ended before it.
      ['long-ago', 'ended', 'its end-of-session hook ran 30m ago'],
      ['asked-hours-ago', 'waiting', 'its transcript shows its turn ended 3h ago, with nothing after it'],
    ]);
  });

  it('tells apart two sessions whose ids share a prefix: each short id grows until it differs', () => {
    let sessions = bindIssue(emptyAgentSessions(), { agent: 'claude', sessionId: '5f0c2a9e-1111-aaaa' }, 'demo-1', minutes(1));
    sessions = bindIssue(sessions, { agent: 'claude', sessionId: '5f0c2a9e-2222-bbbb' }, 'demo-2', minutes(2));
    sessions = bindIssue(sessions, { agent: 'codex', sessionId: '77aa0000-cccc' }, 'demo-1', minutes(3));
    const rows = sessionRows({ recorded: Object.values(sessions.sessions), onDisk: [], inProgress, now, idleMs: 720 * 60_000 });
    expect(rows.map((row) => row.session)).toEqual(['5f0c2a9e-1', '5f0c2a9e-2', '77aa0000']);
  });
});
