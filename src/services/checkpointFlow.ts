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
import { alreadyOnIssue, checkpointWindowStart, latestCheckpointAt, onOurClock, type CheckpointActivity } from '../core/checkpoint';
import { errorMessage } from '../core/errors';
import { formatAge } from '../core/time';
import type { GitRepository } from '../git/repo';
import type { GitOptions } from '../git/runGit';
import { activityOf, checkpointWrite, markCheckpointsOnLanding, type CheckpointLedger, type CheckpointRequest, type PlannedCheckpoint } from './checkpoints';
import { describeDamage, type DamageReport } from './durableJson';
import { gitActivity, uniqueCommits } from './gitActivity';
import { locateLedger, LedgerStore } from './ledgerStore';
import { ledgerOf } from '../core/ledger';
import { detectFolder, folderSettings } from './folderSettings';
import { describeWrite, Outbox, type PendingWrite } from './outbox';
import { describeDecision } from '../core/outboxPolicy';
import type { UnsentComment } from '../core/recovery';
import { sendWrite } from './outboxDrainer';
import { chooseFocus } from './snapshot';
import { attributeWork, bindingsOf, endBindings, othersWork, ownWork, sessionKey, type AgentSessionsState, type SessionIdentity } from '../core/agentSessions';
import { chooseSessionIssue, type Actor } from '../core/sessionIssue';
import { actorFor } from './actor';
import { AgentSessionsStore, liveSessions, observeSession, threadDestinationOf } from './agentSessions';
import { LocalThreadsStore } from './localThreads';
import type { ThreadDestination } from '../core/threadDestination';
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
    const { signal } = options;
    const sessions = repository
      ? new AgentSessionsStore({ file: path.join(repository.gitDir, LEDGER_DIR, 'sessions.json'), root: repository.root }, { onDamage: (report) => note(describeDamage('agent sessions', report)) })
      : undefined;
    const [actor, sessionState] = await Promise.all([
      actorFor({ dialect: detection.cli, beadsDir: detection.beadsDir, folder: path.resolve(place.cwd), env, flag: request.actor, timeoutMs, signal }),
      sessions
        ? (request.session ? observeSession(sessions, request.session, { now, env }) : sessions.read()).catch((error: unknown) => {
            note(`the agent sessions could not be read, so the checkpoint cannot tell whose work is whose: ${errorMessage(error)}`);
            return undefined;
          })
        : undefined,
    ]);
    const whose: SessionFacts = { identity: request.session, actor, state: sessionState, store: sessions, env };
    // Where the session's thread goes: the setting VS Code wrote beside the sessions, or BEADS_RECOVERY_THREAD.
    const thread: ThreadPlace = { destination: threadDestinationOf(sessionState, env, note), kept: repository ? new LocalThreadsStore(repository.gitDir, { onDamage: (report) => note(describeDamage('threads kept on this machine', report)) }) : undefined };
    const result = await checkpointOn({ ...opened, folder: path.resolve(place.cwd), whose, thread, readOnlyReads: () => readOnlyReads(detection) }, request, options, now);
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
  /** Outside VS Code: who asks, and what the work tree's sessions did. */
  whose?: SessionFacts;
  /** Why there is no queue although there is a repository: its folder cannot be written. */
  direct?: string;
  /** Where the session's thread goes; into beads by default. */
  thread?: ThreadPlace;
}

/** Where the session's thread goes, and (outside VS Code, in git) where this machine keeps it. */
interface ThreadPlace {
  destination: ThreadDestination;
  kept?: LocalThreadsStore;
}

interface SessionFacts {
  identity?: SessionIdentity;
  actor?: Actor;
  state?: AgentSessionsState;
  store?: AgentSessionsStore;
  /** The environment the live limit is read from. */
  env?: NodeJS.ProcessEnv;
}



