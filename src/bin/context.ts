// The recovery context for a folder, as the command line, the agent hooks and the MCP server
// produce it: the same core and backends as the extension, with the ledger VS Code keeps for the
// folder when there is one, and settings from the environment instead of VS Code's.
import { describeMasked } from '../services/redaction';
import path from 'node:path';
import { localVersion } from '../beads/bdMigration';
import { jsonlPathOf, readOnlyDetection, type Detection } from '../beads/detect';
import { releaseWarningOnce } from '../beads/releaseWarnings';
import type { BeadsBackend } from '../beads/backend';
import { CliError } from '../beads/errors';
import { createJsonlBackend } from '../beads/jsonlBackend';
import type { AgentId } from '../core/hookConfig';
import { ledgerOf, toLedgerSummary } from '../core/ledger';
import { findRepository, type GitRepository } from '../git/repo';
import { gitStatus } from '../git/status';
import { describeDamage } from '../services/durableJson';
import { lastCloseBesideLedger } from '../services/lastClose';
import { LEDGER_DIR, ledgerIn, LedgerStore } from '../services/ledgerStore';
import { outboxBeside } from '../services/checkpointFlow';
import type { UnsentComment } from '../core/recovery';
import { detectFolder, folderSettings } from '../services/folderSettings';
import { detectBdPrime } from '../services/primeDetection';
import { ProjectCacheFile, type ContextHints } from '../services/projectCache';
import { produceRecoveryContext, type SessionRecoveryResult } from '../services/recovery';
import { section } from '../services/section';
import { actorFor } from '../services/actor';
import { liveSessions, threadDestinationIn } from '../services/agentSessions';
import { checkCachedStart, keepStart, observedSessions, rememberHanded, sessionsStoreOf, sessionsUnreadable, startCacheFor, startView } from '../services/cachedStart';
import { LocalThreadsStore } from '../services/localThreads';
import type { LocalThread } from '../core/threadDestination';
import { bindingsOf, handedRuleOf, sessionKey, type SessionIdentity } from '../core/agentSessions';
import { expectFromFile } from '../services/snapshot';
import { errorMessage } from '../core/errors';
import type { SessionThread } from '../core/transcriptThread';

export const DEFAULT_BUDGET_BYTES = 2048;

export interface ContextOptions {
  budget?: number;
  env?: NodeJS.ProcessEnv;
  /** False: run no CLI, read `.beads/issues.jsonl` (a hook's fallback when the CLI hangs). */
  trusted?: boolean;
  /** The agent the context is for: its rules are left out when bd's own `bd prime` already reaches it. */
  forAgent?: AgentId;
  signal?: AbortSignal;
  /** Notes for stderr: a read-only project, rules left out, a ledger that could not be read. */
  warn?: (line: string) => void;
  /** The `--actor` given: first in the actor chain, as for the CLI (src/core/sessionIssue.ts). */
  actor?: string;
  /**
   * The agent session the context is for (a hook's session id and transcript): what its
   * transcript shows is recorded first, its own binding chooses the issue, and the issue it is
   * handed becomes its binding (README "Which issue is this session's?").
   */
  session?: SessionIdentity;
  /** What the agent session was doing, from its transcript: shown under its own heading (agent hooks). */
  thread?: SessionThread;
  /** A resumed conversation holds a block that named this issue: a correction, or nothing (RecoveryRequest). */
  conversationHolds?: { issueId: string | undefined };
  /**
   * An agent's start (a hook): the block may come from the start block's cache when every input
   * is as it was (services/startBlockCache.ts), and a full computation writes it there. Only with
   * a session, and without a thread or a held block (what follows a compaction, a resume's correction).
   */
  startCache?: boolean;
  /**
   * With `startCache` and a session no agent has (a new session's stand-in): the block the next
   * new session's start will be given, made ahead (at a session's end) and kept for that start to
   * check instead of compute. Nothing is recorded: no session, no handed issue, no release warning
   * said once.
   */
  ahead?: boolean;
}

