// Claim and close, the two interactive writes. Like every beads write they are queued in the
// outbox and sent by its drainer; the caller waits for the write's first answer, so the user hears
// at once whether it worked: a temporary failure (a locked database, a CLI that timed out or went
// missing) leaves it queued, and the user is told.
// Closing first says what would make the CLI refuse (open blockers, open children) and lets the
// user close anyway or stop; then lands what the issue still has to say (the commits linked since
// its last checkpoint, as a checkpoint; queued checkpoints), closes, and only once the close has landed writes `Files modified: …` and
// starts the ledger's counters again; then works out what comes next. A refusal leaves the
// issue, the ledger and the outbox as they were.

import type { BeadsBackend } from '../beads/backend';
import { CliError } from '../beads/errors';
import { commitHashesFromComments, filesFromComments, filesModifiedComment, textFingerprint, unnamedFilesInComments } from '../core/checkpoint';
import { closeObstaclesOf, readyItems, unblocksOf, type CloseObstacles, type ReadyItem } from '../core/graph';
import { isTerminal, summarize, type Dialect, type IssueDetails, type IssueSummary } from '../core/model';
import { nextAfterClose, type NextPick } from '../core/next';
import { buildContinuePrompt } from '../core/recovery';
import { runGit, type GitOptions } from '../git/runGit';
import type { PendingWrite, WriteAnswer } from './outbox';
import type { BeadsWrite } from './writeQueue';
import { trackedPathFilter } from '../core/ledger';
import { errorMessage } from '../core/errors';
import { addCounts, type MaskedCounts } from '../core/redact';
import { pathPlaces, redactText } from './redaction';

/** What claim and close need of the outbox. */
export interface WorkQueue {
  enqueue(write: BeadsWrite): Promise<void>;
  enqueueAndWait(write: BeadsWrite, signal?: AbortSignal): Promise<WriteAnswer>;
  drain(signal?: AbortSignal): Promise<void>;
  readonly pending: readonly PendingWrite[];
}

export type WriteOutcome = { state: 'written' } | { state: 'queued'; why: string };

/** A write beads refused or can never accept; its message is meant for the user. */
export class WorkRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkRefusedError';
  }
}

/**
 * How long a claim or close waits for its answer: beyond the CLI's own timeout (a write that may
 * have landed is checked before it is sent again, two CLI calls), it stays queued and is said so.
 */
const ANSWER_WAIT_MS = 60_000;

/**
 * Queues `write` in the outbox and waits for its first answer (`WorkQueue.enqueueAndWait`). A
 * temporary failure leaves it queued (same key: it lands once) and says why; a refusal throws
 * `WorkRefusedError` with the CLI's own words and keeps nothing.
 */
export async function writeNowOrQueue(backend: BeadsBackend, queue: WorkQueue, write: BeadsWrite, signal?: AbortSignal): Promise<WriteOutcome> {
  if (backend.readOnly) throw new WorkRefusedError(READ_ONLY_MESSAGE);
  const answer = await queue.enqueueAndWait(write, anySignal(signal, AbortSignal.timeout(ANSWER_WAIT_MS)));
  if (answer.state === 'refused') throw new WorkRefusedError(answer.why);
  return answer;
}

const READ_ONLY_MESSAGE =
  'This beads project is open read-only (no bd or br CLI was found): claiming, closing and checkpoints need the CLI. Install bd or br, or set beadsRecovery.cliPath.';

export interface CloseRequest {
  backend: BeadsBackend;
  queue: WorkQueue;
  issueId: string;
  reason: string;
  /** The CLI whose syntax the continue prompt teaches. */
  cli: Dialect;
  /** Files the ledger recorded for the issue since its last checkpoint. */
  ledgerFiles: readonly string[];
  /** Files the ledger counted beyond the ones it keeps by name. */
  ledgerMoreFiles?: number;
  /** Full hashes of the commits the ledger linked to the issue since its last checkpoint (no comment names them yet). */
  ledgerCommits?: readonly string[];
  /**
   * Queues a checkpoint that names the commits linked since the last one (`ledgerCommits`), which
   * are written nowhere else; called once the close is decided, before the queue is flushed, so
   * it lands before the close.
   */
  checkpointCommits?: () => Promise<unknown>;
  /** Files changed by commits, from git; absent outside a repository. */
  commitFiles?: (hashes: readonly string[]) => Promise<string[]>;
  /** How long to wait for the outbox to land what the issue still has to say before closing. */
  flushTimeoutMs: number;
  now: number;
  /** Close despite open blockers or open children (the CLI's `--force`), without asking. */
  force?: boolean;
  /**
   * Asked when the issue has open blockers or open children (and `force` is not set): true closes
   * anyway with `--force`, false stops (a canceled CliError). Without it the CLI decides.
   */
  confirmObstacles?: (obstacles: CloseObstacles) => Promise<boolean>;
  /**
   * Called once the close has landed, before the file list is written: the caller starts the
   * ledger's counters again there, so that the focus moving off the closed issue finds nothing
   * left to checkpoint. Never called when the close was refused or only queued.
   */
  onClosed?: () => Promise<void>;
  /** How many ready issues get details (parent, unblocks) for the offer. */
  readyDetails?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
}

