// What the outbox does after a beads write failed: try again later (and when), or park it as
// failed because beads gave a final answer. Pure: the failure arrives as plain data and the time
// as a number, so every decision can be tested with a clock in hand.
//
// The rules (README "Activity tracking and checkpoints", docs/ARCHITECTURE.md §4):
// - Only a final answer parks a write: a refusal, an issue that is gone, nothing left to do.
//   A CLI that is merely failing — missing, locked, slow, garbled, an exit 1 it does not explain —
//   never parks one: the write waits, later each time, up to a cap, and is tried again for ever.
// - The time of the next attempt is stored with the write, so every process (windows, hooks, the
//   command line) spaces its attempts by it; no one resets it but a person asking to retry.
// - A workspace frozen for migration (bd 1.3 exit 14) is no failure of the write: it waits the
//   freeze out, checked at a fixed interval, without counting attempts.

/** A failed attempt, as the outbox saw it (a CliError, a ReadOnlyError or anything else, flattened). */
export interface WriteFailure {
  /** `refused`: the CLI declined the write and said why (blocked, open children, claimed by someone else). */
  /** `frozen`: the workspace is frozen for migration; writes are refused until it thaws. */
  kind: 'notFound' | 'timeout' | 'exit' | 'badJson' | 'refused' | 'readOnly' | 'frozen' | 'other';
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
   * The cap for a failure the CLI does not explain (an exit 1 with no known reason): such a write
   * is never given up, only asked about less often than one waiting for a lock.
   */
  unexplainedMaxMs?: number;
  /** While the workspace is frozen for migration, how often a write checks whether it thawed. */
  frozenRecheckMs?: number;
  /**
   * The longest an issue's oldest queued write waits after a failed try while a later write of the
   * same issue is due behind it (sendsAheadOfBackoff); its own backoff may say much longer.
   */
  waitedOnMaxMs?: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 2_000, maxMs: 5 * 60_000, unexplainedMaxMs: 30 * 60_000, frozenRecheckMs: 60_000, waitedOnMaxMs: 60_000 };

/** `awaiting-migration`: bd refuses writes to a shared database until its operator migrates it. */
export type RetryReason = 'cli-missing' | 'locked' | 'timeout' | 'read-only' | 'garbled' | 'frozen' | 'awaiting-migration' | 'failed';
/** `moot`: the CLI says there was nothing to do (br NOTHING_TO_DO: already closed, or gone). */
export type ParkReason = 'gone' | 'rejected' | 'moot';

export type FailureDecision =
  /**
   * `mayHaveLanded`: the CLI may have written before it failed (it timed out, was killed, or
   * succeeded but printed nonsense), so the next attempt must first check whether it did.
   */
  | { action: 'retry'; reason: RetryReason; at: number; mayHaveLanded: boolean; /** False: no attempt of the write's own (a freeze), so its backoff does not grow. */ counted: boolean }
  | { action: 'park'; reason: ParkReason };

/** br's exit codes (docs/BEADS_CONTRACT.md §1): 3 issue not found, 4 validation, 5 dependency. */
const BR_NOT_FOUND_EXIT = 3;
const BR_REFUSED_EXITS: ReadonlySet<number> = new Set([4, 5]);
const NOT_FOUND_TEXT = /not[ _]found|no issue found|no such issue|does not exist/i;
// Letters around "lock" would make it another word ("blocked", "unlocking"); `DATABASE_LOCKED` must still match.
const LOCKED_TEXT = /(?<![a-z])lock(?:ed|file|[ _-]contention|[ _-]timeout)?(?![a-z])|busy|try again/i;
/** bd 1.3: `⛔ workspace is frozen for migration`, exit 14, while a MIGRATION-FREEZE file exists. */
const BD_FROZEN_EXIT = 14;
const FROZEN_TEXT = /frozen for migration|MIGRATION[_-]FREEZE|WORKSPACE[_-]FROZEN/i;
/**
 * The `cliCode`s src/beads gives a write bd holds back rather than refuses (refusal.ts
 * writeHoldOf): the workspace frozen for migration, and a shared database bd will not migrate
 * without its operator's consent. Both refuse before writing anything and end on their own.
 */
export const WRITE_HOLD_CODES = { freeze: 'BD_MIGRATION_FREEZE', consent: 'BD_MIGRATION_CONSENT' } as const;

/**
 * `attempts` counts this failure. A canceled attempt (the window is closing) is not a failure and
 * is not asked about: the outbox keeps that write due, marked as possibly landed.
 */
