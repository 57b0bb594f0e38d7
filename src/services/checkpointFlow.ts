// The one checkpoint flow (docs/ARCHITECTURE.md §4). Every surface that writes a checkpoint calls
// `runCheckpoint` as a function, with its own cancellation signal and the time it has left:
// VS Code's Checkpoint Now and the language-model tool (src/adapters/checkpointCommands.ts), the
// command line (src/bin/checkpoint.ts), the agent hooks (src/bin/hook.ts) and the MCP server
// (src/bin/mcp.ts). It answers written, queued, nothing new or failed, always with the reason.
//
// A surface either hands over a project it keeps open (VS Code: its backend, outbox and ledger)
// or a folder, which the flow opens itself (detection, the ledger and the outbox beside it in the
// git directory) and closes again before it answers. Outside VS Code, where no watcher recorded
// the edits, git adds what it shows since the last checkpoint.

import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BeadsBackend } from '../beads/backend';
import { jsonlPathOf, type Detection } from '../beads/detect';
import { isCanceled } from '../beads/errors';
import { createJsonlBackend } from '../beads/jsonlBackend';
import { alreadyOnIssue } from '../core/checkpoint';
import { errorMessage } from '../core/errors';
import { formatAge } from '../core/time';
import type { GitRepository } from '../git/repo';
import type { GitOptions } from '../git/runGit';
import { markCheckpointsOnLanding, type CheckpointLedger, type CheckpointRequest } from './checkpoints';
import { decideCheckpoint, gitReadFrom, type CheckpointDecision, type CheckpointFacts, type ThreadDecision } from '../core/checkpointDecision';
import { describeDamage, type DamageReport } from './durableJson';
import { gitRecords } from './gitActivity';
import { locateLedger, LedgerStore } from './ledgerStore';
import { detectFolder, folderSettings } from './folderSettings';
import { describeWrite, Outbox, type PendingWrite } from './outbox';
import { describeDecision } from '../core/outboxPolicy';
import type { UnsentComment } from '../core/recovery';
import { sendWrite } from './outboxDrainer';
import { endBindings, type AgentSessionsState, type SessionIdentity } from '../core/agentSessions';
import { actorFor, type ActorLookup } from './actor';
import { AgentSessionsStore, readLiveSessions, sessionObservation, threadDestinationOf } from './agentSessions';
import { LocalThreadsStore } from './localThreads';
import { LEDGER_DIR } from './ledgerStore';
import type { BeadsWrite } from './writeQueue';
import { describeMasked, pathPlaces, redactText, type MaskedCounts } from './redaction';
import type { PathPlaces } from '../core/redact';

type CommentWrite = Extract<BeadsWrite, { kind: 'comment' }>;

/** What a checkpoint is asked for, on which issue, where. */
export interface CheckpointFlowRequest {
  /** The words of a person or an agent, an automatic checkpoint at a trigger, or a summary of the activity. */
  ask: CheckpointRequest;
  /**
   * The issue to write on; by default the session's (src/core/sessionIssue.ts: its own binding,
   * the actor's issue, the folder's focus, the most recently updated in progress).
   */
  issueId?: string;
  /**
   * Which session's work (a hook's session id and transcript): what its transcript shows is
   * recorded first, its binding chooses the issue, and the checkpoint names only its own files
   * and commits, plus — on the folder's focus — what no session claims.
   */
  session?: SessionIdentity;
  /** The `--actor` given, first in the actor chain. */
  actor?: string;
  /**
   * For an automatic checkpoint: reads the session's thread (threadFactLines), which goes below
   * its first line. Read in the gather, beside the other facts; lines in `ask.thread` are taken as given.
   */
  thread?: () => Promise<readonly string[] | undefined>;
  place: CheckpointPlace;
}

/**
 * `folder`: the flow opens the beads project that contains `cwd` (settings from `env`, the
 * process's own by default) and closes it before it answers. `open`: a project the caller keeps
 * open (VS Code), with the outbox and ledger it drains and shows.
 */