/** The recovery context of the beads project that contains `cwd`; a folder outside any project gets the one line saying so. */
export async function recoveryContextFor(cwd: string, options: ContextOptions = {}): Promise<SessionRecoveryResult> {
  const env = options.env ?? process.env;
  const trusted = options.trusted ?? true;
  // What is said on stderr while the block is made is kept with it in the start cache, and said again at a hit.
  const notes: string[] = [];
  const warn = (line: string) => {
    notes.push(line);
    (options.warn ?? (() => undefined))(line);
  };
  const settings = folderSettings(options.env);
  const { timeoutMs } = settings;
  // `git status` depends on nothing else the context reads: it starts first and runs beside the
  // rest (the context of a beads project always shows it), not after the other steps.
  const uncommitted = section(() => gitStatus(cwd, { timeoutMs, signal: options.signal }));
  // Awaited by the context; a run that fails before it leaves no rejection unhandled.
  uncommitted.catch(() => undefined);
  // What the last run on this repository learnt (the CLI's `where`, the ids the context needed).
  const repository = await findRepository(cwd, { timeoutMs, signal: options.signal }).catch(() => undefined);
  const start =
    options.startCache && options.session && !options.thread && !options.conversationHolds && repository
      ? await startCacheFor({ cwd, gitDir: repository.gitDir, budget: options.budget, agent: options.forAgent, trusted, actor: options.actor, env, cliPath: settings.cliPath })
      : undefined;
  if (start && repository && options.session) {
    const hit = await checkCachedStart(start, repository, options.session, env, uncommitted, options.warn ?? (() => undefined));
    if (hit) {
      for (const line of hit.notes) options.warn?.(line);
      if (!options.ahead) await hit.record();
      return hit.result;
    }
  }
  const cache = repository ? new ProjectCacheFile(path.join(repository.gitDir, LEDGER_DIR, 'project-cache.json')) : undefined;
  const detection = await detectFolder(cwd, settings, { trusted, signal: options.signal, whereCache: cache });
  if (detection.kind === 'readonly' && trusted) warn(detection.message);
  // A withdrawn bd release, as bd recorded the last one it ran here: said once, not at every hook.
  const recordedVersion = detection.kind !== 'none' && detection.cli === 'bd' ? await localVersion(detection.beadsDir) : undefined;
  const releaseWarning = recordedVersion && !options.ahead ? await releaseWarningOnce('bd', recordedVersion) : undefined;
  // Said once, not at every hit of the start cache.
  if (releaseWarning) options.warn?.(releaseWarning);
  const root = detection.kind === 'none' ? undefined : detection.backend.root;
  const sessions = repository && options.session && root !== undefined ? sessionsStoreOf(repository, warn) : undefined;
  const localThreads = repository ? keptThreads(cwd, repository.gitDir, env, timeoutMs, warn) : undefined;
  const [ledger, unsent, hints, prime, actor, observed] = await Promise.all([
    // The ledger VS Code keeps for this folder — this work tree's, where a `.beads/redirect` shares
    // another checkout's store: its focus and what changed since the last checkpoint.
    root === undefined || !repository ? undefined : readLedger(repository, warn),
    root === undefined || !repository ? undefined : readOutbox(repository, root, warn),
    root === undefined ? undefined : cache?.hints(root).catch(() => undefined),
    options.forAgent ? detectBdPrime(options.forAgent, { projectFolders: root === undefined ? [cwd] : [cwd, root] }) : undefined,
    detection.kind === 'none' ? undefined : actorFor({ dialect: detection.cli, beadsDir: detection.beadsDir, folder: cwd, env, flag: options.actor, timeoutMs, signal: options.signal }),
    sessions && options.session ? observedSessions(sessions, options.session, env).catch((error: unknown) => sessionsUnreadable(warn, error)) : undefined,
  ]);
  const sessionState = observed?.state;
  // The observation is written once, with the issue handed over; a context that fails before writes it alone.
  let observationKept = observed === undefined || options.ahead === true;
  const ownSession = options.session ? sessionState?.sessions[sessionKey(options.session)] : undefined;
  const bindings = bindingsOf(ownSession);
  // The other sessions still at work here: their issues are theirs (README "Which issue is this session's?").
  const others = options.session ? await liveSessions(sessions, sessionState, options.session, { now: Date.now(), env }).catch(() => []) : [];
  let inProgressIds: string[] | undefined;
  try {
    if (prime?.present) warn(`rules left out: ${prime.reason} already gives them`);
    // The last close made in VS Code and not followed up: the context names the same next issue.
    const lastClose = ledger ? await lastCloseBesideLedger(ledger.file).read() : undefined;
    // What to show alongside the lists: the ledger's focus, else what the last context needed,
    // else (a first run) what the store's own file says is in progress.
    const expected =
      ledger?.state.focusedId !== undefined || hints !== undefined || detection.kind !== 'cli'
        ? { focusedId: ledger?.state.focusedId ?? hints?.focusedId, hints: hints?.contextIds ?? [] }
        : await expectFromFile(createJsonlBackend({ root: detection.backend.root, beadsDir: detection.beadsDir, jsonlPath: await jsonlPathOf(detection.beadsDir), dialect: detection.cli }), options.signal);
    let remember: ContextHints | undefined;
    let unusable: CliError | undefined;
    // The in-progress list is the first query: how it fails tells whether the CLI can serve at all.
    const watched = (backend: BeadsBackend): BeadsBackend => ({
      ...backend,
      listInProgress: async (signal) => {
        try {
          return await backend.listInProgress(signal);
        } catch (error) {
          unusable = cliUnusable(error);
          throw error;
        }
      },
    });
    const kept = await localThreads;
    const produce = (current: Detection) =>
      produceRecoveryContext({
        backend: current.kind === 'none' ? null : watched(current.backend),
        workingFolder: cwd,
        cli: current.kind === 'none' ? 'br' : current.cli,
        focusedId: ledger?.state.focusedId,
        expectedId: expected.focusedId,
        session: { bindings, actor, handedBy: (issueId) => handedRuleOf(ownSession, issueId), liveSessions: others },
        hints: expected.hints,
        onSnapshot: (snapshot) => {
          remember = { focusedId: snapshot.focusedId, contextIds: snapshot.contextIds };
          inProgressIds = snapshot.inProgress.ok ? snapshot.inProgress.value.map((issue) => issue.id) : undefined;
        },
        ledgerFor: (issueId) => {
          const recorded = (ledger ? ledgerOf(ledger.state, issueId) : undefined);
          return recorded ? toLedgerSummary(recorded) : undefined;
        },
        lastClose,
        budget: options.budget ?? DEFAULT_BUDGET_BYTES,
        omitRules: prime?.present === true,
        // bd's memories, which only its prime would otherwise bring: here when the prime does not.
        withMemories: true,
        thread: options.thread,
        localThreads: kept,
        unsent,
        ...(options.conversationHolds ? { conversationHolds: options.conversationHolds } : {}),
        uncommitted,
        now: Date.now(),
        probeSameUntil: start !== undefined,
        timeoutMs,
        signal: options.signal,
      });
    let result = await produce(detection);
    // Validated lazily: a CLI that cannot answer gets the project read-only from its file, as a failed `where` would have.
    if (unusable && detection.kind === 'cli' && !detection.where) {
      const reason = unusable.kind === 'notFound' ? 'cli-missing' : unusable.kind === 'timeout' ? 'cli-timeout' : 'cli-failed';
      const readOnly = await readOnlyDetection({ root: detection.backend.root, beadsDir: detection.beadsDir }, detection.cli, reason, `${unusable.message}.`);
      if (readOnly.kind === 'readonly') warn(readOnly.message);
      result = await produce(readOnly);
      remember = undefined;
    }
    const masked = result.masked && describeMasked(result.masked);
    if (masked) warn(`${masked} in the recovery context.`);
    if (cache && root !== undefined && remember) await cache.saveHints(root, remember).catch(() => undefined);
    if (sessions && options.session && observed && !options.ahead) await rememberHanded(sessions, options.session, observed.observe, result.choice, inProgressIds, warn);
    observationKept = true;
    // Kept for the next start when nothing it was made from can change unseen by the stamps.
    if (start && !unusable && detection.kind !== 'none' && !(detection.kind === 'readonly' && detection.reason === 'migrating') && actor?.source !== 'git' && sessionState && options.session) {
      const ready = await detection.backend.readyChangesAfter?.(Date.now(), options.signal).catch(() => undefined);
      const validUntil = Math.min(result.sameUntil ?? 0, ready?.at ?? Number.POSITIVE_INFINITY);
      const view = await startView(uncommitted, sessionState, options.session, others, env);
      if (ready && view && validUntil > Date.now()) await keepStart(start, { validUntil, view, notes, result, inProgressIds });
    }
    return result;
  } finally {
    ledger?.dispose();
    if (!observationKept && sessions && observed) await sessions.update(observed.observe).catch((error: unknown) => sessionsUnreadable(warn, error));
  }
}

