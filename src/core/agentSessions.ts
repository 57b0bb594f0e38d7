// The agent sessions of one git work tree, as their own events show them: which issue each one
// claimed or was handed (its binding), the files it edited and the commits it made, when it last
// did anything and how often it compacted. Pure: the events come from the agents' transcripts
// (src/core/agentEvents.ts, read by src/services/transcripts/), the time is passed in, and the
// state is kept by src/services/agentSessions.ts.
//
// Whose work is a fact, not a guess: a file is a session's when its own edit or write tool call
// (or its own `rm`) named it; a commit is its when its own `git commit` printed the hash; an
// issue is its when its own command claimed it, set it in progress or commented on it, or when a
// context handed it over. A binding ends when the session closes or unclaims the issue, claims
// another, or is gone (no event for the idle time a setting gives).
//
// A session is live until its agent's end-of-session hook says it ended, or until it has been
// silent for the live limit (README "Which issue is this session's?"): while live, the issue its
// own commands claimed is not handed to another session.

import type { IssueRule, LiveSession } from './sessionIssue';
import { type AgentEvent, type FileTouch, type ToolCall, type ToolResult } from './agentEvents';
import { issueActionsIn, type IssueAction } from './commandLine';
import { entryOf, idRecord, withEntry } from './idRecord';
import { parseThreadDestination, type ThreadDestination } from './threadDestination';

export interface SessionCommit {
  hash: string;
  subject: string;
  /** Epoch ms of the event that made it. */
  at: number;
}

export interface AgentSession {
  /** claude, codex, copilot, cursor, gemini, vscode, … */
  agent: string;
  sessionId: string;
  transcript?: string;
  /** The issue it claimed or set in progress (or, for VS Code, focused). */
  claimed?: string;
  /** Epoch ms of that claim. */
  claimedAt?: number;
  /** Issues it commented on since, most recent first: bound only when it claimed nothing in progress. */
  named: string[];
  /** The issue a recovery context handed it, when none of its own commands named one. */
  handed?: string;
  /** The rule that chose `handed` (src/core/sessionIssue.ts): the next context says it again. */
  handedBy?: IssueRule;
  /** Epoch ms of that hand-over. */
  handedAt?: number;
  /** Work-tree-relative paths its edits touched (`/`-separated), with the time of the last touch. */
  files: Record<string, number>;
  commits: SessionCommit[];
  compactions: number;
  lastCompactionAt?: number;
  startedAt: number;
  /** The latest event seen: a hook run, a transcript entry, a focus. */
  lastEventAt: number;
  /** Its agent's end-of-session hook ran (and no event came since): it holds no issue any more. */
  endedAt?: number;
  /** Transcript entries up to this time are already counted. */
  readUpTo?: number;
}

export interface AgentSessionsState {
  version: 1;
  sessions: Record<string, AgentSession>;
  /** `beadsRecovery.sessions.idleMinutes` as VS Code last wrote it, for the command line, which cannot read settings. */
  idleMinutes?: number;
  /** `beadsRecovery.thread.destination` as VS Code last wrote it, for the hooks and the command line. */
  threadDestination?: ThreadDestination;
}

export interface SessionIdentity {
  agent: string;
  sessionId: string;
  transcript?: string;
}

const MAX_SESSIONS = 50;
const MAX_FILES = 300;
const MAX_COMMITS = 100;
const MAX_NAMED = 5;
/** The session setting's default: a session silent this long is gone (README, `beadsRecovery.sessions.idleMinutes`). */
export const DEFAULT_SESSION_IDLE_MINUTES = 720;
/**
 * A session silent this long no longer holds its issue against a new session, though its binding
 * and work are kept for the idle time (README, `BEADS_RECOVERY_SESSION_LIVE_MINUTES`): agents
 * without an end-of-session hook (Codex) never say that they ended.
 */
export const DEFAULT_SESSION_LIVE_MINUTES = 30;

/** The settings VS Code writes beside the sessions, for the hooks and the command line, which cannot read them. */
export type SessionSettings = Required<Pick<AgentSessionsState, 'idleMinutes' | 'threadDestination'>>;

/** The state with VS Code's settings written in; the same state when they are there already. */
export function withSessionSettings(state: AgentSessionsState, settings: SessionSettings): AgentSessionsState {
  if (state.idleMinutes === settings.idleMinutes && state.threadDestination === settings.threadDestination) return state;
  return { ...state, idleMinutes: settings.idleMinutes, threadDestination: settings.threadDestination };
}

export function emptyAgentSessions(): AgentSessionsState {
  return { version: 1, sessions: {} };
}