export type CheckpointPlace =
  | { kind: 'folder'; cwd: string; env?: NodeJS.ProcessEnv; /** Lines for a log or stderr, never the answer. */ note?: (line: string) => void }
  | { kind: 'open'; backend: BeadsBackend; outbox: Outbox; ledger: CheckpointLedger; /** The issue the caller's view focuses. */ focusedId?: string };

export interface CheckpointFlowOptions {
  signal?: AbortSignal;
  /** When the caller needs its answer (epoch ms): the flow stops waiting for beads before then. */
  deadline: number;
  now?: () => number;
}

export type CheckpointOutcome = 'written' | 'queued' | 'nothing-new' | 'failed';

/**
 * Why nothing was written, when that is the request's own fault rather than beads': `not-beads`
 * (no `.beads` around the folder) and `no-issue` (nothing in progress) are answers, not errors.
 */
export type CheckpointFailure = 'not-beads' | 'no-issue' | 'refused' | 'error';

export interface CheckpointFlowResult {
  outcome: CheckpointOutcome;
  /** One line for a person or an agent: what happened, and why. */
  reason: string;
  /** For `failed`: whose fault it is. */
  failure?: CheckpointFailure;
  issueId?: string;
  key?: string;
  /** The comment written or queued. */
  comment?: string;
  /** What else the caller should pass on: earlier writes sent or still queued. */
  notes: string[];
  /** How many values of each kind the comment had masked before it went to beads (never the values). */
  masked?: MaskedCounts;
}

/** Part of the time left that is kept for closing files and answering. */
const ANSWER_RESERVE_MS = 250;

/** Runs one checkpoint from request to answer; never throws (a failure is an outcome with its reason). */
export async function runCheckpoint(request: CheckpointFlowRequest, options: CheckpointFlowOptions): Promise<CheckpointFlowResult> {
  const now = (options.now ?? Date.now)();
  try {
    if (request.place.kind === 'open') {
      const { backend, outbox, ledger, focusedId } = request.place;
      return await checkpointOn({ backend, outbox, ledger, focusedId }, request, options, now);
    }
    return await checkpointInFolder(request.place, request, options, now);
  } catch (error) {
    return failed('error', `no checkpoint written: ${errorMessage(error)}`);
  }
}

async function checkpointInFolder(place: FolderPlace, request: CheckpointFlowRequest, options: CheckpointFlowOptions, now: number): Promise<CheckpointFlowResult> {
  const opened = await openFolder(place, options.signal);
  if (opened.kind === 'none') return failed('not-beads', 'not a beads project (no .beads directory); no checkpoint written.');
  try {
    const { backend, outbox, detection, repository, timeoutMs } = opened;
    if (!outbox && backend.readOnly) {
      return failed('error', `${detection.kind === 'readonly' ? detection.message : ''} Outside git there is no queue to keep it in; no checkpoint written.`);
    }
    const env = place.env ?? process.env;
    const note = place.note ?? (() => undefined);
    const sessions = repository
      ? new AgentSessionsStore({ file: path.join(repository.gitDir, LEDGER_DIR, 'sessions.json'), root: repository.root }, { onDamage: (report) => note(describeDamage('agent sessions', report)) })
      : undefined;
    const whose: SessionPlace = {
      identity: request.session,
      actor: { dialect: detection.cli, beadsDir: detection.beadsDir, folder: path.resolve(place.cwd), env, flag: request.actor, timeoutMs, signal: options.signal },
      store: sessions,
      env,
      note,
    };
    // Where this machine keeps the session's thread when its destination is local.
    const kept = repository ? new LocalThreadsStore(repository.gitDir, { onDamage: (report) => note(describeDamage('threads kept on this machine', report)) }) : undefined;
    const result = await checkpointOn({ ...opened, folder: path.resolve(place.cwd), whose, keptThreads: kept, readOnlyReads: () => readOnlyReads(detection) }, request, options, now);
    const masked = result.masked && describeMasked(result.masked);
    if (masked) note(`${masked} in the checkpoint before it went to beads.`);
    return result;
  } finally {
    opened.close();
  }
}

