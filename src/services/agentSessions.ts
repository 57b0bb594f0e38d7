// The agent sessions of one git work tree, kept durably beside its ledger
// (`<git-dir>/beads-recovery/sessions.json`): each linked worktree has its own git dir, so its own
// sessions, bindings and attributed work, even when a `.beads/redirect` shares one store. Written
// by the hooks and the command line (from the sessions' transcripts) and by VS Code (its own
// session's focus, the idle setting); read by every surface that asks which issue is whose.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isTranscriptAgent } from '../core/agentEvents';
import {
  DEFAULT_SESSION_IDLE_MINUTES,
  DEFAULT_SESSION_LIVE_MINUTES,
  emptyAgentSessions,
  endBindings,
  endSession,
  liveSessionsOf,
  normalizeAgentSessions,
  observeSessionEvents,
  pruneSessions,
  sessionKey,
  type AgentSessionsState,
  type SessionIdentity,
} from '../core/agentSessions';
import type { LiveSession } from '../core/sessionIssue';
import { DEFAULT_THREAD_DESTINATION, parseThreadDestination, THREAD_DESTINATIONS, type ThreadDestination } from '../core/threadDestination';
import { findRepository } from '../git/repo';
import type { GitOptions } from '../git/runGit';
import { DurableJsonFile, type DamageReport } from './durableJson';
import { LEDGER_DIR } from './ledgerStore';
import { readTranscript } from './transcripts/readTranscript';

const SESSIONS_FILE = 'sessions.json';
const MINUTE_MS = 60_000;

export interface SessionsLocation {
  file: string;
  /** The work tree the sessions work in: their file paths are relative to it. */
  root: string;
}

/** Where the sessions of the work tree around `folder` are kept; undefined outside git (no place to keep them). */
export async function locateSessions(folder: string, options: GitOptions): Promise<SessionsLocation | undefined> {
  const repository = await findRepository(folder, options).catch(() => undefined);
  return repository ? { file: path.join(repository.gitDir, LEDGER_DIR, SESSIONS_FILE), root: repository.root } : undefined;
}

export class AgentSessionsStore {
  private readonly disk: DurableJsonFile<AgentSessionsState>;

  /** `lockWaitMs`: how long a change waits for another writer's lock (DurableJsonFile's default otherwise). */
  constructor(readonly location: SessionsLocation, options: { onDamage?: (report: DamageReport) => void; lockWaitMs?: number } = {}) {
    this.disk = new DurableJsonFile<AgentSessionsState>({ file: location.file, empty: emptyAgentSessions, parse: normalizeAgentSessions, onDamage: options.onDamage, lockWaitMs: options.lockWaitMs });
  }

  read(): Promise<AgentSessionsState> {
    return this.disk.read();
  }

  /** One read-change-write under the file's lock, across processes. */
  update(change: (state: AgentSessionsState) => AgentSessionsState): Promise<AgentSessionsState> {
    return this.disk.update(change);
  }
}

/**
 * How long a silent session counts as alive: `BEADS_RECOVERY_SESSION_IDLE_MINUTES`, else the
 * setting VS Code last wrote into the file, else the default (README, Settings).
 */
export function sessionIdleMs(state: AgentSessionsState, env: NodeJS.ProcessEnv = {}): number {
  const fromEnv = Number(env.BEADS_RECOVERY_SESSION_IDLE_MINUTES);
  const minutes = Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : (state.idleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES);
  return minutes * MINUTE_MS;
}

/**
 * Where the session's thread goes (README, "Where the thread goes"): `BEADS_RECOVERY_THREAD`, else
 * the setting VS Code last wrote into the file, else the default. A value that names no
 * destination is said through `note` and not used.
 */
export function threadDestinationOf(state: AgentSessionsState | undefined, env: NodeJS.ProcessEnv = {}, note: (line: string) => void = () => undefined): ThreadDestination {
  const asked = env.BEADS_RECOVERY_THREAD;
  const fromEnv = parseThreadDestination(asked);
  if (asked !== undefined && asked.trim() !== '' && !fromEnv) note(`BEADS_RECOVERY_THREAD=${JSON.stringify(asked.slice(0, 40))} is not one of ${THREAD_DESTINATIONS.join(', ')}; it is not used.`);
  return fromEnv ?? state?.threadDestination ?? DEFAULT_THREAD_DESTINATION;
}

