// Which issue is this session's: the order (binding, actor, focus, newest), the actor chain of
// each CLI, and the line the context says when the binding did not choose.
import { describe, expect, it } from 'vitest';
import { chooseSessionIssue, describeSessionIssueChoice, isExplicitActor, resolveActor, type Actor } from '../../../src/core/sessionIssue';

const issue = (id: string, updatedAt: string, assignee?: string) => ({ id, updatedAt, assignee });
// b-2 is the newest, then c-3, then a-1.
const town = [issue('a-1', '2026-11-26T10:00:00Z', 'alice'), issue('b-2', '2026-11-26T12:00:00Z', 'bob'), issue('c-3', '2026-11-26T11:00:00Z', 'carol')];
const alice: Actor = { name: 'alice', source: 'BEADS_ACTOR' };

describe('resolveActor', () => {
  const env = { BEADS_ACTOR: 'beads-actor', BD_ACTOR: 'bd-actor', USER: 'login' };

  it('bd: --actor, then BEADS_ACTOR, BD_ACTOR, config, git user.name, USER', () => {
    const facts = { dialect: 'bd' as const, flag: 'flagged', env, config: 'configured', gitUserName: 'Git Name' };
    expect(resolveActor(facts)).toEqual({ name: 'flagged', source: 'flag' });
    expect(resolveActor({ ...facts, flag: undefined })).toEqual({ name: 'beads-actor', source: 'BEADS_ACTOR' });
    expect(resolveActor({ ...facts, flag: undefined, env: { ...env, BEADS_ACTOR: undefined } })).toEqual({ name: 'bd-actor', source: 'BD_ACTOR' });
    expect(resolveActor({ ...facts, flag: undefined, env: { USER: 'login' } })).toEqual({ name: 'configured', source: 'config' });
    expect(resolveActor({ ...facts, flag: undefined, env: { USER: 'login' }, config: undefined })).toEqual({ name: 'Git Name', source: 'git' });
    expect(resolveActor({ dialect: 'bd', env: { USER: 'login' } })).toEqual({ name: 'login', source: 'USER' });
  });

  it('br: --actor, then BD_ACTOR, config, USER; never BEADS_ACTOR nor git (its claims do not read them)', () => {
    const facts = { dialect: 'br' as const, env, config: 'configured', gitUserName: 'Git Name' };
    expect(resolveActor({ ...facts, flag: 'flagged' })).toEqual({ name: 'flagged', source: 'flag' });
    expect(resolveActor(facts)).toEqual({ name: 'bd-actor', source: 'BD_ACTOR' });
    expect(resolveActor({ ...facts, env: { BEADS_ACTOR: 'beads-actor', USER: 'login' } })).toEqual({ name: 'configured', source: 'config' });
    expect(resolveActor({ ...facts, env: { BEADS_ACTOR: 'beads-actor', USER: 'login' }, config: undefined })).toEqual({ name: 'login', source: 'USER' });
  });

  it('blank values are skipped, names are trimmed, and nothing gives undefined', () => {
    expect(resolveActor({ dialect: 'bd', flag: '  ', env: { BEADS_ACTOR: ' alice ' } })).toEqual({ name: 'alice', source: 'BEADS_ACTOR' });
    expect(resolveActor({ dialect: 'br', env: {} })).toBeUndefined();
  });

  it('only a flag, the environment or the config are set on purpose', () => {
    expect(isExplicitActor({ name: 'x', source: 'BD_ACTOR' })).toBe(true);
    expect(isExplicitActor({ name: 'x', source: 'config' })).toBe(true);
    expect(isExplicitActor({ name: 'x', source: 'git' })).toBe(false);
    expect(isExplicitActor({ name: 'x', source: 'USER' })).toBe(false);
    expect(isExplicitActor(undefined)).toBe(false);
  });
});

