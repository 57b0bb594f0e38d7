// Claim and close, the two interactive writes (seed V3, V5). They run directly through the
// backend so the user hears at once whether they worked; a temporary failure (a locked database,
// a CLI that timed out or went missing) queues them in the outbox instead, and the user is told.
// Closing first lands everything the issue still has to say — the commit links and checkpoints
// in the outbox and a `Files modified: …` comment — then closes, then works out what comes next.

import type { BeadsBackend } from '../beads/backend';
import { CliError } from '../beads/errors';
import { commitHashesFromComments, filesFromComments, filesModifiedComment, textFingerprint } from '../core/checkpoint';
import { readyItems, unblocksOf, type ReadyItem } from '../core/graph';
import { isTerminal, summarize, type Dialect, type IssueDetails, type IssueSummary } from '../core/model';
import { decideAfterFailure, describeDecision } from '../core/outboxPolicy';
import { buildContinuePrompt } from '../core/recovery';
import { runGit, type GitOptions } from '../git/runGit';
import { toWriteFailure, type PendingWrite } from './outbox';
import type { BeadsWrite } from './writeQueue';

/** What claim and close need of the outbox. */
export interface WorkQueue {
  enqueue(write: BeadsWrite): Promise<void>;
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
 * Runs `write` now through the backend. A temporary failure queues it (same key: it lands once)
 * and says why; a permanent one throws `WorkRefusedError` with the CLI's own words; cancellation
 * propagates as it is.
 */
export async function writeNowOrQueue(backend: BeadsBackend, queue: WorkQueue, write: BeadsWrite, now: number, signal?: AbortSignal): Promise<WriteOutcome> {
  if (backend.readOnly) throw new WorkRefusedError(READ_ONLY_MESSAGE);
  try {
    switch (write.kind) {
      case 'claim':
        await backend.claim(write.issueId, signal);
        break;
      case 'close':
        await backend.close(write.issueId, write.reason, signal);
        break;
      case 'comment':
        await backend.addComment(write.issueId, write.text, signal);
        break;
    }
    return { state: 'written' };
  } catch (error) {
    if (error instanceof CliError && error.kind === 'canceled') throw error;
    const decision = decideAfterFailure(toWriteFailure(error), 1, now);
    const message = error instanceof Error ? error.message : String(error);
    if (decision.action === 'park') throw new WorkRefusedError(message);
    // A write that may have landed is checked against beads before the outbox sends it again.
    await queue.enqueue(write);
    return { state: 'queued', why: `${describeDecision(decision)} (${message})` };
  }
}

export const READ_ONLY_MESSAGE =
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
  /** Files changed by commits, from git; absent outside a repository. */
  commitFiles?: (hashes: readonly string[]) => Promise<string[]>;
  /** How long to wait for the outbox to land what the issue still has to say before closing. */
  flushTimeoutMs: number;
  now: number;
  /**
   * Called once the file list is queued, before the close: the caller starts the ledger's counters
   * again there, so that the focus moving off the closing issue finds nothing left to checkpoint.
   */
  onFilesQueued?: () => Promise<void>;
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
  /** The `Files modified: …` comment written before closing, if there were files. */
  filesComment?: string;
  /** Issues this close left with no open blocker (they are in the ready queue now). */
  unblocked: IssueSummary[];
  /** The ready queue after the close, with parent and unblocks for the first few. */
  ready: ReadyItem[];
  /** `buildContinuePrompt` for an agent: what was unblocked, what is ready next. */
  continuePrompt?: string;
}

const DEFAULT_READY_DETAILS = 5;

/**
 * Close with the file list (V3) and the offer of what comes next (V5). Order on the issue: every
 * write already queued for it, then `Files modified: …`, then the close. If those comments cannot
 * land now, the close is queued behind them rather than run ahead of them.
 */
export async function closeWithFiles(request: CloseRequest): Promise<CloseOutcome> {
  const { backend, queue, issueId, signal } = request;
  if (backend.readOnly) throw new WorkRefusedError(READ_ONLY_MESSAGE);
  const details = (await backend.show([issueId], signal)).find((issue) => issue.id === issueId);
  if (!details) throw new WorkRefusedError(`${issueId} was not found: it may have been deleted.`);
  if (isTerminal(details.status)) throw new WorkRefusedError(`${issueId} is already ${details.status}.`);

  const files = await issueFiles(details, request);
  const filesComment = filesModifiedComment(files);
  // Keyed by content: closing again after a queued close does not list the same files twice.
  if (filesComment) await queue.enqueue({ key: `files:${issueId}:${textFingerprint(filesComment)}`, kind: 'comment', issueId, text: filesComment });
  await request.onFilesQueued?.();
  await queue.drain(anySignal(signal, AbortSignal.timeout(request.flushTimeoutMs)));
  if (signal?.aborted) throw new CliError({ kind: 'canceled', command: 'close', args: [issueId] });

  const closeWrite: BeadsWrite = { key: `close:${issueId}:${request.now}`, kind: 'close', issueId, reason: request.reason };
  const closedSummary = { ...summarize(details), status: 'closed' };
  const stillQueued = queue.pending.filter((entry) => entry.write.issueId === issueId);
  if (stillQueued.length > 0) {
    await queue.enqueue(closeWrite);
    const why = `${stillQueued.length} earlier write(s) for it could not land yet${stillQueued[0]?.lastError ? ` (${stillQueued[0].lastError})` : ''}`;
    return { closed: closedSummary, state: 'queued', why, filesComment, unblocked: [], ready: [] };
  }
  const outcome = await writeNowOrQueue(backend, queue, closeWrite, request.now, signal);
  if (outcome.state === 'queued') return { closed: closedSummary, state: 'queued', why: outcome.why, filesComment, unblocked: [], ready: [] };

  const next = await whatComesNext(backend, details, request);
  const continuePrompt = buildContinuePrompt({ closed: closedSummary, unblocked: next.unblocked, ready: next.ready, cli: request.cli }).markdown;
  return { closed: closedSummary, state: 'closed', filesComment, ...next, continuePrompt };
}

/**
 * Every file the issue touched: what the ledger holds now, the file lines of earlier checkpoint
 * comments (the ledger forgets its files at each checkpoint) and the files of its linked commits.
 */
async function issueFiles(details: IssueDetails, request: CloseRequest): Promise<string[]> {
  const files = new Set([...request.ledgerFiles, ...filesFromComments(details.comments)]);
  const hashes = commitHashesFromComments(details.comments);
  if (hashes.length > 0 && request.commitFiles) {
    try {
      for (const file of await request.commitFiles(hashes)) files.add(file);
    } catch (error) {
      if (error instanceof CliError && error.kind === 'canceled') throw error;
      request.log?.(`close: could not list the files of ${details.id}'s commits: ${error instanceof Error ? error.message : String(error)}`);
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
    request.log?.(`close: could not load the ready queue: ${error instanceof Error ? error.message : String(error)}`);
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