/** The session a hook runs in: its id, else its transcript's path (which names it as well). */
export function sessionOfHook(agent: string, input: { session?: string; transcript?: string } | undefined): SessionIdentity | undefined {
  const sessionId = input?.session ?? input?.transcript;
  return sessionId ? { agent, sessionId, transcript: input?.transcript } : undefined;
}

export function sessionKey(identity: Pick<SessionIdentity, 'agent' | 'sessionId'>): string {
  return `${identity.agent}:${identity.sessionId}`;
}

/** The issues a session is bound to, the strongest first: its claim, what it commented on, what it was handed. */
export function bindingsOf(session: AgentSession | undefined): string[] {
  if (!session) return [];
  return unique([session.claimed, ...session.named, session.handed].filter((id): id is string => id !== undefined));
}

/** `[branch abc1234] subject` or `[branch (root-commit) abc1234] subject`, as `git commit` prints it. */
const COMMIT_LINE = /^\[[^\]\n]*?\s([0-9a-f]{7,40})\]\s+(.*)$/m;
const GIT_COMMIT = /(?:^|[\s;&|(])git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+commit\b/;

// ---------------------------------------------------------------------------------------------
// Transitions

/**
 * Counts what a session's transcript shows since it was last read: issue commands that succeeded,
 * files its tools touched inside the work tree (`root`, absolute; other paths are not this work
 * tree's work), commits its `git commit` printed, compactions. Entries already counted are skipped
 * by time, so reading the same transcript again changes nothing.
 */
export function observeSessionEvents(state: AgentSessionsState, identity: SessionIdentity, events: readonly AgentEvent[], root: string, now: number): AgentSessionsState {
  let session = touchSession(state.sessions[sessionKey(identity)], identity, now);
  const readUpTo = session.readUpTo;
  const fresh = events.filter((event) => event.at === undefined || readUpTo === undefined || event.at > readUpTo);
  const results = new Map<string, ToolResult>();
  for (const event of events) if (event.type === 'tool-result') results.set(event.id, event);
  let latest = readUpTo;
  for (const event of fresh) {
    const at = event.at ?? now;
    if (event.at !== undefined) latest = Math.max(latest ?? event.at, event.at);
    if (event.type === 'compaction') {
      session = { ...session, compactions: session.compactions + 1, lastCompactionAt: Math.max(session.lastCompactionAt ?? at, at) };
    } else if (event.type === 'tool-call') {
      const result = results.get(event.id);
      // A call the tool refused or that failed did nothing we may count.
      if (result?.isError === true || (result?.exitCode !== undefined && result.exitCode !== 0)) continue;
      session = applyToolCall(session, event, result, root, at);
    }
  }
  session = { ...session, readUpTo: latest, lastEventAt: Math.max(session.lastEventAt, latest ?? session.lastEventAt) };
  return withSession(state, session);
}

function applyToolCall(session: AgentSession, call: ToolCall, result: ToolResult | undefined, root: string, at: number): AgentSession {
  let next = session;
  const touched: FileTouch[] = result?.files ?? call.files;
  for (const touch of touched) {
    const relative = workTreePath(touch.path, root);
    if (relative !== undefined) next = { ...next, files: capFiles(withEntry(next.files, relative, Math.max(entryOf(next.files, relative) ?? at, at))) };
  }
  if (call.command) {
    for (const action of issueActionsIn(call.command)) next = applyIssueAction(next, action, at);
    const printed = result && GIT_COMMIT.test(call.command) ? COMMIT_LINE.exec(result.output) : null;
    if (printed && !next.commits.some((commit) => commit.hash === printed[1])) {
      next = { ...next, commits: [...next.commits, { hash: printed[1] as string, subject: (printed[2] ?? '').trim(), at }].slice(-MAX_COMMITS) };
    }
  }
  return next;
}

/** `at`: when the command ran (epoch ms), which a claim keeps as the time it holds the issue since. */
export function applyIssueAction(session: AgentSession, action: IssueAction, at?: number): AgentSession {
  const without = (ids: readonly string[]) => ids.filter((id) => id !== action.issueId);
  switch (action.kind) {
    case 'claim':
      // Claiming another issue ends the binding to the one before, and to what was handed.
      if (session.claimed === action.issueId) return { ...session, named: without(session.named), handed: undefined, handedBy: undefined, handedAt: undefined };
      return { ...session, claimed: action.issueId, claimedAt: at, named: without(session.named), handed: undefined, handedBy: undefined, handedAt: undefined };
    case 'comment':
      return action.issueId === session.claimed ? session : { ...session, named: [action.issueId, ...without(session.named)].slice(0, MAX_NAMED) };
    case 'close':
    case 'release':
      return {
        ...session,
        claimed: session.claimed === action.issueId ? undefined : session.claimed,
        claimedAt: session.claimed === action.issueId ? undefined : session.claimedAt,
        named: without(session.named),
        handed: session.handed === action.issueId ? undefined : session.handed,
        handedBy: session.handed === action.issueId ? undefined : session.handedBy,
        handedAt: session.handed === action.issueId ? undefined : session.handedAt,
      };
  }
}

/** A context handed the session this issue (it stays the weakest binding: its own claims come first). */
export function handIssue(state: AgentSessionsState, identity: SessionIdentity, issueId: string, now: number, rule?: IssueRule): AgentSessionsState {
  const session = touchSession(state.sessions[sessionKey(identity)], identity, now);
  return withSession(state, { ...session, handed: issueId, handedBy: rule, handedAt: session.handed === issueId ? (session.handedAt ?? now) : now });
}

/** The rule that handed the session this issue, when it is bound to it only by a context's hand-over. */
export function handedRuleOf(session: AgentSession | undefined, issueId: string | undefined): IssueRule | undefined {
  return session && issueId !== undefined && session.handed === issueId && session.claimed !== issueId && !session.named.includes(issueId) ? session.handedBy : undefined;
}

/** The session chose its issue itself (VS Code's Focus Issue…): as binding as a claim. */
export function bindIssue(state: AgentSessionsState, identity: SessionIdentity, issueId: string | undefined, now: number): AgentSessionsState {
  const session = touchSession(state.sessions[sessionKey(identity)], identity, now);
  return withSession(state, { ...session, claimed: issueId, claimedAt: issueId === undefined ? undefined : now, handed: undefined, handedBy: undefined, handedAt: undefined });
}

/** The agent's end-of-session hook ran: the session holds its issue no longer (its next event, a resume, makes it live again). */
export function endSession(state: AgentSessionsState, identity: SessionIdentity, now: number): AgentSessionsState {
  const session = touchSession(state.sessions[sessionKey(identity)], identity, now);
  return withSession(state, { ...session, endedAt: now });
}

/**
 * The other agent sessions that are live at `now`, with the issues their own commands bound them
 * to: not ended, and with an event within `liveMs`
 * (`lastActiveOf` may know a later one than the state, such as its transcript's last write).
 * VS Code's own window is no agent session: its focus is the focus rule's, not a hold.
 */
export function liveSessionsOf(
  state: AgentSessionsState,
  self: Pick<SessionIdentity, 'agent' | 'sessionId'> | undefined,
  now: number,
  liveMs: number,
  lastActiveOf: (session: AgentSession) => number | undefined = () => undefined,
): LiveSession[] {
  const selfKey = self ? sessionKey(self) : undefined;
  const live: LiveSession[] = [];
  for (const [key, session] of Object.entries(state.sessions)) {
    if (key === selfKey || session.agent === 'vscode') continue;
    // Ended is ended: an agent may still write its transcript after its end hook ran.
    if (session.endedAt !== undefined) continue;
    const lastActive = Math.max(session.lastEventAt, lastActiveOf(session) ?? 0);
    if (now - lastActive > liveMs) continue;
    // What its own commands claimed or commented on; an issue a context only handed it is shared
    // (issue 30: two sessions may work on one issue, each checkpoint naming its own work).
    const own = unique([session.claimed, ...session.named].filter((id): id is string => id !== undefined));
    const bindings = own.map((issueId) => ({ issueId, since: (issueId === session.claimed ? session.claimedAt : undefined) ?? session.startedAt }));
    if (bindings.length > 0) live.push({ agent: session.agent, sessionId: session.sessionId, bindings, lastActive });
  }
  return live;
}

/** The issues no longer in progress leave every binding (closed or unclaimed, by anyone). */
export function endBindings(state: AgentSessionsState, inProgressIds: readonly string[]): AgentSessionsState {
  const live = new Set(inProgressIds);
  let changed = false;
  const sessions: Record<string, AgentSession> = {};
  for (const [key, session] of Object.entries(state.sessions)) {
    const kept = bindingsOf(session).filter((id) => live.has(id));
    if (kept.length === bindingsOf(session).length) {
      sessions[key] = session;
      continue;
    }
    changed = true;
    sessions[key] = {
      ...session,
      claimed: session.claimed !== undefined && live.has(session.claimed) ? session.claimed : undefined,
      claimedAt: session.claimed !== undefined && live.has(session.claimed) ? session.claimedAt : undefined,
      named: session.named.filter((id) => live.has(id)),
      handed: session.handed !== undefined && live.has(session.handed) ? session.handed : undefined,
      handedBy: session.handed !== undefined && live.has(session.handed) ? session.handedBy : undefined,
      handedAt: session.handed !== undefined && live.has(session.handed) ? session.handedAt : undefined,
    };
  }
  return changed ? { ...state, sessions } : state;
}

/** Sessions with no event for `idleMs` are gone: their bindings and work no longer count. */
export function pruneSessions(state: AgentSessionsState, now: number, idleMs: number): AgentSessionsState {
  const live = Object.entries(state.sessions).filter(([, session]) => now - session.lastEventAt <= idleMs);
  if (live.length === Object.keys(state.sessions).length) return state;
  return { ...state, sessions: Object.fromEntries(live) };
}

function touchSession(existing: AgentSession | undefined, identity: SessionIdentity, now: number): AgentSession {
  const base: AgentSession = existing ?? { agent: identity.agent, sessionId: identity.sessionId, named: [], files: {}, commits: [], compactions: 0, startedAt: now, lastEventAt: now };
  // Any event of its own (a resume's start, a prompt) makes an ended session live again.
  return { ...base, transcript: identity.transcript ?? base.transcript, lastEventAt: Math.max(base.lastEventAt, now), endedAt: undefined };
}

function withSession(state: AgentSessionsState, session: AgentSession): AgentSessionsState {
  const sessions = { ...state.sessions, [sessionKey(session)]: session };
  const keys = Object.keys(sessions);
  if (keys.length <= MAX_SESSIONS) return { ...state, sessions };
  const kept = keys.sort((a, b) => (sessions[b]?.lastEventAt ?? 0) - (sessions[a]?.lastEventAt ?? 0)).slice(0, MAX_SESSIONS);
  return { ...state, sessions: Object.fromEntries(kept.map((key) => [key, sessions[key] as AgentSession])) };
}

function capFiles(files: Record<string, number>): Record<string, number> {
  const entries = Object.entries(files);
  if (entries.length <= MAX_FILES) return files;
  return idRecord(entries.sort((a, b) => b[1] - a[1]).slice(0, MAX_FILES));
}

/**
 * A tool's path as a path of the work tree at `root` (`/`-separated, no `./`); undefined for a
 * path outside it. Relative paths are the agent's, which runs in the work tree.
 */
export function workTreePath(file: string, root: string): string | undefined {
  const slashed = file.replace(/\\/g, '/');
  const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
  const absolute = /^(?:\/|[A-Za-z]:\/)/.test(slashed);
  let relative = absolute ? (slashed.startsWith(`${base}/`) ? slashed.slice(base.length + 1) : undefined) : slashed;
  if (relative === undefined) return undefined;
  const parts: string[] = [];
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.pop() === undefined) return undefined;
    } else parts.push(part);
  }
  relative = parts.join('/');
  return relative === '' ? undefined : relative;
}

