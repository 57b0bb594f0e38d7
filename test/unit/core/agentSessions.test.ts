// The sessions of a work tree from their own events: which issue each one's commands name (in
// bd's and br's syntax), the files and commits that are its work, how bindings end, and what a
// checkpoint of one session may name.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/agentEvents';
import {
  withSessionSettings,
  attributeWork,
  bindingsOf,
  bindIssue,
  emptyAgentSessions,
  endBindings,
  endSession,
  liveSessionsOf,
  handedRuleOf,
  handIssue,
  normalizeAgentSessions,
  observeSessionEvents,
  othersWork,
  ownWork,
  pruneSessions,
  sessionKey,
  sessionOfHook,
  workTreePath,
} from '../../../src/core/agentSessions';

const ROOT = '/home/dev/tree';
const one = { agent: 'claude', sessionId: 's-1', transcript: '/t/s-1.jsonl' };
const two = { agent: 'claude', sessionId: 's-2' };

let clock = 1_000;
function call(command: string | undefined, files: string[] = [], output = '', isError = false): AgentEvent[] {
  clock += 1_000;
  const id = `call-${clock}`;
  return [
    { type: 'tool-call', at: clock, id, name: command ? 'Bash' : 'Edit', command, files: files.map((path) => ({ path, change: 'edited' as const })) },
    { type: 'tool-result', at: clock + 1, id, isError, exitCode: command ? (isError ? 1 : 0) : undefined, output },
  ];
}

describe('observeSessionEvents', () => {
  it('records the claim, the files (relative to the work tree) and the commits of its own successful calls', () => {
    const events = [
      ...call('br update demo-1 --claim'),
      ...call(undefined, [`${ROOT}/src/a.ts`, 'src/b.ts', '/elsewhere/c.ts', `${ROOT}/../x.ts`]),
      ...call('git add -A && git commit -m "Parse widgets"', [], '[main 1a2b3c4] Parse widgets\n 1 file changed'),
      ...call('br update demo-2 --claim', [], 'issue demo-2 already assigned to bob', true),
    ];
    const state = observeSessionEvents(emptyAgentSessions(), one, events, ROOT, 50_000);
    const session = state.sessions[sessionKey(one)];
    expect(session?.claimed).toBe('demo-1');
    expect(Object.keys(session?.files ?? {}).sort()).toEqual(['src/a.ts', 'src/b.ts']);
    expect(session?.commits.map((commit) => [commit.hash, commit.subject])).toEqual([['1a2b3c4', 'Parse widgets']]);
    expect(session?.transcript).toBe('/t/s-1.jsonl');
  });

  it('reading the same transcript again changes nothing; a later entry is counted once', () => {
    const events: AgentEvent[] = [...call('br update demo-1 --claim'), { type: 'compaction', at: (clock += 1_000) }];
    const once = observeSessionEvents(emptyAgentSessions(), one, events, ROOT, 60_000);
    const twice = observeSessionEvents(once, one, events, ROOT, 60_000);
    expect(twice).toEqual(once);
    expect(twice.sessions[sessionKey(one)]?.compactions).toBe(1);
    const more = observeSessionEvents(twice, one, [...events, { type: 'compaction', at: (clock += 1_000) }], ROOT, 61_000);
    expect(more.sessions[sessionKey(one)]?.compactions).toBe(2);
  });

  it('a claim of another issue ends the one before; a close or release ends its binding; a comment binds only below a claim', () => {
    let state = observeSessionEvents(emptyAgentSessions(), one, [...call('br update demo-1 --claim'), ...call('br comments add demo-5 "note"')], ROOT, 1);
    expect(bindingsOf(state.sessions[sessionKey(one)])).toEqual(['demo-1', 'demo-5']);
    state = observeSessionEvents(state, one, call('bd update demo-2 --status in_progress'), ROOT, 2);
    expect(state.sessions[sessionKey(one)]?.claimed).toBe('demo-2');
    state = observeSessionEvents(state, one, call('bd close demo-2 --reason done'), ROOT, 3);
    expect(bindingsOf(state.sessions[sessionKey(one)])).toEqual(['demo-5']);
    state = observeSessionEvents(state, one, call('br update demo-5 --status open'), ROOT, 4);
    expect(bindingsOf(state.sessions[sessionKey(one)])).toEqual([]);
  });

  it('what a context handed is the weakest binding, and a claim replaces it; VS Code focus binds as a claim', () => {
    let state = handIssue(emptyAgentSessions(), one, 'demo-7', 1);
    expect(bindingsOf(state.sessions[sessionKey(one)])).toEqual(['demo-7']);
    state = observeSessionEvents(state, one, call('br update demo-1 --claim'), ROOT, 2);
    expect(bindingsOf(state.sessions[sessionKey(one)])).toEqual(['demo-1']);
    state = bindIssue(state, { agent: 'vscode', sessionId: 'window' }, 'demo-3', 3);
    expect(bindingsOf(state.sessions['vscode:window'])).toEqual(['demo-3']);
  });
});