async function checkpointOn(project: OpenProject, request: CheckpointFlowRequest, options: CheckpointFlowOptions, now: number): Promise<CheckpointFlowResult> {
  const { backend, outbox, ledger } = project;
  const { signal } = options;
  // First what earlier runs left queued: once landed, those checkpoints start this one's window.
  const earlier = await sendQueued(outbox, signal);
  /**
   * Reads go to the CLI until one fails (missing, hanging, locked, garbled); from then on to the
   * store's own file, when there is one, and the checkpoint is still worked out and queued: the
   * write is durable whatever the reads did, and typed words are never lost to a read.
   */
  let reads = backend;
  const read = async <T>(what: string, query: (from: BeadsBackend) => Promise<T>): Promise<T> => {
    try {
      return await query(reads);
    } catch (error) {
      if (isCanceled(error) || signal?.aborted || reads !== backend || !project.readOnlyReads) throw error;
      reads = await project.readOnlyReads();
      earlier.push(`(beads could not ${what}: ${errorMessage(error)}; read from .beads instead.)`);
      return query(reads);
    }
  };
  const whose = project.whose;
  let issueId = request.issueId ?? project.focusedId;
  /** The issue unclaimed work follows: the folder's focus while in progress, else the newest. */
  let folderFocus = issueId;
  if (!issueId) {
    const inProgress = await read('list the issues in progress', (from) => from.listInProgress(signal));
    folderFocus = chooseFocus(inProgress, ledger?.state.focusedId);
    const bindings = whose?.identity ? bindingsOf(whose.state?.sessions[sessionKey(whose.identity)]) : [];
    const choice = chooseSessionIssue({
      inProgress,
      binding: bindings.find((id) => inProgress.some((issue) => issue.id === id)) ?? bindings[0],
      actor: whose?.actor,
      focusedId: ledger?.state.focusedId,
      // Another live session's issue is never this session's checkpoint's.
      liveSessions: whose?.identity ? await liveSessions(whose.store, whose.state, whose.identity, { now, env: whose.env }).catch(() => undefined) : undefined,
    });
    issueId = choice.issueId;
    if (choice.bindingEnded && whose?.store) await whose.store.update((state) => endBindings(state, inProgress.map((issue) => issue.id))).catch(() => undefined);
    if (!issueId && choice.heldByLive.length > 0) {
      const held = choice.heldByLive.map((entry) => `${entry.issueId} (${entry.agent})`).join(', ');
      return failed('no-issue', `every in-progress issue this session could take is held by another live session: ${held}; no checkpoint written.`, earlier);
    }
    if (!issueId && choice.heldByOthers > 0) return failed('no-issue', `every in-progress issue is held by an actor other than ${whose?.actor?.name ?? 'this one'}; no checkpoint written.`, earlier);
  }
  if (!issueId) return failed('no-issue', 'no issue is in progress; no checkpoint written.', earlier);

  const recorded = (ledger ? ledgerOf(ledger.state, issueId) : undefined);
  const fromLedger = recorded ? activityOf(recorded) : undefined;
  let activity: CheckpointActivity = fromLedger ?? { issueId, files: [], commits: [], edits: 0 };
  if (project.gitRoot !== undefined || !ledger) {
    const [details] = await read(`read ${issueId}`, (from) => from.show([issueId], signal));
    const since = checkpointWindowStart(
      {
        ledgerCheckpointAt: recorded?.lastCheckpointAt,
        ledgerStartedAt: recorded?.startedAt,
        comments: details?.comments ?? [],
        claimedAt: details?.startedAt,
        updatedAt: details?.updatedAt,
        createdAt: details?.createdAt,
        cliOffsetMs: outbox?.cliClockOffsetMs,
      },
      now,
    );
    const gitOptions: GitOptions = { timeoutMs: project.timeoutMs ?? 10_000, signal };
    const fromGit = project.gitRoot !== undefined && since !== undefined ? await gitActivity(project.gitRoot, since, gitOptions) : { files: [], commits: [] };
    activity = {
      issueId,
      // The ledger's files first: they come most recently touched first.
      files: [...new Set([...(fromLedger?.files ?? []), ...fromGit.files])],
      commits: uniqueCommits([...(fromLedger?.commits ?? []), ...fromGit.commits]),
      // Index for index with the ledger's files, which lead the list.
      fileEdits: fromLedger?.fileEdits,
      edits: fromLedger?.edits,
      lastCheckpointAt: since,
      // No checkpoint yet: the window opened at the claim ("since claimed …") or at the issue's own last change, never "the last checkpoint".
      ...(since !== undefined && recorded?.lastCheckpointAt === undefined && latestCheckpointAt(details?.comments ?? [], now, outbox?.cliClockOffsetMs) === undefined
        ? since === onOurClock(details?.startedAt, now, outbox?.cliClockOffsetMs)
          ? { sinceClaim: true }
          : since === recorded?.startedAt
            ? { recordingSince: since }
            : { sinceIssueChange: true }
        : {}),
    };
    if (whose?.state) activity = attributed(activity, whose, issueId === folderFocus, since);
  }

  // The session's thread goes into the comment only where the user lets it (README, "Where the thread goes").
  const ask = request.ask;
  const withThread = 'trigger' in ask && (ask.thread?.length ?? 0) > 0;
  const destination = withThread ? (project.thread?.destination ?? 'beads') : 'beads';
  const planned = checkpointWrite(activity, destination === 'beads' || !('trigger' in ask) ? ask : { trigger: ask.trigger }, now);
  const places = pathPlaces(project.folder ?? backend.root);
  // The one redaction step before beads (src/services/redaction.ts): typed, automatic,
  // pre-compaction, MCP and language-model tool checkpoints all come through here.
  const redacted = planned ? await redactText(planned.comment, places) : undefined;
  const threadWord = destination === 'beads' ? '' : await keepThreadLocally(destination, project.thread?.kept, () => checkpointWrite(activity, ask, now), { issueId, at: now, shared: redacted?.text, places });
  if (!planned || !redacted) {
    const since = activity.lastCheckpointAt;
    const age = since === undefined ? '' : ` (${formatAge(since, now)})`;
    return { outcome: 'nothing-new', issueId, reason: `nothing new on ${issueId} since the last checkpoint${age}; no checkpoint written.${threadWord}`, notes: earlier };
  }
  const { key } = planned;
  const { text: comment, masked } = redacted;
  const write: CommentWrite = {
    key,
    kind: 'comment',
    issueId,
    text: comment,
    checkpointAt: now,
    ...(planned.sameWithinMs === undefined ? {} : { sameWithinMs: planned.sameWithinMs }),
    // An automatic checkpoint records everything since the last one that landed: a later one covers it.
    ...('trigger' in request.ask ? { cumulative: true } : {}),
  };
  const result = outbox ? await writeThroughOutbox(outbox, write, options) : await writeDirectly(backend, write, withDeadline(options));
  const firstLine = comment.split('\n')[0] ?? comment;
  const base = { issueId, key, comment, notes: [...earlier, ...parkedNotes(outbox)], ...(Object.keys(masked).length > 0 ? { masked } : {}) };
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
  destination: Exclude<ThreadDestination, 'beads'>,
  kept: LocalThreadsStore | undefined,
  full: () => PlannedCheckpoint | undefined,
  entry: { issueId: string; at: number; shared: string | undefined; places: PathPlaces },
): Promise<string> {
  if (destination === 'off') return " The session's thread was left out (beadsRecovery.thread.destination: off).";
  const planned = full();
  if (!kept || !planned) return " The session's thread was left out: outside git there is no place on this machine to keep it.";
  try {
    const { text } = await redactText(planned.comment, entry.places);
    await kept.keep({ issueId: entry.issueId, at: entry.at, full: text, ...(entry.shared === undefined ? {} : { shared: entry.shared }) });
    return " The session's thread was kept on this machine only (beadsRecovery.thread.destination: local).";
  } catch (error) {
    return ` The session's thread was left out: it could not be kept on this machine (${errorMessage(error)}).`;
  }
}