export type FolderPlace = Extract<CheckpointPlace, { kind: 'folder' }>;

/** A beads project opened from a folder: its backend, and the ledger and outbox beside it in the git directory. */
export type OpenedFolder =
  | { kind: 'none' }
  | {
      kind: 'project';
      detection: Exclude<Detection, { kind: 'none' }>;
      backend: BeadsBackend;
      /** Undefined outside git: no place to keep a queue. */
      outbox: Outbox | undefined;
      ledger: LedgerStore | undefined;
      repository: GitRepository | undefined;
      gitRoot: string | undefined;
      timeoutMs: number;
      /** Why writes go straight to beads, without the queue (its folder cannot be written). */
      direct?: string;
      close(): void;
    };

/**
 * Opens the beads project that contains the folder the way every process outside VS Code does
 * (the checkpoint flow, `beads-recovery retry`): settings from the environment, the ledger and
 * the outbox VS Code shares, every landing counted in the ledger. `close()` when done.
 */
export async function openFolder(place: FolderPlace, signal?: AbortSignal): Promise<OpenedFolder> {
  const note = place.note ?? (() => undefined);
  const settings = folderSettings(place.env);
  const { timeoutMs } = settings;
  const detection = await detectFolder(place.cwd, settings, { signal });
  if (detection.kind === 'none') return { kind: 'none' };
  // Without a working CLI (missing, hanging, locked at `where`), the checkpoint is still worked
  // out from .beads/issues.jsonl and queued: the next process that can write sends it.
  if (detection.kind === 'readonly') note(detection.message);
  const backend = detection.backend;
  const gitOptions: GitOptions = { timeoutMs, signal };
  // This work tree's ledger and sessions, also where a `.beads/redirect` shares another checkout's store.
  const location = await locateLedger(path.resolve(place.cwd), undefined, gitOptions);
  const damaged = (what: string) => (report: DamageReport) => note(describeDamage(what, report));
  // A folder nothing can be written to (permissions, a file in its place) would make every write
  // wait for a lock it cannot take: asked once, up front, and then the write goes straight to beads.
  const stateDir = location ? path.dirname(location.file) : undefined;
  const unwritable = stateDir ? await unwritableFolder(stateDir) : undefined;
  if (unwritable) note(`${stateDir} cannot be written (${unwritable}), so there is no ledger or queue this time: the checkpoint goes straight to beads.`);
  const kept = unwritable ? undefined : location;
  let ledger = kept ? new LedgerStore(kept.file, { onDamage: damaged('ledger') }) : undefined;
  try {
    await ledger?.load();
  } catch (error) {
    note(`the ledger could not be read, so the checkpoint goes on without it: ${errorMessage(error)}`);
    ledger?.dispose();
    ledger = undefined;
  }
  const outbox = kept ? new Outbox({ file: path.join(path.dirname(kept.file), 'outbox.json'), root: backend.root, backend, onDamage: damaged('queue of beads writes') }) : undefined;
  // Whatever this run lands — its own checkpoint or one an earlier process queued — the ledger counts.
  if (outbox) markCheckpointsOnLanding(outbox, () => ledger);
  return {
    kind: 'project',
    detection,
    backend,
    outbox,
    ledger,
    repository: location?.repository,
    gitRoot: location?.repository?.root,
    timeoutMs,
    ...(unwritable ? { direct: `${stateDir} cannot be written: ${unwritable}` } : {}),
    close: () => {
      outbox?.dispose();
      ledger?.dispose();
    },
  };
}