describe('release', () => {
  it('bindings to issues no longer in progress end, for every session', () => {
    let state = handIssue(emptyAgentSessions(), one, 'demo-1', 1);
    state = bindIssue(state, two, 'demo-2', 1);
    const ended = endBindings(state, ['demo-2']);
    expect(bindingsOf(ended.sessions[sessionKey(one)])).toEqual([]);
    expect(bindingsOf(ended.sessions[sessionKey(two)])).toEqual(['demo-2']);
    expect(endBindings(ended, ['demo-2'])).toBe(ended);
  });

  it('a session silent past the idle time is gone, with its work', () => {
    let state = handIssue(emptyAgentSessions(), one, 'demo-1', 1_000);
    state = handIssue(state, two, 'demo-2', 5_000);
    const pruned = pruneSessions(state, 10_000, 6_000);
    expect(Object.keys(pruned.sessions)).toEqual([sessionKey(two)]);
    expect(pruneSessions(pruned, 10_000, 6_000)).toBe(pruned);
  });
});

describe('attribution', () => {
  const state = [
    observeSessionEvents(emptyAgentSessions(), one, [...call(undefined, ['a.ts']), ...call('git commit -m A', [], '[main aaaaaaa] A')], ROOT, 1),
  ].map((first) => observeSessionEvents(first, two, [...call(undefined, ['b.ts']), ...call('git commit -am B', [], '[main bbbbbbb] B')], ROOT, 2))[0]!;
  const folder = { files: ['a.ts', 'b.ts', 'c.ts'], commits: [{ hash: 'aaaaaaa1111', subject: 'A' }, { hash: 'bbbbbbb2222', subject: 'B' }, { hash: 'ccccccc3333', subject: 'C' }] };

  it("a session's checkpoint names its own work and, on the folder's focus, what no session claims — never another session's", () => {
    const own = ownWork(state.sessions[sessionKey(one)], undefined);
    const others = othersWork(state, one, undefined);
    expect(attributeWork({ own, folder, others, includeUnclaimed: false })).toEqual({ files: ['a.ts'], commits: [{ hash: 'aaaaaaa', subject: 'A' }], alsoChanged: [] });
    expect(attributeWork({ own, folder, others, includeUnclaimed: true })).toEqual({
      files: ['a.ts', 'c.ts'],
      commits: [{ hash: 'aaaaaaa', subject: 'A' }, { hash: 'ccccccc3333', subject: 'C' }],
      alsoChanged: [],
    });
  });

  it("names what no session's events show apart when the session's own events are known, on the folder's focus too", () => {
    const own = ownWork(state.sessions[sessionKey(one)], undefined);
    const others = othersWork(state, one, undefined);
    for (const includeUnclaimed of [false, true]) {
      const work = attributeWork({ own, folder, others, includeUnclaimed, unclaimedApart: true });
      expect(work.files).toEqual(['a.ts']);
      expect(work.alsoChanged).toEqual(['c.ts']);
    }
  });

  it('only work after the last checkpoint counts', () => {
    const session = state.sessions[sessionKey(one)];
    expect(ownWork(session, Number.MAX_SAFE_INTEGER)).toEqual({ files: [], commits: [] });
  });
});

describe('the file and the hook input', () => {
  it('keeps every session that reads and drops the rest, saying so', () => {
    const good = handIssue(emptyAgentSessions(), one, 'demo-1', 1);
    const problems: string[] = [];
    const read = normalizeAgentSessions({ ...good, idleMinutes: 30, sessions: { ...good.sessions, 'x:y': { agent: 'x' } } }, problems);
    expect(read.sessions).toEqual(good.sessions);
    expect(read.idleMinutes).toBe(30);
    expect(problems).toHaveLength(1);
    expect(normalizeAgentSessions('garbage').sessions).toEqual({});
  });

  it("keeps VS Code's settings for the hooks: the idle time and where the thread goes, a destination it does not know dropped", () => {
    const written = withSessionSettings(emptyAgentSessions(), { idleMinutes: 60, threadDestination: 'local' });
    expect(normalizeAgentSessions(JSON.parse(JSON.stringify(written)))).toMatchObject({ idleMinutes: 60, threadDestination: 'local' });
    expect(withSessionSettings(written, { idleMinutes: 60, threadDestination: 'local' })).toBe(written);
    expect(withSessionSettings(written, { idleMinutes: 60, threadDestination: 'off' }).threadDestination).toBe('off');
    expect(normalizeAgentSessions({ ...written, threadDestination: 'elsewhere' }).threadDestination).toBeUndefined();
  });

  it('a hook names its session by id, else by transcript', () => {
    expect(sessionOfHook('claude', { session: 'abc', transcript: '/t.jsonl' })).toEqual({ agent: 'claude', sessionId: 'abc', transcript: '/t.jsonl' });
    expect(sessionOfHook('codex', { transcript: '/t.jsonl' })).toEqual({ agent: 'codex', sessionId: '/t.jsonl', transcript: '/t.jsonl' });
    expect(sessionOfHook('codex', {})).toBeUndefined();
  });

  it('work-tree paths: relative as given, absolute inside the tree, nothing outside it', () => {
    expect(workTreePath('./src/a.ts', ROOT)).toBe('src/a.ts');
    expect(workTreePath(`${ROOT}/src/a.ts`, `${ROOT}/`)).toBe('src/a.ts');
    expect(workTreePath('C:\\w\\src\\a.ts', 'C:\\w')).toBe('src/a.ts');
    expect(workTreePath('/elsewhere/a.ts', ROOT)).toBeUndefined();
    expect(workTreePath('../a.ts', ROOT)).toBeUndefined();
  });
});