// ---------------------------------------------------------------------------------------------
// Attribution

export interface Work {
  files: readonly string[];
  commits: readonly { hash: string; subject: string }[];
}

/** What the session itself did after `since` (all of it when undefined): its files, newest first, and its commits, oldest first. */
export function ownWork(session: AgentSession | undefined, since: number | undefined): Work {
  if (!session) return { files: [], commits: [] };
  const after = (at: number) => since === undefined || at > since;
  const files = Object.entries(session.files)
    .filter(([, at]) => after(at))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([file]) => file);
  return { files, commits: session.commits.filter((commit) => after(commit.at)).map(({ hash, subject }) => ({ hash, subject })) };
}

/** What the other live sessions of the work tree did after `since`: not this session's to name. */
export function othersWork(state: AgentSessionsState, identity: Pick<SessionIdentity, 'agent' | 'sessionId'> | undefined, since: number | undefined): Work {
  const key = identity ? sessionKey(identity) : undefined;
  const files = new Set<string>();
  const commits: { hash: string; subject: string }[] = [];
  for (const [other, session] of Object.entries(state.sessions)) {
    if (other === key) continue;
    const work = ownWork(session, since);
    for (const file of work.files) files.add(file);
    commits.push(...work.commits);
  }
  return { files: [...files], commits };
}