/** threadDestinationOf for the work tree around `folder`, reading its sessions file (no process: git's own files say where). */
export async function threadDestinationIn(folder: string, env: NodeJS.ProcessEnv, options: GitOptions & { note?: (line: string) => void }): Promise<ThreadDestination> {
  const fromEnv = parseThreadDestination(env.BEADS_RECOVERY_THREAD);
  if (fromEnv) return fromEnv;
  const location = await locateSessions(folder, options).catch(() => undefined);
  const state = location ? await new AgentSessionsStore(location).read().catch(() => undefined) : undefined;
  return threadDestinationOf(state, env, options.note);
}

/**
 * A hook ran for `identity`: what its transcript shows since it was last read is counted (its
 * claims, edits, commits, compactions), sessions silent past the idle time are dropped, and
 * bindings to issues no longer in progress end (when that list is known). Returns the state.
 */
export async function observeSession(
  store: AgentSessionsStore,
  identity: SessionIdentity,
  options: { now: number; env?: NodeJS.ProcessEnv; inProgressIds?: readonly string[] },
): Promise<AgentSessionsState> {
  return store.update(await sessionObservation(store, identity, options));
}

/**
 * What observeSession does to the sessions' state, as a change to apply under the store's lock:
 * a context computes its block from the change applied to the state it read, and writes it once
 * with the issue it hands over (one lock and one fsync at a start instead of two).
 */
export async function sessionObservation(
  store: AgentSessionsStore,
  identity: SessionIdentity,
  options: { now: number; env?: NodeJS.ProcessEnv; inProgressIds?: readonly string[] },
): Promise<(state: AgentSessionsState) => AgentSessionsState> {
  // Only the session's own lines count, and only a transcript written in this work tree: a file
  // can hold a resumed session's lines, and a hook can be handed another project's file.
  const transcript = identity.transcript
    ? await readTranscript(identity.transcript, isTranscriptAgent(identity.agent) ? identity.agent : 'auto', {
        session: identity.sessionId === identity.transcript ? undefined : identity.sessionId,
        project: store.location.root,
      })
    : undefined;
  return (state) => {
    let next = observeSessionEvents(state, identity, transcript?.events ?? [], store.location.root, options.now);
    next = pruneSessions(next, options.now, sessionIdleMs(next, options.env));
    return options.inProgressIds ? endBindings(next, options.inProgressIds) : next;
  };
}

/**
 * How long a silent session still holds its issue against a new one:
 * `BEADS_RECOVERY_SESSION_LIVE_MINUTES`, else DEFAULT_SESSION_LIVE_MINUTES, never past the idle time.
 */
export function sessionLiveMs(state: AgentSessionsState, env: NodeJS.ProcessEnv = {}): number {
  const fromEnv = Number(env.BEADS_RECOVERY_SESSION_LIVE_MINUTES);
  const minutes = Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_SESSION_LIVE_MINUTES;
  return Math.min(minutes * MINUTE_MS, sessionIdleMs(state, env));
}

/** How much of another session's transcript is read for its claims since it was last read: its latest work, not its history. */
const OTHERS_TAIL_BYTES = 1024 * 1024;

/**
 * The other sessions that are live now, with the issues they are bound to. A session's last
 * activity is its latest event here or its transcript's last write, whichever is later: an agent
 * writes its transcript as it works, between our hooks. A live session whose transcript changed
 * since it was last read is read first (its end, 1 MiB at most), so a claim it made a moment ago
 * binds it already, before any hook of its own runs again.
 */
