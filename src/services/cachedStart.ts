// A start answered from the start block's cache (startBlockCache.ts): the check that every input
// is as it was when the block was computed, and the session's record a start writes. One check,
// used by the recovery context (bin/context.ts, which also keeps what it computes) and by the
// hook's start from the cache (bin/hookStart.ts), which answers without loading the rest.
import path from 'node:path';
import { findBeadsDir, type StoreFolder } from '../beads/detect';
import { bindingsOf, endBindings, handedRuleOf, handIssue, sessionKey, type AgentSessionsState, type SessionIdentity } from '../core/agentSessions';
import { errorMessage } from '../core/errors';
import { isAgentId } from '../core/hookConfig';
import type { GitChange } from '../core/porcelain';
import type { Section } from '../core/recovery';
import type { LiveSession, SessionIssueChoice } from '../core/sessionIssue';
import { AgentSessionsStore, readLiveSessions, sessionObservation, threadDestinationOf } from './agentSessions';
import { describeDamage } from './durableJson';
import { LEDGER_DIR } from './ledgerStore';
import { primeConfigPlaces } from './primeDetection';
import type { SessionRecoveryResult } from './recovery';
import { projectCacheStamp, sameStamps, StartBlockCache, stampFiles, stampPlaces, startKey, type StampPlaces, type StartKeyFacts, type StartStamps, type StartView } from './startBlockCache';

/**
 * The longest a context waits for another writer's lock on the session store (only hooks name a
 * session): a small part of a hook's deadline. Past it the session's records are skipped, said on
 * stderr, and the context is answered without them.
 */
const SESSION_LOCK_WAIT_MS = 1_000;

/** Where a work tree keeps its agent sessions: its git dir, and the root their paths are relative to. */
export interface SessionsPlace {
  gitDir: string;
  root: string;
}

export interface StartCacheUse {
  cache: StartBlockCache;
  key: string;
  places: StampPlaces;
  /** The inputs' stamps, taken before any was read. */
  before: StartStamps;
}

/** The start cache of a start in `facts.cwd`, with its inputs' stamps taken now; undefined when they cannot all be stamped. */
export async function startCacheFor(facts: StartKeyFacts & { gitDir: string; cliPath: string | undefined; store?: StoreFolder }): Promise<StartCacheUse | undefined> {
  const { cwd, gitDir } = facts;
  // The store as the caller found it from `cwd`, else found here.
  const found = facts.store ?? (await findBeadsDir(cwd).catch(() => undefined));
  if (!found) return undefined;
  const prime = isAgentId(facts.agent) ? primeConfigPlaces(facts.agent, { projectFolders: [cwd, found.root] }) : { files: [], folders: [] };
  const places = stampPlaces({ cwd, holder: found.holder, beadsDir: found.beadsDir, gitDir, prime, env: facts.env, cliPath: facts.cliPath });
  const before = await takeStamps(places, gitDir);
  if (!before) return undefined;
  return { cache: new StartBlockCache(gitDir), key: startKey(facts), places, before };
}

async function takeStamps(places: StampPlaces, gitDir: string): Promise<StartStamps | undefined> {
  const files = stampFiles(places);
  return files && { files, projectCache: await projectCacheStamp(gitDir) };
}

/**
 * What the block reads that the file stamps do not cover, as the check computes it again: the
 * working tree's status, and of the agent sessions this session's own bindings, the other live
 * sessions with what they hold, and the thread's destination. Undefined when git could not answer.
 */
export async function startView(uncommitted: Promise<Section<GitChange[]>>, state: AgentSessionsState, session: SessionIdentity, others: readonly LiveSession[], env: NodeJS.ProcessEnv): Promise<StartView | undefined> {
  const status = await uncommitted.catch(() => undefined);
  if (!status?.ok) return undefined;
  const own = state.sessions[sessionKey(session)];
  const bindings = bindingsOf(own).map((issueId) => [issueId, handedRuleOf(own, issueId) ?? null]);
  return { uncommitted: JSON.stringify(status.value), sessions: JSON.stringify({ bindings, others, thread: threadDestinationOf(state, env) }) };
}

/** Written only when no stamped input changed while the block was made. */
export async function keepStart(start: StartCacheUse, made: { validUntil: number; view: StartView; notes: string[]; result: SessionRecoveryResult; inProgressIds: string[] | undefined }): Promise<void> {
  const gitDir = path.dirname(path.dirname(start.cache.file));
  const after = await takeStamps(start.places, gitDir);
  if (!after || !sameStamps(start.before, after)) return;
  await start.cache.save({ key: start.key, writtenAt: Date.now(), validUntil: made.validUntil, stamps: start.before, view: made.view, notes: made.notes, result: made.result, ...(made.inProgressIds ? { inProgressIds: made.inProgressIds } : {}) });
}

