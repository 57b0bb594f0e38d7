/**
 * A beads write that must land exactly once. `key` is its idempotency key: enqueueing a key that
 * is already queued or already written does nothing, which is how duplicate signals (the reflog,
 * a terminal command and the git extension all reporting one commit) collapse into one comment.
 */
export type BeadsWrite =
  | {
      key: string;
      kind: 'comment';
      issueId: string;
      text: string;
      /**
       * A checkpoint: the ledger's activity of the issue up to this time (epoch ms) is what the
       * comment records. Whichever process lands it starts the ledger's counters again from here
       * (src/services/checkpoints.ts, markCheckpointsOnLanding), so a queued checkpoint still
       * counts its work until it is in beads.
       */
      checkpointAt?: number;
      /**
       * Words someone typed: the same key queued again within this long after it landed is that
       * request retried (an agent after a timeout), not new words, and is not written twice.
       * Without it a key that landed is never written again.
       */
      sameWithinMs?: number;
      /**
       * An automatic checkpoint: what it records, a later automatic checkpoint of the issue queued
       * behind it records too (the ledger's counters only start again once one lands). When both
       * wait, only the later one is sent: after an outage one comment lands, not a burst.
       */
      cumulative?: boolean;
    }
  | { key: string; kind: 'claim'; issueId: string }
  | { key: string; kind: 'close'; issueId: string; reason: string; force?: boolean };

/** The durable, serialized outbox every beads write goes through (implemented in src/services/outbox.ts). */
export interface WriteQueue {
  /** Resolves once the write is durably queued (not when it has reached beads). */
  enqueue(write: BeadsWrite): Promise<void>;
  /** Resolves when every write queued so far has landed or the signal aborts. */
  drain(signal?: AbortSignal): Promise<void>;
  readonly pendingCount: number;
}