export function decideAfterFailure(failure: WriteFailure, attempts: number, now: number, policy: BackoffPolicy = DEFAULT_BACKOFF): FailureDecision {
  const retry = (reason: RetryReason, mayHaveLanded: boolean, maxMs = policy.maxMs): FailureDecision => ({
    action: 'retry',
    reason,
    at: now + backoffDelay(attempts, { ...policy, maxMs }),
    mayHaveLanded,
    counted: true,
  });
  const text = `${failure.cliCode ?? ''} ${failure.message} ${failure.stderr ?? ''}`;
  if (failure.kind === 'frozen' || failure.cliCode === WRITE_HOLD_CODES.freeze || (failure.kind === 'exit' && failure.exitCode === BD_FROZEN_EXIT) || FROZEN_TEXT.test(text)) {
    // The CLI refused before writing anything: wait for the thaw at a steady pace, counting nothing.
    return { action: 'retry', reason: 'frozen', at: now + (policy.frozenRecheckMs ?? DEFAULT_BACKOFF.frozenRecheckMs ?? 60_000), mayHaveLanded: false, counted: false };
  }
  if (failure.cliCode === WRITE_HOLD_CODES.consent) {
    // Held like a freeze: nothing was written, and the write lands once the operator has migrated.
    return { action: 'retry', reason: 'awaiting-migration', at: now + (policy.frozenRecheckMs ?? DEFAULT_BACKOFF.frozenRecheckMs ?? 60_000), mayHaveLanded: false, counted: false };
  }
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
  // A process that ended without an exit code was killed: it may have committed its write first.
  const killed = failure.kind === 'exit' && failure.exitCode === undefined;
  if (LOCKED_TEXT.test(text)) return retry('locked', killed);
  if (/NOTHING_TO_DO/.test(failure.cliCode ?? '')) return { action: 'park', reason: 'moot' };
  if (failure.exitCode === BR_NOT_FOUND_EXIT || NOT_FOUND_TEXT.test(text)) return { action: 'park', reason: 'gone' };
  if (failure.exitCode !== undefined && BR_REFUSED_EXITS.has(failure.exitCode)) return { action: 'park', reason: 'rejected' };
  // Unexplained: never given up (the CLI may be failing for a while), asked about less and less often.
  return retry('failed', killed, Math.max(policy.maxMs, policy.unexplainedMaxMs ?? DEFAULT_BACKOFF.unexplainedMaxMs ?? policy.maxMs));
}

/** Whether the CLI as a whole is unavailable, so every write waits as long, without a failure each. */
export function affectsEveryWrite(decision: FailureDecision): boolean {
  return decision.action === 'retry' && (decision.reason === 'cli-missing' || decision.reason === 'locked' || decision.reason === 'timeout' || decision.reason === 'read-only' || decision.reason === 'frozen' || decision.reason === 'awaiting-migration');
}

/**
 * Whether an issue's oldest queued write, still waiting out its backoff, is sent now because a
 * later write of the same issue is due behind it (writes to one issue land in order, so otherwise
 * neither goes). It goes when the CLI is healthy: a write of the project landed after its last
 * failed try. Without that sign it goes once its last try is `waitedOnMaxMs` old: a long outage
 * grows a backoff to half an hour, and a healthy CLI would leave the newer words behind it that
 * long. Within that time its spacing holds, so many quick runs against a failing CLI do not try it
 * once each. `lastTriedAt` undefined (a write never tried, or kept by an older version): its own
 * backoff decides.
 */
export function sendsAheadOfBackoff(head: { lastTriedAt?: number }, lastLandedAt: number | undefined, now: number, policy: BackoffPolicy = DEFAULT_BACKOFF): boolean {
  if (head.lastTriedAt === undefined) return false;
  if (lastLandedAt !== undefined && lastLandedAt > head.lastTriedAt) return true;
  return now - head.lastTriedAt >= (policy.waitedOnMaxMs ?? DEFAULT_BACKOFF.waitedOnMaxMs ?? policy.maxMs);
}

/** base, 2·base, 4·base, … capped at max; `attempts` is the number of failures so far (≥ 1). */
export function backoffDelay(attempts: number, policy: Pick<BackoffPolicy, 'baseMs' | 'maxMs'> = DEFAULT_BACKOFF): number {
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
    case 'frozen':
      return 'the beads workspace is frozen for migration';
    case 'awaiting-migration':
      return "bd waits for the shared database's migration ('bd migrate schema' or BD_ALLOW_REMOTE_MIGRATE=1)";
    case 'failed':
      return 'the beads CLI failed';
  }
}