/**
 * The activity as this session's checkpoint may name it: the session's own files and commits
 * since the last checkpoint, and what the folder recorded that no other session claims when the
 * issue is the folder's focus. Without a session (a person at a terminal), every session's claimed
 * work is still not this checkpoint's to name.
 */
function attributed(activity: CheckpointActivity, whose: SessionFacts, onFolderFocus: boolean, since: number | undefined): CheckpointActivity {
  const state = whose.state as AgentSessionsState;
  const own = ownWork(whose.identity ? state.sessions[sessionKey(whose.identity)] : undefined, since);
  // A session whose transcript was read knows its own files: what else changed is named apart, never as its work.
  const unclaimedApart = whose.identity?.transcript !== undefined;
  const work = attributeWork({ own, folder: { files: activity.files, commits: activity.commits }, others: othersWork(state, whose.identity, since), includeUnclaimed: onFolderFocus, unclaimedApart });
  const counts = new Map(activity.files.map((file, index) => [file, activity.fileEdits?.[index] ?? 1]));
  const fileEdits = work.files.map((file) => counts.get(file) ?? 1);
  const edits = activity.edits === undefined ? undefined : fileEdits.reduce((sum, count) => sum + count, 0);
  return { ...activity, files: work.files, commits: work.commits, fileEdits, edits, ...(work.alsoChanged.length > 0 ? { alsoChanged: work.alsoChanged } : {}) };
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

/** Sends what earlier runs left queued; says so when anything was or still is. */
async function sendQueued(outbox: Outbox | undefined, signal?: AbortSignal): Promise<string[]> {
  if (!outbox) return [];
  await outbox.load();
  const before = outbox.pendingCount;
  if (before === 0) return [];
  if (outbox.canSend && !signal?.aborted) await outbox.sendDue();
  const after = outbox.pendingCount;
  const sent = before - after;
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