/**
 * The work a checkpoint of this session names: its own, plus what the folder recorded (the
 * ledger, git) that no other session claims — the latter only when its issue is the folder's
 * focus, which unclaimed work has always followed. With `unclaimedApart` (the session's own
 * events are known: its transcript was read), that unclaimed work is not the session's to name
 * as its own: it comes back in `alsoChanged`, changed here by another session or by hand.
 */
export function attributeWork(input: { own: Work; folder: Work; others: Work; includeUnclaimed: boolean; unclaimedApart?: boolean }): { files: string[]; commits: { hash: string; subject: string }[]; alsoChanged: string[] } {
  const ownFiles = new Set(input.own.files);
  const theirs = new Set(input.others.files.filter((file) => !ownFiles.has(file)));
  const sameCommit = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);
  const claimedByOthers = (hash: string) => input.others.commits.some((commit) => sameCommit(commit.hash, hash)) && !input.own.commits.some((commit) => sameCommit(commit.hash, hash));
  const unclaimed = input.folder.files.filter((file) => !ownFiles.has(file) && !theirs.has(file));
  const files = [...input.own.files, ...(input.includeUnclaimed && !input.unclaimedApart ? unclaimed : [])];
  const commits = [...input.own.commits];
  if (input.includeUnclaimed) {
    for (const commit of input.folder.commits) {
      if (claimedByOthers(commit.hash) || commits.some((known) => sameCommit(known.hash, commit.hash))) continue;
      commits.push(commit);
    }
  }
  return { files, commits, alsoChanged: input.unclaimedApart ? unclaimed : [] };
}