/**
 * The threads this machine kept instead of writing them to beads (`beadsRecovery.thread.destination:
 * local`), unless the thread is off now; none when they cannot be read (said on stderr).
 */
async function keptThreads(folder: string, gitDir: string, env: NodeJS.ProcessEnv, timeoutMs: number, warn: (line: string) => void): Promise<LocalThread[] | undefined> {
  if ((await threadDestinationIn(folder, env, { timeoutMs })) === 'off') return undefined;
  return new LocalThreadsStore(gitDir, { onDamage: (report) => warn(describeDamage('threads kept on this machine', report)) }).threads().catch((error: unknown) => {
    warn(`the threads kept on this machine could not be read: ${errorMessage(error)}`);
    return undefined;
  });
}

/**
 * The comments beside the ledger that are not in beads (refused, or still queued), for the context
 * to show with their words; refused writes are said on stderr too. An unreadable outbox is said,
 * and the context goes on without them.
 */
async function readOutbox(repository: GitRepository, beadsRoot: string, warn: (line: string) => void): Promise<UnsentComment[] | undefined> {
  try {
    const { notes, unsent } = await outboxBeside(ledgerIn(repository).file, beadsRoot);
    for (const line of notes) warn(line);
    return unsent;
  } catch (error) {
    warn(`the outbox could not be read, so the context cannot say which comments are not in beads yet: ${errorMessage(error)}`);
    return undefined;
  }
}

/** The CLI failed in a way that says it cannot serve this project (not a refusal, not a cancel). */
function cliUnusable(error: unknown): CliError | undefined {
  return error instanceof CliError && error.kind !== 'canceled' && error.kind !== 'refused' ? error : undefined;
}

/**
 * The ledger of the repository found above (one `git rev-parse` per context), or undefined when it
 * cannot be read (said through `warn`: the context goes on without it).
 */
async function readLedger(repository: GitRepository, warn: (line: string) => void): Promise<LedgerStore | undefined> {
  try {
    const store = new LedgerStore(ledgerIn(repository).file, { onDamage: (report) => warn(describeDamage('ledger', report)) });
    await store.load();
    return store;
  } catch (error) {
    warn(`the ledger could not be read, so the context leaves it out: ${errorMessage(error)}`);
    return undefined;
  }
}