describe('handed bindings', () => {
  it('remember the rule until the session claims or closes the issue', () => {
    let state = handIssue(emptyAgentSessions(), one, 'demo-7', 1, 'actor');
    expect(handedRuleOf(state.sessions[sessionKey(one)], 'demo-7')).toBe('actor');
    state = observeSessionEvents(state, one, call('br update demo-7 --claim'), ROOT, 2);
    expect(handedRuleOf(state.sessions[sessionKey(one)], 'demo-7')).toBeUndefined();
  });
});

describe('live sessions (issue 30)', () => {
  const MINUTE = 60_000;

  it('a session is live until its end hook runs or it is silent past the live limit, and holds what it claimed since its claim', () => {
    let state = observeSessionEvents(emptyAgentSessions(), one, call('br update demo-7 --claim'), ROOT, clock);
    const claimedAt = clock;
    state = observeSessionEvents(state, two, call('br comments add demo-8 "Done: x"'), ROOT, clock + 10);
    const now = clock + 20;
    expect(liveSessionsOf(state, undefined, now, 30 * MINUTE)).toEqual([
      { agent: 'claude', sessionId: 's-1', bindings: [{ issueId: 'demo-7', since: claimedAt }], lastActive: state.sessions[sessionKey(one)]?.lastEventAt },
      { agent: 'claude', sessionId: 's-2', bindings: [{ issueId: 'demo-8', since: state.sessions[sessionKey(two)]?.startedAt }], lastActive: state.sessions[sessionKey(two)]?.lastEventAt },
    ]);
    // Not itself; not past the live limit; not once ended.
    expect(liveSessionsOf(state, one, now, 30 * MINUTE).map((entry) => entry.sessionId)).toEqual(['s-2']);
    expect(liveSessionsOf(state, undefined, now + 31 * MINUTE, 30 * MINUTE)).toEqual([]);
    // The transcript's last write counts as activity.
    expect(liveSessionsOf(state, undefined, now + 31 * MINUTE, 30 * MINUTE, (session) => (session.sessionId === 's-1' ? now + 30 * MINUTE : undefined)).map((entry) => entry.sessionId)).toEqual(['s-1']);
    const ended = endSession(state, one, now);
    expect(liveSessionsOf(ended, undefined, now, 30 * MINUTE).map((entry) => entry.sessionId)).toEqual(['s-2']);
    // A resume is an event of its own: live again, still bound.
    const resumed = observeSessionEvents(ended, one, [], ROOT, now + 1);
    expect(liveSessionsOf(resumed, undefined, now + 2, 30 * MINUTE).map((entry) => entry.sessionId)).toEqual(['s-1', 's-2']);
  });

  it('an issue a context only handed a session is no hold: another session may be handed it too', () => {
    const state = handIssue(emptyAgentSessions(), two, 'demo-8', 5);
    expect(liveSessionsOf(state, undefined, 6, MINUTE)).toEqual([]);
  });

  it("VS Code's window holds nothing: its focus is the focus rule's", () => {
    const state = bindIssue(emptyAgentSessions(), { agent: 'vscode', sessionId: 'w' }, 'demo-7', 1);
    expect(liveSessionsOf(state, undefined, 2, MINUTE)).toEqual([]);
  });

  it('the end and the times of claims and hand-overs survive the file', () => {
    let state = observeSessionEvents(emptyAgentSessions(), one, call('br update demo-7 --claim'), ROOT, clock);
    state = endSession(handIssue(state, two, 'demo-8', 5), two, 6);
    const read = normalizeAgentSessions(JSON.parse(JSON.stringify(state)));
    expect(read.sessions[sessionKey(two)]).toMatchObject({ handed: 'demo-8', handedAt: 5, endedAt: 6 });
    expect(read.sessions[sessionKey(one)]?.claimedAt).toBe(state.sessions[sessionKey(one)]?.claimedAt);
  });
});