export async function liveSessions(
  store: AgentSessionsStore | undefined,
  state: AgentSessionsState | undefined,
  self: SessionIdentity | undefined,
  options: { now: number; env?: NodeJS.ProcessEnv },
): Promise<LiveSession[]> {
  if (!state) return [];
  const others = await otherSessions(store, state, self, options);
  const current = store && others.change ? await store.update(others.change).catch(() => state) : state;
  return liveSessionsOf(current, self, options.now, others.liveMs, others.lastWrite);
}

/**
 * liveSessions without writing: the live sessions as the state reads with what their transcripts
 * showed, and that as a change for the caller to record later, under the store's lock (undefined
 * when nothing changed). The checkpoint flow gathers with it and records in its write step.
 */
export async function readLiveSessions(
  store: AgentSessionsStore | undefined,
  state: AgentSessionsState,
  self: SessionIdentity | undefined,
  options: { now: number; env?: NodeJS.ProcessEnv },
): Promise<{ live: LiveSession[]; change?: (state: AgentSessionsState) => AgentSessionsState }> {
  const others = await otherSessions(store, state, self, options);
  const current = others.change ? others.change(state) : state;
  return { live: liveSessionsOf(current, self, options.now, others.liveMs, others.lastWrite), ...(others.change ? { change: others.change } : {}) };
}

/** The other sessions' transcripts: when each was last written, and (with a store) what the changed ones show since they were last read. */
async function otherSessions(
  store: AgentSessionsStore | undefined,
  state: AgentSessionsState,
  self: SessionIdentity | undefined,
  options: { now: number; env?: NodeJS.ProcessEnv },
): Promise<{ liveMs: number; lastWrite: (session: { transcript?: string }) => number | undefined; change?: (state: AgentSessionsState) => AgentSessionsState }> {
  const liveMs = sessionLiveMs(state, options.env);
  const selfKey = self ? sessionKey(self) : undefined;
  const candidates = Object.entries(state.sessions).filter(([key, session]) => key !== selfKey && session.transcript !== undefined && session.endedAt === undefined && session.agent !== 'vscode');
  const written = new Map<string, number>();
  await Promise.all(
    candidates.map(async ([, session]) => {
      const info = await stat(session.transcript as string).catch(() => undefined);
      if (info) written.set(session.transcript as string, Math.min(info.mtimeMs, options.now));
    }),
  );
  const lastWrite = (session: { transcript?: string }) => (session.transcript === undefined ? undefined : written.get(session.transcript));
  const changed = candidates.filter(([, session]) => {
    const at = written.get(session.transcript as string);
    return at !== undefined && options.now - at <= liveMs && at > (session.readUpTo ?? session.lastEventAt);
  });
  if (!store || changed.length === 0) return { liveMs, lastWrite };
  const read = await Promise.all(
    changed.map(async ([key, session]) => ({
      key,
      identity: { agent: session.agent, sessionId: session.sessionId, transcript: session.transcript },
      at: written.get(session.transcript as string) as number,
      events: (await readTranscript(session.transcript, isTranscriptAgent(session.agent) ? session.agent : 'auto', { maxBytes: OTHERS_TAIL_BYTES })).events,
    })),
  );
  const root = store.location.root;
  const change = (latest: AgentSessionsState): AgentSessionsState => {
    let next = latest;
    // One that ended meanwhile stays ended.
    for (const entry of read) if (latest.sessions[entry.key] && latest.sessions[entry.key]?.endedAt === undefined) next = observeSessionEvents(next, entry.identity, entry.events, root, entry.at);
    return next;
  };
  return { liveMs, lastWrite, change };
}

/** The agent's end-of-session hook ran for `identity`: what its transcript shows is counted, then it ends. */
export async function endObservedSession(store: AgentSessionsStore, identity: SessionIdentity, options: { now: number; env?: NodeJS.ProcessEnv }): Promise<void> {
  const transcript = identity.transcript
    ? await readTranscript(identity.transcript, isTranscriptAgent(identity.agent) ? identity.agent : 'auto').catch(() => undefined)
    : undefined;
  await store.update((state) => endSession(observeSessionEvents(state, identity, transcript?.events ?? [], store.location.root, options.now), identity, options.now));
}