describe('chooseSessionIssue', () => {
  it('1. the session binding wins over the actor, the focus and a newer issue', () => {
    const choice = chooseSessionIssue({ inProgress: town, binding: 'c-3', actor: alice, focusedId: 'a-1' });
    expect(choice).toMatchObject({ issueId: 'c-3', rule: 'binding', bindingEnded: false });
    expect(describeSessionIssueChoice(choice)).toBeUndefined();
  });

  it('a binding whose issue is no longer in progress ends, and the next rule chooses', () => {
    const choice = chooseSessionIssue({ inProgress: town, binding: 'z-9', actor: alice });
    expect(choice).toMatchObject({ issueId: 'a-1', rule: 'actor', bindingEnded: true });
  });

  it('2. the actor: the issue assigned to it, over the focus and a newer issue', () => {
    for (const name of ['alice', 'bob', 'carol']) {
      const choice = chooseSessionIssue({ inProgress: town, actor: { name, source: 'BD_ACTOR' }, focusedId: 'c-3' });
      expect(choice.issueId).toBe(town.find((candidate) => candidate.assignee === name)?.id);
      expect(choice.rule).toBe('actor');
    }
  });

  it('several issues of the actor: the focus among them, else the newest of them', () => {
    const mine = [issue('a-1', '2026-11-26T10:00:00Z', 'alice'), issue('a-2', '2026-11-26T09:00:00Z', 'alice'), issue('b-2', '2026-11-26T12:00:00Z', 'bob')];
    expect(chooseSessionIssue({ inProgress: mine, actor: alice, focusedId: 'a-2' }).issueId).toBe('a-2');
    expect(chooseSessionIssue({ inProgress: mine, actor: alice, focusedId: 'b-2' }).issueId).toBe('a-1');
  });

  it('3. the focus, when no binding and nothing assigned to the actor', () => {
    const choice = chooseSessionIssue({ inProgress: town, actor: { name: 'login', source: 'USER' }, focusedId: 'a-1' });
    expect(choice).toMatchObject({ issueId: 'a-1', rule: 'focus' });
    expect(describeSessionIssueChoice(choice)).toBe("VS Code's focus for this folder; no claim by this session is recorded");
  });

  it('4. the most recently updated, when nothing else chooses', () => {
    const choice = chooseSessionIssue({ inProgress: town });
    expect(choice).toMatchObject({ issueId: 'b-2', rule: 'newest' });
    expect(describeSessionIssueChoice(choice)).toBe('the most recently updated in-progress issue; no claim by this session is recorded');
  });

  it('an actor set on purpose is never handed an issue another actor holds', () => {
    const dave: Actor = { name: 'dave', source: 'BEADS_ACTOR' };
    const none = chooseSessionIssue({ inProgress: town, actor: dave, focusedId: 'a-1' });
    expect(none.issueId).toBeUndefined();
    expect(none.heldByOthers).toBe(3);
    const withFree = [...town, issue('d-4', '2026-11-26T08:00:00Z')];
    expect(chooseSessionIssue({ inProgress: withFree, actor: dave })).toMatchObject({ issueId: 'd-4', rule: 'newest', heldByOthers: 3 });
    // The login is no statement of who this is: the newest stands.
    expect(chooseSessionIssue({ inProgress: town, actor: { name: 'dave', source: 'USER' } }).issueId).toBe('b-2');
  });

  it('says which actor and where its name came from', () => {
    const choice = chooseSessionIssue({ inProgress: town, actor: alice });
    expect(describeSessionIssueChoice(choice)).toBe('assigned to alice (BEADS_ACTOR); no claim by this session is recorded');
  });

  it('nothing in progress: no issue, no rule', () => {
    const choice = chooseSessionIssue({ inProgress: [], binding: 'a-1' });
    expect(choice.issueId).toBeUndefined();
    expect(choice.rule).toBeUndefined();
    expect(choice.bindingEnded).toBe(true);
  });
});

describe('a binding a context handed over', () => {
  it('keeps the words of the rule that handed it, so the same session reads the same block', () => {
    const choice = chooseSessionIssue({ inProgress: town, binding: 'a-1', bindingHandedBy: 'newest' });
    expect(choice).toMatchObject({ issueId: 'a-1', rule: 'binding', handedBy: 'newest' });
    expect(describeSessionIssueChoice(choice)).toBe('the most recently updated in-progress issue; no claim by this session is recorded');
  });
});

describe('issues other live sessions hold (issue 30)', () => {
  const session = (sessionId: string, issueId: string, lastActive = 5_000) => ({ agent: 'codex', sessionId, bindings: [{ issueId, since: 1_000 }], lastActive });

  it('a new session is handed the newest issue no live session holds, by every rule, and the held ones are listed', () => {
    // b-2 (newest, bob's) is held by a live Codex session: the newest rule goes to c-3.
    const choice = chooseSessionIssue({ inProgress: town, liveSessions: [session('codex-1', 'b-2')] });
    expect(choice).toMatchObject({ issueId: 'c-3', rule: 'newest' });
    expect(choice.heldByLive).toEqual([{ issueId: 'b-2', agent: 'codex', sessionId: 'codex-1', since: 1_000, lastActive: 5_000 }]);
    expect(describeSessionIssueChoice(choice)).toBe('the most recently updated in-progress issue; the issue another live session holds left out; no claim by this session is recorded');
    // Neither the actor rule (bob is every session's actor here) nor the focus hands it over.
    expect(chooseSessionIssue({ inProgress: town, actor: { name: 'bob', source: 'USER' }, liveSessions: [session('codex-1', 'b-2')] })).toMatchObject({ issueId: 'c-3', rule: 'newest' });
    expect(chooseSessionIssue({ inProgress: town, focusedId: 'b-2', liveSessions: [session('codex-1', 'b-2')] })).toMatchObject({ issueId: 'c-3', rule: 'newest' });
  });

  it('when live sessions hold every in-progress issue, nothing is handed over', () => {
    const live = [session('one', 'a-1'), session('two', 'b-2'), session('three', 'c-3')];
    const choice = chooseSessionIssue({ inProgress: town, liveSessions: live });
    expect(choice.issueId).toBeUndefined();
    expect(choice.heldByOthers).toBe(3);
    // Newest first, as the in-progress list reads.
    expect(choice.heldByLive.map((entry) => entry.issueId)).toEqual(['b-2', 'c-3', 'a-1']);
  });

  it("a session's own binding stays its own, and is not listed as held, though another live session works on it too", () => {
    const choice = chooseSessionIssue({ inProgress: town, binding: 'b-2', liveSessions: [session('codex-1', 'b-2'), session('codex-2', 'a-1')] });
    expect(choice).toMatchObject({ issueId: 'b-2', rule: 'binding' });
    expect(choice.heldByLive.map((entry) => entry.issueId)).toEqual(['a-1']);
  });

  it("a live session holds the first of its bindings still in progress; a closed one holds nothing", () => {
    const closedFirst = { agent: 'claude', sessionId: 'c', bindings: [{ issueId: 'z-9', since: 1 }, { issueId: 'a-1', since: 2 }], lastActive: 9 };
    expect(chooseSessionIssue({ inProgress: town, liveSessions: [closedFirst] }).heldByLive).toMatchObject([{ issueId: 'a-1', since: 2 }]);
  });
});
