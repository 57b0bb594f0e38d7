import { describe, expect, it } from 'vitest';
import { backoffDelay, decideAfterFailure, describeDecision, sendsAheadOfBackoff, type BackoffPolicy } from '../../../src/core/outboxPolicy';

const policy: BackoffPolicy = { baseMs: 1_000, maxMs: 60_000, unexplainedMaxMs: 60_000 };
const now = 1_700_000_000_000;

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempts) => backoffDelay(attempts, policy))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
  });

  it('survives absurd attempt counts', () => {
    expect(backoffDelay(10_000, policy)).toBe(60_000);
    expect(backoffDelay(0, policy)).toBe(1_000);
  });
});

describe('decideAfterFailure', () => {
  it('retries a missing CLI later, knowing nothing was written', () => {
    expect(decideAfterFailure({ kind: 'notFound', message: 'spawn br ENOENT' }, 1, now, policy)).toEqual({
      action: 'retry',
      reason: 'cli-missing',
      at: now + 1_000,
      mayHaveLanded: false,
      counted: true,
    });
  });

  it('retries a timeout, which may have written before it was stopped', () => {
    const decision = decideAfterFailure({ kind: 'timeout', message: 'br comments add did not finish' }, 3, now, policy);
    expect(decision).toEqual({ action: 'retry', reason: 'timeout', at: now + 4_000, mayHaveLanded: true, counted: true });
  });

  it('parks a refusal at the first attempt: the CLI said no and why', () => {
    const refused = { kind: 'refused' as const, message: 'cannot close x-1: blocked by open issues [x-2] (use --force to override)', exitCode: 1 };
    expect(decideAfterFailure(refused, 1, now, policy)).toEqual({ action: 'park', reason: 'rejected' });
  });

  it('retries a locked database for ever, with a capped delay', () => {
    const locked = { kind: 'exit' as const, message: 'database is locked', exitCode: 2 };
    expect(decideAfterFailure(locked, 50, now, policy)).toEqual({ action: 'retry', reason: 'locked', at: now + 60_000, mayHaveLanded: false, counted: true });
  });

  it('recognises a lock from the CLI code alone', () => {
    expect(decideAfterFailure({ kind: 'exit', message: 'x', cliCode: 'DATABASE_LOCKED', exitCode: 2 }, 1, now, policy)).toMatchObject({ reason: 'locked' });
  });

  it('parks a write on an issue that no longer exists (br exit 3, bd message)', () => {
    expect(decideAfterFailure({ kind: 'exit', message: 'Issue not found: demo-9', exitCode: 3, cliCode: 'ISSUE_NOT_FOUND' }, 1, now, policy)).toEqual({
      action: 'park',
      reason: 'gone',
    });
    expect(decideAfterFailure({ kind: 'exit', message: 'no issue found matching "demo-9"', exitCode: 1 }, 1, now, policy)).toEqual({
      action: 'park',
      reason: 'gone',
    });
  });

  it("counts br's NOTHING_TO_DO (exit 3, like not-found) as moot, not as a deleted issue", () => {
    expect(decideAfterFailure({ kind: 'exit', message: 'Nothing to do: all 1 issue(s) skipped', exitCode: 3, cliCode: 'NOTHING_TO_DO' }, 1, now, policy)).toEqual({
      action: 'park',
      reason: 'moot',
    });
  });

  it('parks what br refuses (validation, dependency)', () => {
    expect(decideAfterFailure({ kind: 'exit', message: 'issue is blocked', exitCode: 5 }, 1, now, policy)).toEqual({ action: 'park', reason: 'rejected' });
    expect(decideAfterFailure({ kind: 'exit', message: 'invalid status', exitCode: 4 }, 1, now, policy)).toEqual({ action: 'park', reason: 'rejected' });
  });

  it('never parks a write while the CLI is merely failing: an unexplained exit 1, garbage, timeouts, a lock, however often', () => {
    const failures = [
      { kind: 'exit' as const, message: 'something odd', exitCode: 1 },
      { kind: 'badJson' as const, message: 'not JSON' },
      { kind: 'timeout' as const, message: 'did not finish' },
      { kind: 'exit' as const, message: 'database is locked', exitCode: 1 },
    ];
    for (const failure of failures) {
      for (const attempts of [1, 8, 9, 50, 1_000]) expect(decideAfterFailure(failure, attempts, now, policy), `${failure.message} × ${attempts}`).toMatchObject({ action: 'retry' });
    }
  });

  it('spaces an unexplained failure further apart than a lock, up to its own cap', () => {
    const odd = { kind: 'exit' as const, message: 'something odd', exitCode: 1 };
    const slow: BackoffPolicy = { baseMs: 1_000, maxMs: 8_000, unexplainedMaxMs: 64_000 };
    expect(decideAfterFailure(odd, 3, now, slow)).toMatchObject({ reason: 'failed', at: now + 4_000, mayHaveLanded: false });
    expect(decideAfterFailure(odd, 20, now, slow)).toMatchObject({ at: now + 64_000 });
    expect(decideAfterFailure({ kind: 'exit', message: 'database is locked', exitCode: 1 }, 20, now, slow)).toMatchObject({ at: now + 8_000 });
  });

  it('waits out a workspace frozen for migration (bd exit 14) at a steady pace, counting no attempt, never parked', () => {
    const frozen = { kind: 'exit' as const, message: '⛔ workspace is frozen for migration', exitCode: 14 };
    const paced: BackoffPolicy = { ...policy, frozenRecheckMs: 30_000 };
    for (const attempts of [1, 9, 500]) {
      expect(decideAfterFailure(frozen, attempts, now, paced)).toEqual({ action: 'retry', reason: 'frozen', at: now + 30_000, mayHaveLanded: false, counted: false });
    }
    expect(decideAfterFailure({ kind: 'frozen', message: 'frozen' }, 1, now, paced)).toMatchObject({ reason: 'frozen', counted: false });
    expect(describeDecision({ action: 'retry', reason: 'frozen', at: now, mayHaveLanded: false, counted: false })).toBe('the beads workspace is frozen for migration');
  });

  it('treats a killed process (no exit code) as possibly written', () => {
    expect(decideAfterFailure({ kind: 'exit', message: 'killed by SIGKILL' }, 1, now, policy)).toMatchObject({ mayHaveLanded: true });
  });

  it('treats garbled output as possibly written: the CLI may have succeeded', () => {
    expect(decideAfterFailure({ kind: 'badJson', message: 'not JSON' }, 1, now, policy)).toMatchObject({ action: 'retry', mayHaveLanded: true });
  });

  it('keeps writes for a read-only project until a CLI appears', () => {
    expect(decideAfterFailure({ kind: 'readOnly', message: 'read-only' }, 30, now, policy)).toMatchObject({ action: 'retry', reason: 'read-only' });
  });

  it('explains each decision in words', () => {
    expect(describeDecision({ action: 'park', reason: 'gone' })).toBe('the issue no longer exists');
    expect(describeDecision({ action: 'retry', reason: 'locked', at: now, mayHaveLanded: false, counted: true })).toBe('the beads database is locked');
  });
});

describe('sendsAheadOfBackoff', () => {
  const policy: BackoffPolicy = { baseMs: 2_000, maxMs: 300_000, unexplainedMaxMs: 1_800_000, waitedOnMaxMs: 60_000 };
  it('sends the oldest write at once when the CLI landed a write after its last failed try', () => {
    expect(sendsAheadOfBackoff({ lastTriedAt: 1_000 }, 1_001, 2_000, policy)).toBe(true);
    expect(sendsAheadOfBackoff({ lastTriedAt: 1_000 }, 999, 2_000, policy)).toBe(false);
  });
  it('otherwise keeps its spacing for waitedOnMaxMs after its last try, then sends it whatever its backoff said', () => {
    expect(sendsAheadOfBackoff({ lastTriedAt: 0 }, undefined, 59_999, policy)).toBe(false);
    expect(sendsAheadOfBackoff({ lastTriedAt: 0 }, undefined, 60_000, policy)).toBe(true);
  });
  it('leaves a write never tried (or kept by an older version) to its own backoff', () => {
    expect(sendsAheadOfBackoff({}, 5_000, 1_000_000, policy)).toBe(false);
  });
});