export interface CloseOutcome {
  closed: IssueSummary;
  /** 'queued': beads could not be written now; the outbox will close it once it can. */
  state: 'closed' | 'queued';
  why?: string;
  /** The `Files modified: …` comment written (or queued) after the close, if there were files. */
  filesComment?: string;
  /** Issues this close left with no open blocker (they are in the ready queue now). */
  unblocked: IssueSummary[];
  /** The ready queue after the close, with parent and unblocks for the first few. */
  ready: ReadyItem[];
  /** The one next issue every surface offers (`nextAfterClose`); undefined when nothing claimable is ready. */
  next?: NextPick<IssueSummary>;
  /** `buildContinuePrompt` for an agent: what was unblocked, what is ready next. */
  continuePrompt?: string;
  /** How many values of each kind the reason and the file list had masked before they went to beads. */
  masked?: MaskedCounts;
}

const DEFAULT_READY_DETAILS = 5;

/**
 * Close with the file list and the offer of what comes next. Order on the issue: every
 * write already queued for it, then the close, then `Files modified: …`. If the earlier writes
 * cannot land now, the close is queued behind them, and the file list behind the close.
 */
export async function closeWithFiles(request: CloseRequest): Promise<CloseOutcome> {
  const { backend, queue, issueId, signal } = request;
  if (backend.readOnly) throw new WorkRefusedError(READ_ONLY_MESSAGE);
  const details = (await backend.show([issueId], signal)).find((issue) => issue.id === issueId);
  if (!details) throw new WorkRefusedError(`${issueId} was not found: it may have been deleted.`);
  if (isTerminal(details.status)) throw new WorkRefusedError(`${issueId} is already ${details.status}.`);
  const force = request.force === true || (await closeAnyway(details, request));

  const files = await issueFiles(details, request);
  // The one redaction step before beads (src/services/redaction.ts), as for every checkpoint.
  const places = pathPlaces(backend.root);
  const reason = await redactText(request.reason, places);
  // Files earlier checkpoints or the ledger only counted are said as a number, never dropped.
  const listed = filesModifiedComment(files, unnamedFilesInComments(details.comments) + (request.ledgerMoreFiles ?? 0));
  const listedRedacted = listed ? await redactText(listed, places) : undefined;
  const filesComment = listedRedacted?.text;
  const counts = addCounts(reason.masked, listedRedacted?.masked ?? {});
  const masked = Object.keys(counts).length > 0 ? { masked: counts } : {};
  // Keyed by content: closing again after a queued close does not list the same files twice.
  const filesWrite: BeadsWrite | undefined = filesComment ? { key: `files:${issueId}:${textFingerprint(filesComment)}`, kind: 'comment', issueId, text: filesComment } : undefined;
  if ((request.ledgerCommits?.length ?? 0) > 0) await request.checkpointCommits?.();
  await queue.drain(anySignal(signal, AbortSignal.timeout(request.flushTimeoutMs)));
  if (signal?.aborted) throw new CliError({ kind: 'canceled', command: 'close', args: [issueId] });

  const closeWrite: BeadsWrite = { key: `close:${issueId}:${request.now}`, kind: 'close', issueId, reason: reason.text, ...(force ? { force } : {}) };
  const closedSummary = { ...summarize(details), status: 'closed' };
  const queued = async (why: string): Promise<CloseOutcome> => {
    // The outbox keeps each issue's writes in order: the file list lands after the close.
    if (filesWrite) await queue.enqueue(filesWrite);
    return { closed: closedSummary, state: 'queued', why, filesComment, unblocked: [], ready: [], ...masked };
  };
  const stillQueued = queue.pending.filter((entry) => entry.write.issueId === issueId);
  if (stillQueued.length > 0) {
    await queue.enqueue(closeWrite);
    return queued(`${stillQueued.length} earlier write(s) for it could not land yet${stillQueued[0]?.lastError ? ` (${stillQueued[0].lastError})` : ''}`);
  }
  // A refusal throws here: nothing else is written and the counters stay as they are.
  const outcome = await writeNowOrQueue(backend, queue, closeWrite, signal);
  if (outcome.state === 'queued') return queued(outcome.why);

  await request.onClosed?.();
  if (filesWrite) await writeFileList(backend, queue, filesWrite, request);
  const next = await whatComesNext(backend, details, request);
  const continuePrompt = buildContinuePrompt({ closed: closedSummary, unblocked: next.unblocked, ready: next.ready, cli: request.cli }).markdown;
  const pick = nextAfterClose(issueId, next.unblocked.map((issue) => issue.id), next.ready.map((item) => summarize(item.issue)));
  return { closed: closedSummary, state: 'closed', filesComment, ...next, ...(pick ? { next: pick } : {}), continuePrompt, ...masked };
}

