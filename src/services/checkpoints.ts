// Checkpoints: the ledger's activity written into the issue as a comment, through the outbox, and
// the ledger's counters started again. Manual ones (`Checkpoint: …`), automatic ones
// (`Auto-checkpoint (…): …`) and the recognition of checkpoints made elsewhere (a comment
// written from a terminal or another tool). No vscode: the adapters decide when.

import { newestForeignComment, summarizeActivity, type CheckpointActivity } from '../core/checkpoint';
import { activityOf } from '../core/checkpointDecision';
import { ledgerOf, type LedgerState } from '../core/ledger';
import { isWorkInProgress, type IssueDetails } from '../core/model';
import type { LandListener, Subscription } from './outbox';

/** What checkpoints need of the ledger store (src/services/ledgerStore.ts). */
export interface CheckpointLedger {
  readonly state: LedgerState;
  markCheckpoint(issueId: string, now: number): Promise<unknown>;
  /** `now`: start an empty ledger for an issue that has none (see `noteEarlierCheckpoint` in core/ledger). */
  noteEarlierCheckpoint(issueId: string, at: number, now?: number): Promise<unknown>;
}

/** What checkpoints need of the outbox (src/services/outbox.ts). */
export interface CheckpointQueue {
  isOwnComment(issueId: string, text: string): boolean;
  /** The CLI's clock minus ours, once measured on a comment it stamped for us. */
  readonly cliClockOffsetMs?: number;
}

// The request, the comment and key of a checkpoint and a ledger's activity are decided in core.
export { activityOf, checkpointWrite, SAME_WORDS_WINDOW_MS, type CheckpointRequest, type PlannedCheckpoint } from '../core/checkpointDecision';

export interface CheckpointsOptions {
  queue: CheckpointQueue;
  ledger: CheckpointLedger;
  now?: () => number;
}

export class Checkpoints {
  private readonly queue: CheckpointQueue;
  private readonly ledger: CheckpointLedger;
  private readonly now: () => number;

  constructor(options: CheckpointsOptions) {
    this.queue = options.queue;
    this.ledger = options.ledger;
    this.now = options.now ?? Date.now;
  }

  /** The issue work is attributed to, if any. */
  get focusedId(): string | undefined {
    return this.ledger.state.focusedId;
  }

  /** Activity of `issueId` (default: the focused issue) since its last checkpoint. */
  activity(issueId = this.focusedId): CheckpointActivity | undefined {
    return issueId === undefined ? undefined : this.activityOf(issueId);
  }

  private activityOf(issueId: string): CheckpointActivity {
    const ledger = ledgerOf(this.ledger.state, issueId);
    return ledger ? activityOf(ledger) : { issueId, files: [], commits: [], edits: 0 };
  }

  /** The text the checkpoint input box starts with; `lastNext` is the issue's last "Next:" (`lastNextStep`). */
  suggestion(issueId = this.focusedId, lastNext?: string): string {
    const activity = this.activity(issueId);
    return activity ? summarizeActivity(activity, this.now(), lastNext) : '';
  }

  /** See `noticeExternalCheckpoint`; our own comments are told apart through the queue. */
  noticeExternalCheckpoint(details: IssueDetails): Promise<boolean> {
    return noticeExternalCheckpoint(details, this.ledger, this.now(), (issueId, text) => this.queue.isOwnComment(issueId, text), this.queue.cliClockOffsetMs);
  }
}

/**
 * The ledger counts a checkpoint once it has landed, whoever lands it: the process that queued
 * it, another window, the command line or the next start. Every process that drains an outbox
 * wires it to the ledger beside it with this, so the counters start again from the time the
 * checkpoint was taken (what was recorded after that stays for the next one).
 */
export function markCheckpointsOnLanding(queue: { onDidLand(listener: LandListener): Subscription }, ledger: () => CheckpointLedger | undefined): Subscription {
  return queue.onDidLand(async (write) => {
    if (write.kind !== 'comment' || write.checkpointAt === undefined) return;
    await ledger()?.markCheckpoint(write.issueId, write.checkpointAt);
  });
}

/**
 * A checkpoint made elsewhere: a comment on the issue newer than its last checkpoint (or, before
 * the first one, than the ledger itself) that the extension did not write. The counters start
 * again from that comment's time (on our clock: through the CLI's measured offset, see
 * onOurClock). A ledger that knows no checkpoint while the issue has older comments learns the
 * newest one's time, counters kept (`noteEarlierCheckpoint`): every surface then reads one "last
 * checkpoint". Call it wherever refreshed issue details are at hand; returns
 * whether it reset anything.
 */
export async function noticeExternalCheckpoint(
  details: IssueDetails,
  ledgerStore: CheckpointLedger,
  now: number,
  isOwn: (issueId: string, text: string) => boolean = () => false,
  cliOffsetMs?: number,
): Promise<boolean> {
  const ledger = ledgerOf(ledgerStore.state, details.id);
  if (!ledger) {
    // Nothing recorded yet (a first open): its checkpoints are still its last ones, for every surface.
    if (!isWorkInProgress(details)) return false;
    const earlier = newestForeignComment(details.comments, undefined, () => false, now, cliOffsetMs);
    if (earlier) await ledgerStore.noteEarlierCheckpoint(details.id, Math.min(earlier.at, now), now);
    return false;
  }
  const after = ledger.lastCheckpointAt ?? ledger.startedAt;
  const newest = newestForeignComment(details.comments, after, (text) => isOwn(details.id, text), now, cliOffsetMs);
  if (!newest) {
    // Only comments from before the ledger started: a later one of ours is counted when it lands.
    const earlier = ledger.lastCheckpointAt === undefined ? newestForeignComment(details.comments, undefined, () => false, now, cliOffsetMs) : undefined;
    if (earlier && earlier.at <= ledger.startedAt) await ledgerStore.noteEarlierCheckpoint(details.id, earlier.at);
    return false;
  }
  await ledgerStore.markCheckpoint(details.id, newest.at);
  return true;
}
