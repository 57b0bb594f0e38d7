// What the outbox does after a beads write failed: try again later (and when), or park it as
// failed because it can never succeed. Pure: the failure arrives as plain data and the time as a
// number, so every decision can be tested with a clock in hand.

/** A failed attempt, as the outbox saw it (a CliError, a ReadOnlyError or anything else, flattened). */
export interface WriteFailure {
  /** `refused`: the CLI declined the write and said why (blocked, open children, claimed by someone else). */
  kind: 'notFound' | 'timeout' | 'exit' | 'badJson' | 'refused' | 'readOnly' | 'other';
  message: string;
  exitCode?: number;
  /** The CLI's machine-readable code (br `error.code`, bd `code`). */
  cliCode?: string;
  stderr?: string;
}

export interface BackoffPolicy {
  /** Delay after the first failure; it doubles with every further failure. */
  baseMs: number;
  maxMs: number;
  /**
   * Attempts after which a write whose failure the policy does not recognise as temporary is
   * parked. A CLI that keeps refusing one write for reasons it does not name would otherwise be
   * asked again every few minutes for ever.
   */
  maxUnrecognisedAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 2_000, maxMs: 5 * 60_000, maxUnrecognisedAttempts: 8 };

export type RetryReason = 'cli-missing' | 'locked' | 'timeout' | 'read-only' | 'garbled' | 'failed';
/** `moot`: the CLI says there was nothing to do (br NOTHING_TO_DO: already closed, or gone). */
export type ParkReason = 'gone' | 'rejected' | 'gave-up' | 'moot';

export type FailureDecision =
  /**
   * `mayHaveLanded`: the CLI may have written before it failed (it timed out, was killed, or
   * succeeded but printed nonsense), so the next attempt must first check whether it did.
   */
  | { action: 'retry'; reason: RetryReason; at: number; mayHaveLanded: boolean }
  | { action: 'park'; reason: ParkReason };

/** br's exit codes (docs/BEADS_CONTRACT.md §1): 3 issue not found, 4 validation, 5 dependency. */
const BR_NOT_FOUND_EXIT = 3;
const BR_REFUSED_EXITS: ReadonlySet<number> = new Set([4, 5]);
const NOT_FOUND_TEXT = /not[ _]found|no issue found|no such issue|does not exist/i;
// Letters around "lock" would make it another word ("blocked", "unlocking"); `DATABASE_LOCKED` must still match.
const LOCKED_TEXT = /(?<![a-z])lock(?:ed|file|[ _-]contention|[ _-]timeout)?(?![a-z])|busy|try again/i;

/**
 * `attempts` counts this failure. A canceled attempt (the window is closing) is not a failure and
 * is not asked about: the outbox keeps that write due, marked as possibly landed.
 */
export function decideAfterFailure(failure: WriteFailure, attempts: number, now: number, policy: BackoffPolicy = DEFAULT_BACKOFF): FailureDecision {
  const retry = (reason: RetryReason, mayHaveLanded: boolean): FailureDecision => ({
    action: 'retry',
    reason,
    at: now + backoffDelay(attempts, policy),
    mayHaveLanded,
  });
  switch (failure.kind) {
    case 'notFound':
      return retry('cli-missing', false);
    case 'readOnly':
      return retry('read-only', false);
    case 'timeout':
      return retry('timeout', true);
    case 'badJson':
      return retry('garbled', true);
    case 'refused':
      // A final answer: asking again gets the same one.
      return { action: 'park', reason: 'rejected' };
    case 'exit':
    case 'other':
      break;
  }
  const text = `${failure.cliCode ?? ''} ${failure.message} ${failure.stderr ?? ''}`;
  // A process that ended without an exit code was killed: it may have committed its write first.
  const killed = failure.kind === 'exit' && failure.exitCode === undefined;
  if (LOCKED_TEXT.test(text)) return retry('locked', killed);
  if (/NOTHING_TO_DO/.test(failure.cliCode ?? '')) return { action: 'park', reason: 'moot' };
  if (failure.exitCode === BR_NOT_FOUND_EXIT || NOT_FOUND_TEXT.test(text)) return { action: 'park', reason: 'gone' };
  if (failure.exitCode !== undefined && BR_REFUSED_EXITS.has(failure.exitCode)) return { action: 'park', reason: 'rejected' };
  if (attempts >= policy.maxUnrecognisedAttempts) return { action: 'park', reason: 'gave-up' };
  return retry('failed', killed);
}

/** base, 2·base, 4·base, … capped at max; `attempts` is the number of failures so far (≥ 1). */
export function backoffDelay(attempts: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}

/** Words for the log and the user: why a write is waiting or why it was parked. */
export function describeDecision(decision: FailureDecision): string {
  if (decision.action === 'park') {
    switch (decision.reason) {
      case 'gone':
        return 'the issue no longer exists';
      case 'rejected':
        return 'beads refused it';
      case 'gave-up':
        return 'it kept failing';
      case 'moot':
        return 'there was nothing left to do';
    }
  }
  switch (decision.reason) {
    case 'cli-missing':
      return 'the beads CLI was not found';
    case 'locked':
      return 'the beads database is locked';
    case 'timeout':
      return 'the beads CLI did not answer in time';
    case 'read-only':
      return 'writes need the bd or br CLI';
    case 'garbled':
      return 'the beads CLI printed unexpected output';
    case 'failed':
      return 'the beads CLI failed';
  }
}
