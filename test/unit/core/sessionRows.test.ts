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
      { agent: 'Claude Code', session: '0f1e2d3c', sessionId: '0f1e2d3c-aaaa-bbbb', issue: { id: 'demo-1', title: 'Parse config' }, lastActivityAge: expect.any(String), compactions: 2, state: 'working', followed: false },
      { agent: 'Codex', session: 'codex-on', sessionId: 'codex-one', issue: { id: 'demo-2', title: 'Render widgets' }, lastActivityAge: expect.any(String), compactions: 0, state: 'idle', followed: true },
      { agent: 'Claude Code', session: 'disk-onl', sessionId: 'disk-only', lastActivityAge: expect.any(String), compactions: 0, state: 'idle', followed: false },
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

  it('tells apart two sessions whose ids share a prefix: each short id grows until it differs', () => {
    let sessions = bindIssue(emptyAgentSessions(), { agent: 'claude', sessionId: '5f0c2a9e-1111-aaaa' }, 'demo-1', minutes(1));
    sessions = bindIssue(sessions, { agent: 'claude', sessionId: '5f0c2a9e-2222-bbbb' }, 'demo-2', minutes(2));
    sessions = bindIssue(sessions, { agent: 'codex', sessionId: '77aa0000-cccc' }, 'demo-1', minutes(3));
    const rows = sessionRows({ recorded: Object.values(sessions.sessions), onDisk: [], inProgress, now, idleMs: 720 * 60_000 });
    expect(rows.map((row) => row.session)).toEqual(['5f0c2a9e-1', '5f0c2a9e-2', '77aa0000']);
  });
});