/** Why nothing can be written in `dir` (it is created when missing), or undefined when it can. */
async function unwritableFolder(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) return 'it is not a folder';
    await access(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** The store's own file, read without any process: what a typed checkpoint falls back on when the CLI cannot read. */
async function readOnlyReads(detection: Exclude<Detection, { kind: 'none' }>): Promise<BeadsBackend> {
  if (detection.kind === 'readonly') return detection.backend;
  return createJsonlBackend({ root: detection.backend.root, beadsDir: detection.beadsDir, jsonlPath: await jsonlPathOf(detection.beadsDir), dialect: detection.cli });
}

interface OpenProject {
  backend: BeadsBackend;
  /** The session's folder, which personal paths are made relative to; the project's root by default. */
  folder?: string;
  outbox: Outbox | undefined;
  ledger: CheckpointLedger | undefined;
  focusedId?: string;
  /** Outside VS Code: the repository whose log and status add to the ledger's activity. */
  gitRoot?: string;
  timeoutMs?: number;
  /** Reads without the CLI (the store's file), for when the CLI cannot read. */
  readOnlyReads?: () => Promise<BeadsBackend>;
  /** Outside VS Code: who asks, and where the work tree's sessions are kept. */
  whose?: SessionPlace;
  /** Why there is no queue although there is a repository: its folder cannot be written. */
  direct?: string;
  /** Outside VS Code, in git: where this machine keeps a session's thread whose destination is local. */
  keptThreads?: LocalThreadsStore;
}

/** Outside VS Code: the session that asks, how its actor is found, and the work tree's sessions. */
interface SessionPlace {
  identity?: SessionIdentity;
  actor: ActorLookup;
  store?: AgentSessionsStore;
  /** The environment the idle and live limits and the thread's destination are read from. */
  env: NodeJS.ProcessEnv;
  note: (line: string) => void;
}

/**
 * One checkpoint on an open project, in three steps (docs/ARCHITECTURE.md §4, "Gather, decide,
 * write"): every fact is gathered first, a pure function decides, and one step writes. Before
 * them, the writes earlier runs left queued are sent: they are those runs' writes, not this one's,
 * and once landed they start this checkpoint's window, so they go before anything is read.
 */
async function checkpointOn(project: OpenProject, request: CheckpointFlowRequest, options: CheckpointFlowOptions, now: number): Promise<CheckpointFlowResult> {
  const queuedBefore = await sendQueued(project.outbox, options.signal);
  const gathered = await gatherCheckpointFacts(project, request, options, now);
  const decision = decideCheckpoint(gathered.facts);
  return writeCheckpoint(project, decision, gathered, options, queuedBefore);
}

/** The facts a checkpoint is decided from, and what the write step records of them. */
interface GatheredFacts {
  facts: CheckpointFacts;
  /** What the transcripts showed (this session's and the other live ones'), for the sessions' file. */
  sessionsChange?: (state: AgentSessionsState) => AgentSessionsState;
  /** Reads that went to the store's file instead of the CLI. */
  notes: string[];
}

/**
 * Every fact, read before anything is decided, side by side where one does not need another:
 * the actor, the sessions (with what this session's transcript shows) and the issues in progress;
 * then the other live sessions and beads' details of the issues the decision may choose; then git
 * since the earliest of their windows. Nothing is written here.
 */
async function gatherCheckpointFacts(project: OpenProject, request: CheckpointFlowRequest, options: CheckpointFlowOptions, now: number): Promise<GatheredFacts> {
  const { backend, outbox, ledger, whose } = project;
  const { signal } = options;
  const notes: string[] = [];
  /**
   * Reads go to the CLI until one fails (missing, hanging, locked, garbled); from then on to the
   * store's own file, when there is one, and the checkpoint is still worked out and queued: the
   * write is durable whatever the reads did, and typed words are never lost to a read.
   */
  let reads = backend;
  const read = async <T>(what: string, query: (from: BeadsBackend) => Promise<T>): Promise<T> => {
    const from = reads;
    try {
      return await query(from);
    } catch (error) {
      if (isCanceled(error) || signal?.aborted || from !== backend || !project.readOnlyReads) throw error;
      if (reads === backend) reads = await project.readOnlyReads();
      notes.push(`(beads could not ${what}: ${errorMessage(error)}; read from .beads instead.)`);
      return query(reads);
    }
  };
  const issueId = request.issueId ?? project.focusedId;
  const [thread, actor, sessions, inProgress] = await Promise.all([
    'trigger' in request.ask && request.thread ? request.thread().catch(() => undefined) : undefined,
    whose ? actorFor(whose.actor) : undefined,
    whose ? observedSessions(whose, now) : undefined,
    issueId ? undefined : read('list the issues in progress', (from) => from.listInProgress(signal)),
  ]);
  const state = sessions?.state;
  // Beads' details where VS Code's ledger does not count the window itself: of the issue asked for, else of each the decision may choose.
  const detailIds = project.gitRoot !== undefined || !ledger ? (issueId ? [issueId] : (inProgress ?? []).map((issue) => issue.id)) : undefined;
  const [others, details] = await Promise.all([
    // Another live session's issue is never this session's checkpoint's.
    whose?.identity && state && !issueId ? readLiveSessions(whose.store, state, whose.identity, { now, env: whose.env }).catch(() => undefined) : undefined,
    detailIds === undefined ? undefined : detailIds.length === 0 ? [] : read(`read ${detailIds.join(', ')}`, (from) => from.show(detailIds, signal)),
  ]);
  const facts: CheckpointFacts = {
    now,
    ask: thread && thread.length > 0 && 'trigger' in request.ask ? { ...request.ask, thread } : request.ask,
    ...(issueId === undefined ? {} : { issueId }),
    ...(inProgress ? { inProgress } : {}),
    ...(ledger ? { ledger: ledger.state } : {}),
    ...(details ? { details } : {}),
    ...(outbox?.cliClockOffsetMs === undefined ? {} : { cliOffsetMs: outbox.cliClockOffsetMs }),
    ...(whose ? { session: { identity: whose.identity, actor, state, live: others?.live } } : {}),
    // Where the session's thread goes: the setting VS Code wrote beside the sessions, or BEADS_RECOVERY_THREAD.
    ...(whose ? { threadDestination: threadDestinationOf(state, whose.env, whose.note) } : {}),
  };
  const from = project.gitRoot !== undefined && details ? gitReadFrom(facts) : undefined;
  const gitOptions: GitOptions = { timeoutMs: project.timeoutMs ?? 10_000, signal };
  if (project.gitRoot !== undefined && from !== undefined) facts.git = await gitRecords(project.gitRoot, from, gitOptions);
  const changes = [sessions?.change, others?.change].filter((change) => change !== undefined);
  return { facts, notes, ...(changes.length > 0 ? { sessionsChange: (current) => changes.reduce((next, change) => change(next), current) } : {}) };
}

/** The sessions as they read with what this session's transcript shows, and that as a change to record. */
async function observedSessions(whose: SessionPlace, now: number): Promise<{ state: AgentSessionsState; change?: (state: AgentSessionsState) => AgentSessionsState } | undefined> {
  const { store, identity } = whose;
  if (!store) return undefined;
  try {
    const [state, change] = await Promise.all([store.read(), identity ? sessionObservation(store, identity, { now, env: whose.env }) : undefined]);
    return { state: change ? change(state) : state, ...(change ? { change } : {}) };
  } catch (error) {
    whose.note(`the agent sessions could not be read, so the checkpoint cannot tell whose work is whose: ${errorMessage(error)}`);
    return undefined;
  }
}

/**
 * The one write step: the sessions' file (what the transcripts showed, the bindings that ended,
 * one change under its lock), the one redaction step, the thread kept on this machine, the
 * comment queued and sent (or sent directly), and the ledger; then the answer.
 */
async function writeCheckpoint(project: OpenProject, decision: CheckpointDecision, gathered: GatheredFacts, options: CheckpointFlowOptions, queuedBefore: number): Promise<CheckpointFlowResult> {
  const { backend, outbox, ledger, whose } = project;
  const notes = [...earlierWrites(outbox, queuedBefore), ...gathered.notes];
  const endings = decision.endBindings;
  const sessionsChange = gathered.sessionsChange;
  if (whose?.store && (sessionsChange || endings)) {
    await whose.store
      .update((state) => {
        const observed = sessionsChange ? sessionsChange(state) : state;
        return endings ? endBindings(observed, endings) : observed;
      })
      .catch((error: unknown) => whose.note(`the agent sessions could not be written: ${errorMessage(error)}`));
  }
  if (decision.kind === 'no-issue') return failed('no-issue', decision.reason, notes);
  const { issueId, thread } = decision;
  const now = gathered.facts.now;
  const places = pathPlaces(project.folder ?? backend.root);
  // The one redaction step before beads (src/services/redaction.ts): typed, automatic,
  // pre-compaction, MCP and language-model tool checkpoints all come through here.
  const redacted = decision.kind === 'write' ? await redactText(decision.enqueue.text, places) : undefined;
  const threadWord = thread.destination === 'beads' ? '' : await keepThreadLocally(thread, project.keptThreads, { issueId, at: now, shared: redacted?.text, places });
  if (decision.kind === 'nothing-new' || !redacted) {
    const since = decision.kind === 'nothing-new' ? decision.lastCheckpointAt : undefined;
    const age = since === undefined ? '' : ` (${formatAge(since, now)})`;
    return { outcome: 'nothing-new', issueId, reason: `nothing new on ${issueId} since the last checkpoint${age}; no checkpoint written.${threadWord}`, notes };
  }
  const { key } = decision.enqueue;
  const { text: comment, masked } = redacted;
  const write: CommentWrite = { ...decision.enqueue, text: comment };
  const result = outbox ? await writeThroughOutbox(outbox, write, options) : await writeDirectly(backend, write, withDeadline(options));
  const firstLine = comment.split('\n')[0] ?? comment;
  // Told once this write is done: the drain that sent it may have sent the earlier ones too.
  const base = { issueId, key, comment, notes: [...earlierWrites(outbox, queuedBefore, key), ...gathered.notes, ...parkedNotes(outbox)], ...(Object.keys(masked).length > 0 ? { masked } : {}) };
  if (result.state === 'failed') return { ...base, outcome: 'failed', failure: result.refused ? 'refused' : 'error', reason: `could not write the checkpoint on ${issueId}: ${result.why}${threadWord}` };
  // Counted (by the outbox's landing) only once it landed: a queued checkpoint must not make the next run "nothing new".
  if (result.state === 'queued') return { ...base, outcome: 'queued', reason: `checkpoint for ${issueId} queued (${result.why}); it will be written when beads answers: ${firstLine}${threadWord}` };
  // Landed earlier (the key was done before this run, the landing unreported) or without an outbox: noted here.
  if (result.landedBefore || !outbox) await ledger?.markCheckpoint(issueId, now);
  const how = project.direct ? ` directly (${project.direct})` : '';
  return { ...base, outcome: 'written', reason: `checkpoint written on ${issueId}${how}: ${firstLine}${threadWord}` };
}

/**
 * `local`: the checkpoint as it reads with the thread is kept on this machine (redacted all the
 * same), beside the comment that went to beads without it; `off`: it is kept nowhere. Returns the
 * words the answer ends with.
 */
async function keepThreadLocally(
  thread: Exclude<ThreadDecision, { destination: 'beads' }>,
  kept: LocalThreadsStore | undefined,
  entry: { issueId: string; at: number; shared: string | undefined; places: PathPlaces },
): Promise<string> {
  if (thread.destination === 'off') return " The session's thread was left out (beadsRecovery.thread.destination: off).";
  const planned = thread.full;
  if (!kept || !planned) return " The session's thread was left out: outside git there is no place on this machine to keep it.";
  try {
    const { text } = await redactText(planned.comment, entry.places);
    await kept.keep({ issueId: entry.issueId, at: entry.at, full: text, ...(entry.shared === undefined ? {} : { shared: entry.shared }) });
    return " The session's thread was kept on this machine only (beadsRecovery.thread.destination: local).";
  } catch (error) {
    return ` The session's thread was left out: it could not be kept on this machine (${errorMessage(error)}).`;
  }
}

type WriteResult = { state: 'written'; landedBefore?: boolean } | { state: 'queued'; why: string } | { state: 'failed'; why: string; refused?: boolean };

/**
 * Through the outbox every process drains: the write is durable before the CLI runs, a key already
 * queued or written is not written again, only the holder of the outbox's lease sends, and every
 * write still queued (by this process or an earlier one) is tried too.
 */
async function writeThroughOutbox(outbox: Outbox, write: BeadsWrite, options: CheckpointFlowOptions): Promise<WriteResult> {
  const { key } = write;
  if (outbox.landedAlready(write)) return { state: 'written', landedBefore: true };
  await outbox.enqueue(write);
  if (!outbox.canSend) return { state: 'queued', why: 'the beads CLI is not available' };
  await outbox.sendDue();
  // Untried: another drainer (a VS Code window, another hook) holds the queue, or an earlier write
  // to the issue waits out its backoff (writes to one issue land in order). Wait while that can
  // end before the deadline; past it, the answer is "queued" now rather than at the deadline.
  const ahead = writesAhead(outbox, write);
  const mine = outbox.pending.find((entry) => entry.write.key === key);
  if (mine?.attempts === 0) {
    const dueAt = Math.max(mine.nextAttemptAt, ...ahead.map((entry) => entry.nextAttemptAt));
    if (dueAt < options.deadline - ANSWER_RESERVE_MS) await outbox.drain(withDeadline(options), [key]);
  }
  switch (outbox.status(key)) {
    case 'done':
      return { state: 'written' };
    case 'failed':
      return { state: 'failed', refused: true, why: outbox.failed.find((entry) => entry.write.key === key)?.error ?? 'beads refused it' };
    default: {
      const own = outbox.pending.find((entry) => entry.write.key === key)?.lastError;
      const blocking = writesAhead(outbox, write).find((entry) => entry.lastError !== undefined);
      const why = own ?? (blocking ? `an earlier write to ${write.issueId} waits for beads: ${blocking.lastError}` : 'beads did not answer in time');
      return { state: 'queued', why };
    }
  }
}

/** The writes to the same issue queued before `write`: it lands after them. */
function writesAhead(outbox: Outbox, write: BeadsWrite): PendingWrite[] {
  const pending = outbox.pending;
  const index = pending.findIndex((entry) => entry.write.key === write.key);
  return pending.slice(0, index < 0 ? pending.length : index).filter((entry) => entry.write.issueId === write.issueId);
}

/**
 * Writes beads refused stay parked until someone sends them again; every answer says so, with
 * how (`beads-recovery retry --parked`, or Retry Pending Writes in VS Code).
 */
export function parkedNotes(outbox: Outbox | undefined): string[] {
  const parked = outbox?.failed ?? [];
  if (parked.length === 0) return [];
  const last = parked.at(-1);
  return [
    `${parked.length} write(s) were refused by beads and wait for you (last: ${last ? describeWrite(last.write) : ''}: ${last?.error ?? ''}); 'beads-recovery retry --parked' or VS Code's Beads: Retry Pending Writes sends them again.`,
  ];
}

/**
 * The outbox beside a ledger file, read without sending anything: `parkedNotes` for stderr, and
 * the comments not in beads for the context to show with their words.
 */
export async function outboxBeside(ledgerFile: string, root: string): Promise<{ notes: string[]; unsent: UnsentComment[] }> {
  const outbox = new Outbox({ file: path.join(path.dirname(ledgerFile), 'outbox.json'), root });
  try {
    await outbox.load();
    return { notes: parkedNotes(outbox), unsent: unsentComments(outbox) };
  } finally {
    outbox.dispose();
  }
}

/** The comments of this project that are not in beads, oldest first: refused by beads (parked), or queued and why. */
export function unsentComments(outbox: Outbox): UnsentComment[] {
  const refused = outbox.failed.flatMap((entry): UnsentComment[] =>
    entry.write.kind === 'comment' ? [{ issueId: entry.write.issueId, state: 'refused', text: entry.write.text, at: entry.failedAt, why: `beads said: ${entry.error}` }] : [],
  );
  const queued = outbox.pending.flatMap((entry): UnsentComment[] =>
    entry.write.kind === 'comment' ? [{ issueId: entry.write.issueId, state: 'queued', text: entry.write.text, at: entry.enqueuedAt, why: whyQueued(outbox, entry) }] : [],
  );
  return [...refused, ...queued].sort((a, b) => a.at - b.at);
}

/** Why a queued write is not in beads yet: its own last failure, an earlier write of its issue it waits behind, or no try yet. */
function whyQueued(outbox: Outbox, entry: PendingWrite): string {
  const failed = (because: PendingWrite) => `${because.lastReason ? describeDecision({ action: 'retry', reason: because.lastReason, at: because.nextAttemptAt, mayHaveLanded: false, counted: true }) : 'the beads CLI failed'}${because.lastError ? ` (${because.lastError})` : ''}`;
  if (entry.lastError !== undefined) return `${failed(entry)}, ${entry.attempts} ${entry.attempts === 1 ? 'try' : 'tries'} so far`;
  const blocking = writesAhead(outbox, entry.write).find((other) => other.lastError !== undefined);
  if (blocking) return `it waits behind an earlier write to ${entry.write.issueId}: ${failed(blocking)}`;
  return 'not sent yet';
}

/** Sends what earlier runs left queued and is due; how many were queued before. */
async function sendQueued(outbox: Outbox | undefined, signal?: AbortSignal): Promise<number> {
  if (!outbox) return 0;
  await outbox.load();
  const before = outbox.pendingCount;
  if (before > 0 && outbox.canSend && !signal?.aborted) await outbox.sendDue();
  return before;
}

/**
 * What became of the `queuedBefore` writes earlier runs left queued, as it stands now: sent, or
 * still queued (this run's own write, `ownKey`, is told on its own).
 */
function earlierWrites(outbox: Outbox | undefined, queuedBefore: number, ownKey?: string): string[] {
  if (!outbox || queuedBefore === 0) return [];
  const after = outbox.pending.filter((entry) => entry.write.key !== ownKey).length;
  const sent = Math.max(0, queuedBefore - after);
  return [...(sent > 0 ? [`Sent ${sent} queued write(s).`] : []), ...(after > 0 ? [`${after} write(s) still queued.`] : [])];
}

/**
 * Straight to beads, when no outbox can be kept (the state folder cannot be written). With no
 * outbox to remember a key, the issue's own comments say whether the same words already landed:
 * a retry after a timeout, a second hook file, still lands once. It sends through the drainer's
 * one sending code (sendWrite).
 */
async function writeDirectly(backend: BeadsBackend, write: CommentWrite, signal?: AbortSignal): Promise<WriteResult> {
  try {
    // A read that fails decides nothing: the write goes ahead, as it did before this check.
    const [details] = await backend.show([write.issueId], signal).catch(() => []);
    if (details && alreadyOnIssue(details.comments ?? [], write.text, write.checkpointAt ?? Date.now(), write.sameWithinMs)) return { state: 'written', landedBefore: true };
    await sendWrite(backend, write, signal);
    return { state: 'written' };
  } catch (error) {
    return { state: 'failed', why: errorMessage(error) };
  }
}

/** The caller's signal, aborted also when its time is up (less a moment to answer). */
function withDeadline(options: CheckpointFlowOptions): AbortSignal {
  const left = AbortSignal.timeout(Math.max(0, options.deadline - Date.now() - ANSWER_RESERVE_MS));
  return options.signal ? AbortSignal.any([options.signal, left]) : left;
}

function failed(failure: CheckpointFailure, reason: string, notes: string[] = []): CheckpointFlowResult {
  return { outcome: 'failed', failure, reason, notes };
}