/**
 * What would make the CLI refuse to close `issueId` (open blockers, open children), read before the
 * user is asked anything: the close command says it first, then asks for a reason. Refuses an
 * issue that is gone, already closed, or in a read-only project.
 */
export async function closeObstaclesFor(backend: BeadsBackend, issueId: string, signal?: AbortSignal): Promise<CloseObstacles | undefined> {
  if (backend.readOnly) throw new WorkRefusedError(READ_ONLY_MESSAGE);
  const details = (await backend.show([issueId], signal)).find((issue) => issue.id === issueId);
  if (!details) throw new WorkRefusedError(`${issueId} was not found: it may have been deleted.`);
  if (isTerminal(details.status)) throw new WorkRefusedError(`${issueId} is already ${details.status}.`);
  return closeObstaclesOf(details);
}

/** Whether to close with `--force`: only when the issue has obstacles and the user said so; a no stops here. */
async function closeAnyway(details: IssueDetails, request: CloseRequest): Promise<boolean> {
  const obstacles = closeObstaclesOf(details);
  if (!obstacles || !request.confirmObstacles) return false;
  if (await request.confirmObstacles(obstacles)) return true;
  throw new CliError({ kind: 'canceled', command: 'close', args: [details.id] });
}

/** The file list after a close that landed; it cannot undo the close, so a failure is only logged. */
async function writeFileList(backend: BeadsBackend, queue: WorkQueue, write: BeadsWrite, request: CloseRequest): Promise<void> {
  try {
    const outcome = await writeNowOrQueue(backend, queue, write, request.signal);
    if (outcome.state === 'queued') request.log?.(`close: ${request.issueId} is closed; its file list is queued (${outcome.why})`);
  } catch (error) {
    if (error instanceof CliError && error.kind === 'canceled') throw error;
    request.log?.(`close: ${request.issueId} is closed, but its file list could not be written: ${errorMessage(error)}`);
  }
}

/**
 * The files touched while the issue was in progress: what the ledger holds now and the file lines
 * of earlier checkpoint comments (the ledger forgets its files at each checkpoint). Only when
 * neither recorded any (work done before the extension watched, or outside any watched folder)
 * do the files of its linked commits stand in: a commit may carry unrelated paths.
 */
async function issueFiles(details: IssueDetails, request: CloseRequest): Promise<string[]> {
  const files = new Set([...request.ledgerFiles, ...filesFromComments(details.comments)]);
  if (files.size > 0) return [...files];
  const hashes = [...new Set([...commitHashesFromComments(details.comments), ...(request.ledgerCommits ?? [])])];
  if (hashes.length > 0 && request.commitFiles) {
    // A commit also carries beads' own files and agent configuration: never the issue's work.
    const isWork = trackedPathFilter([]);
    try {
      for (const file of await request.commitFiles(hashes)) if (isWork(file)) files.add(file);
    } catch (error) {
      if (error instanceof CliError && error.kind === 'canceled') throw error;
      request.log?.(`close: could not list the files of ${details.id}'s commits: ${errorMessage(error)}`);
    }
  }
  return [...files];
}

/**
 * After the close: the ready queue (one process) and details of its first few items (one more).
 * "Unblocked" is what depended on the closed issue through a blocking type and is ready now.
 */
async function whatComesNext(backend: BeadsBackend, closed: IssueDetails, request: CloseRequest): Promise<{ unblocked: IssueSummary[]; ready: ReadyItem[] }> {
  try {
    const ready = await backend.listReady(request.signal);
    const dependents = new Set(unblocksOf(closed).map((issue) => issue.id));
    const unblockedIssues = ready.filter((issue) => dependents.has(issue.id));
    const shown = [...new Set([...unblockedIssues, ...ready.slice(0, request.readyDetails ?? DEFAULT_READY_DETAILS)].map((issue) => issue.id))];
    const details = shown.length > 0 ? await backend.show(shown, request.signal) : [];
    return { unblocked: unblockedIssues.map(summarize), ready: readyItems(ready, details) };
  } catch (error) {
    if (error instanceof CliError && error.kind === 'canceled') throw error;
    // The close itself worked; only the offer is poorer.
    request.log?.(`close: could not load the ready queue: ${errorMessage(error)}`);
    return { unblocked: [], ready: [] };
  }
}

/**
 * Files changed by `hashes` under `folder`, in one git process. Hashes git no longer knows
 * (rebased away, garbage-collected) are skipped rather than failing the rest.
 */
export async function filesOfCommits(folder: string, hashes: readonly string[], options: GitOptions): Promise<string[]> {
  if (hashes.length === 0) return [];
  // --relative: paths relative to `folder` (as the ledger keeps them), files outside it left out.
  const { stdout } = await runGit(folder, ['log', '--no-walk=unsorted', '--ignore-missing', '--relative', '--name-only', '--format=', ...hashes, '--'], options);
  return [...new Set(stdout.split(/\r?\n/).filter((line) => line.trim() !== ''))];
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((signal): signal is AbortSignal => signal !== undefined));
}