// ---------------------------------------------------------------------------------------------
// Reading the file

/** The state as read from disk: every session that reads is kept, anything else dropped. */
export function normalizeAgentSessions(value: unknown, problems: string[] = []): AgentSessionsState {
  const state = emptyAgentSessions();
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.sessions)) {
    if (value !== undefined) problems.push('it is not a sessions file of this version; it starts again');
    return state;
  }
  if (typeof value.idleMinutes === 'number' && Number.isFinite(value.idleMinutes) && value.idleMinutes > 0) state.idleMinutes = value.idleMinutes;
  const threadDestination = parseThreadDestination(value.threadDestination);
  if (threadDestination) state.threadDestination = threadDestination;
  for (const [key, raw] of Object.entries(value.sessions)) {
    const session = normalizeSession(raw);
    if (session && sessionKey(session) === key) state.sessions[key] = session;
    else problems.push(`the session entry ${JSON.stringify(key.slice(0, 80))} could not be read; it was dropped`);
  }
  return state;
}

function normalizeSession(raw: unknown): AgentSession | undefined {
  if (!isRecord(raw) || !isText(raw.agent) || !isText(raw.sessionId) || !isTime(raw.startedAt) || !isTime(raw.lastEventAt)) return undefined;
  const files = idRecord<number>();
  if (isRecord(raw.files)) for (const [file, at] of Object.entries(raw.files)) if (file !== '' && isTime(at)) files[file] = at;
  const commits = Array.isArray(raw.commits)
    ? raw.commits.filter((c): c is SessionCommit => isRecord(c) && isText(c.hash) && typeof c.subject === 'string' && isTime(c.at)).map(({ hash, subject, at }) => ({ hash, subject, at }))
    : [];
  return {
    agent: raw.agent,
    sessionId: raw.sessionId,
    transcript: isText(raw.transcript) ? raw.transcript : undefined,
    claimed: isText(raw.claimed) ? raw.claimed : undefined,
    claimedAt: isText(raw.claimed) && isTime(raw.claimedAt) ? raw.claimedAt : undefined,
    named: Array.isArray(raw.named) ? raw.named.filter(isText).slice(0, MAX_NAMED) : [],
    handed: isText(raw.handed) ? raw.handed : undefined,
    handedBy: raw.handedBy === 'actor' || raw.handedBy === 'focus' || raw.handedBy === 'newest' ? raw.handedBy : undefined,
    handedAt: isText(raw.handed) && isTime(raw.handedAt) ? raw.handedAt : undefined,
    files: capFiles(files),
    commits: commits.slice(-MAX_COMMITS),
    compactions: typeof raw.compactions === 'number' && Number.isInteger(raw.compactions) && raw.compactions >= 0 ? raw.compactions : 0,
    lastCompactionAt: isTime(raw.lastCompactionAt) ? raw.lastCompactionAt : undefined,
    startedAt: raw.startedAt,
    lastEventAt: raw.lastEventAt,
    endedAt: isTime(raw.endedAt) ? raw.endedAt : undefined,
    readUpTo: isTime(raw.readUpTo) ? raw.readUpTo : undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