/** A start the cache answers: its block, what was said when it was computed, and the session's record still to write. */
export interface CachedStart {
  result: SessionRecoveryResult;
  /** Said on stderr when the block was computed: said again with it. */
  notes: readonly string[];
  /** Writes the session's record as a full computation writes it (what its transcript shows, the issue it was handed). */
  record(): Promise<void>;
}

/**
 * The cached block when every stamp is as it was and the clock has not passed its bound, with
 * the session's record to write once the block goes out. Undefined: compute it.
 */
export async function checkCachedStart(start: StartCacheUse, repository: SessionsPlace, session: SessionIdentity, env: NodeJS.ProcessEnv, uncommitted: Promise<Section<GitChange[]>>, warn: (line: string) => void): Promise<CachedStart | undefined> {
  const sessions = sessionsStoreOf(repository, warn);
  // Read side by side: the sessions are read whether the entry turns out to hold or not.
  const [entry, observed] = await Promise.all([start.cache.entry(start.key), observedSessions(sessions, session, env).catch(() => undefined)]);
  if (!entry || typeof entry.result?.markdown !== 'string' || !(Date.now() < entry.validUntil) || !sameStamps(entry.stamps, start.before)) return undefined;
  if (!observed) return undefined;
  // What the other sessions' transcripts showed since they were last read is recorded with this
  // session's record, in its one write, not in a write of its own before the answer.
  const others = await readLiveSessions(sessions, observed.state, session, { now: Date.now(), env }).catch(() => undefined);
  const view = others && (await startView(uncommitted, observed.state, session, others.live, env));
  if (!others || !view || view.uncommitted !== entry.view.uncommitted || view.sessions !== entry.view.sessions || !(Date.now() < entry.validUntil)) return undefined;
  const { change } = others;
  const observe = change ? (state: AgentSessionsState) => observed.observe(change(state)) : observed.observe;
  return { result: entry.result, notes: entry.notes, record: () => rememberHanded(sessions, session, observe, entry.result.choice, entry.inProgressIds, warn) };
}

/** The agent sessions of the work tree whose git dir is `place.gitDir` (beside its ledger); damage is said through `warn`. */
export function sessionsStoreOf(place: SessionsPlace, warn: (line: string) => void): AgentSessionsStore {
  return new AgentSessionsStore({ file: path.join(place.gitDir, LEDGER_DIR, 'sessions.json'), root: place.root }, { onDamage: (report) => warn(describeDamage('agent sessions', report)), lockWaitMs: SESSION_LOCK_WAIT_MS });
}

/**
 * The sessions' state with what this session's transcript shows (observeSession's change, read
 * without the lock: writes replace the file whole), and that change, written later with the
 * issue the context hands over.
 */
export async function observedSessions(sessions: AgentSessionsStore, session: SessionIdentity, env: NodeJS.ProcessEnv): Promise<{ state: AgentSessionsState; observe: (state: AgentSessionsState) => AgentSessionsState }> {
  const observe = await sessionObservation(sessions, session, { now: Date.now(), env });
  return { state: observe(await sessions.read()), observe };
}

/**
 * What the session's transcript shows is recorded, and the session was handed `issueId`: it binds
 * the session (weakest of its bindings), so the next context and checkpoint of this session follow
 * it even when another issue becomes newer; and bindings to issues no longer in progress end. One
 * write under the lock, against the state as it is then.
 */
export async function rememberHanded(
  sessions: AgentSessionsStore,
  session: SessionIdentity,
  observe: (state: AgentSessionsState) => AgentSessionsState,
  choice: SessionIssueChoice | undefined,
  inProgressIds: readonly string[] | undefined,
  warn: (line: string) => void,
): Promise<void> {
  await sessions
    .update((latest: AgentSessionsState) => {
      const state = observe(latest);
      const ended = inProgressIds ? endBindings(state, inProgressIds) : state;
      // Chosen by the session's own binding: it stays as it is.
      return choice?.issueId === undefined || choice.rule === 'binding' ? ended : handIssue(ended, session, choice.issueId, Date.now(), choice.rule);
    })
    .catch((error: unknown) => sessionsUnreadable(warn, error));
}

export function sessionsUnreadable(warn: (line: string) => void, error: unknown): undefined {
  warn(`the agent sessions could not be read or written, so this session's own issue is not known: ${errorMessage(error)}`);
  return undefined;
}

