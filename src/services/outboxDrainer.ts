// The outbox's drainer: what is sent when, and what an attempt's outcome does to the queue
// (src/services/outboxQueue.ts). Its pieces, each named for what it is:
//
// - DrainLease (src/services/outboxLease.ts): one drainer at a time per outbox file, across
//   windows and the command line.
// - DrainSchedule (below): wakes the drainer when the earliest write is due, or to follow another
//   drainer's progress in the file.
// - Orphans (below): whatever a killed process left running is ended before a pass, and the CLI a
//   dead drainer left writing is ended before its write is checked.
// - The CLI's clock (measureCliClock): the offset between the CLI's stamps and our clock, measured
//   on each comment it stamps, kept with the queue.
// - The retry policy (src/core/outboxPolicy.ts): pure decisions, by time and failure.
//
// Writes to one issue go in the order they were queued; an automatic checkpoint with a later one
// of the issue queued behind it is merged into that one. A write that may have landed (its attempt
// timed out, was killed, printed garbage, or its drainer died mid-write) is checked against beads
// before it is sent again.

import type { AddedComment, BeadsBackend } from '../beads/backend';
import { CliError, ReadOnlyError } from '../beads/errors';
import { endOrphanedProcesses, killProcessTree, processTreeIsAlive } from '../beads/processRegistry';
import { observeSpawns } from '../beads/runCli';
import { cliClockOffset } from '../core/checkpoint';
import { errorMessage } from '../core/errors';
import { isTerminal, type IssueDetails } from '../core/model';
import { affectsEveryWrite, decideAfterFailure, describeDecision, sendsAheadOfBackoff, type BackoffPolicy, type ParkReason, type WriteFailure } from '../core/outboxPolicy';
import { parseTimestamp } from '../core/time';
import type { DrainLease } from './outboxLease';
import { describeWrite, type CliClock, type FailedWrite, type OutboxQueue, type PendingWrite } from './outboxQueue';
import type { BeadsWrite } from './writeQueue';

/** While another drainer holds the lease, how often the file is read for its progress. */
export const FOLLOW_INTERVAL_MS = 250;
/** A CLI pid noted in flight longer ago than this is not trusted to still be that CLI. */
const ORPHAN_PID_TRUST_MS = 60 * 60_000;
const ORPHAN_EXIT_WAIT_MS = 2_000;

export interface OutboxDrainerOptions {
  queue: OutboxQueue;
  lease: DrainLease;
  /** Identifies this drainer in in-flight marks and the lease. */
  owner: string;
  backend: () => BeadsBackend | undefined;
  policy: BackoffPolicy;
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** A write this drainer saw land; awaited before the pass goes on; must not throw. */
  landed: (write: BeadsWrite) => Promise<void>;
  parked: (failed: FailedWrite) => void;
}

export class OutboxDrainer {
  private pass: Promise<void> | undefined;
  private passAgain = false;
  private disposed = false;
  private readonly schedule: DrainSchedule;

  constructor(private readonly options: OutboxDrainerOptions) {
    this.schedule = new DrainSchedule(options.now, () => {
      void options.queue.reload().then(() => this.kick());
    });
  }

  private get queue(): OutboxQueue {
    return this.options.queue;
  }

  /** Starts a drain pass, or asks the running one to look again when it ends. */
  kick(): void {
    if (this.disposed) return;
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    this.pass = this.runPasses().finally(() => {
      this.pass = undefined;
      this.wakeWhenDue();
    });
  }

  /** Resolves when the running pass (if any) is over. */
  async settled(): Promise<void> {
    await this.pass;
  }

  /**
   * Resolves when every write of `keys` has landed or been parked, or when the signal aborts.
   * Due writes are tried at once, the others when they are due; another drainer's progress is
   * followed in the file.
   */
  async drain(keys: readonly string[], signal?: AbortSignal): Promise<void> {
    this.kick();
    const waiting = new Set(keys);
    while (waiting.size > 0 && !signal?.aborted && !this.disposed) {
      await this.pass;
      for (const key of [...waiting]) if (this.queue.status(key) !== 'pending') waiting.delete(key);
      if (waiting.size === 0) break;
      // A write due in a moment is waited for exactly; one due already, after a pass, waits for
      // another drainer or for a CLI, so the file is looked at again a little later.
      const untilDue = Math.min(...this.queue.pending.map((entry) => entry.nextAttemptAt)) - this.options.now();
      await sleep(untilDue > 0 ? Math.min(FOLLOW_INTERVAL_MS, untilDue + 5) : FOLLOW_INTERVAL_MS, signal);
      await this.queue.reload();
      this.kick();
    }
  }

  /**
   * Resolves once the write of `key` has had its answer: it landed or was parked, or an attempt
   * failed and it waits for its retry, or it waits behind an earlier write of its issue or for the
   * CLI as a whole (another write found it missing, locked or frozen) — or when the signal aborts.
   * A write waiting for another drainer (another window or process holds the lease) is followed in
   * the file until that drainer tried it.
   */
  async firstAnswer(key: string, signal?: AbortSignal): Promise<void> {
    this.kick();
    while (!signal?.aborted && !this.disposed) {
      await this.pass;
      const entry = this.queue.pending.find((candidate) => candidate.write.key === key);
      if (!entry || entry.lastError !== undefined || entry.nextAttemptAt > this.options.now() || this.queue.waitingAhead(entry) !== undefined) return;
      await sleep(FOLLOW_INTERVAL_MS, signal);
      await this.queue.reload();
      this.kick();
    }
  }

  dispose(): void {
    this.disposed = true;
    this.schedule.cancel();
  }

  private async runPasses(): Promise<void> {
    do {
      this.passAgain = false;
      try {
        await this.drainPass();
      } catch (error) {
        this.options.log('error', `outbox: drain failed: ${errorMessage(error)}`);
      }
    } while (this.passAgain && !this.disposed);
  }

  private wakeWhenDue(): void {
    const backend = this.options.backend();
    const pending = this.queue.pending;
    if (this.disposed || !backend || backend.readOnly || pending.length === 0) return this.schedule.cancel();
    this.schedule.wakeAt(Math.min(...pending.map((entry) => entry.nextAttemptAt)));
  }

  private async drainPass(): Promise<void> {
    const backend = this.options.backend();
    if (!backend || backend.readOnly) return;
    if (!this.queue.pending.some((entry) => entry.nextAttemptAt <= this.options.now())) return;
    if (!(await this.options.lease.acquire())) {
      await this.queue.reload();
      return;
    }
    endOrphansBeforePass((message) => this.options.log('warn', `outbox: ${message}`));
    try {
      let entry = await this.nextToSend();
      while (entry && !this.disposed) {
        // Taken over as stale (this drainer was stalled for long): the new holder sends the rest.
        if (!(await this.options.lease.touch())) break;
        const outcome = await this.attempt(backend, entry);
        if (outcome === 'stop') break;
        entry = await this.nextToSend();
      }
    } finally {
      await this.options.lease.release();
    }
  }

  /**
   * The next write to send: the first one due, or an issue's oldest write still waiting out its
   * backoff when a later write of its issue is due and the CLI is healthy (the policy's
   * sendsAheadOfBackoff), so the issue's words go in order instead of neither going.
   */
  private nextToSend(): Promise<PendingWrite | undefined> {
    return this.queue.nextDue((head) => sendsAheadOfBackoff(head, this.queue.lastLandedAt, this.options.now(), this.options.policy));
  }

  /** One attempt at one write. 'stop' ends the pass: the CLI as a whole is unavailable. */
  private async attempt(backend: BeadsBackend, entry: PendingWrite): Promise<'next' | 'stop'> {
    const { write } = entry;
    const { owner, log } = this.options;
    // Found in flight at the start of an attempt: its drainer died mid-write (we hold the lease).
    const uncertain = entry.mayHaveLanded === true || entry.inFlight !== undefined;
    // A write that may have landed is merged only once beads says it did not: merged unseen, beads
    // would hold a comment the outbox says it never sent.
    if (!uncertain && (await this.mergedIntoLater(entry))) return 'next';
    // Its CLI may still be running, and could land the write after the check below said it had not.
    if (entry.inFlight?.cliPid !== undefined && entry.inFlight.owner !== owner) await endOrphanedCli(entry.inFlight, this.options.now(), (message) => log('warn', `outbox: ${message}`));
    if (!(await this.queue.markInFlight(write.key, owner, entry))) {
      log('warn', `outbox: ${describeWrite(write)} was tried by another drainer meanwhile; this pass stops`);
      return 'stop';
    }
    // Until the check has answered, an uncertain write stays uncertain whatever else fails.
    let stillUncertain = uncertain;
    try {
      if (uncertain) {
        const details = await backend.show([write.issueId]);
        const issue = details.find((candidate) => candidate.id === write.issueId);
        if (!issue) {
          await this.park(write.key, 'gone', `${write.issueId} was not found`);
          return 'next';
        }
        if (alreadyApplied(write, issue)) {
          log('info', `outbox: ${describeWrite(write)} had already landed; not sent again`);
          await this.land(write, 'found');
          return 'next';
        }
        stillUncertain = false;
        if (await this.mergedIntoLater(entry)) return 'next';
      }
      const sentAt = this.options.now();
      const noteCliPid = (pid: number) =>
        this.queue.noteCliPid(write.key, owner, pid).catch((error: unknown) => log('warn', `outbox: could not note the pid of the CLI writing ${write.key}: ${errorMessage(error)}`));
      const answer = await observeSpawns((pid) => void noteCliPid(pid), () => sendWrite(backend, write));
      await this.land(write, 'sent', measureCliClock(answer, sentAt, this.options.now()));
      return 'next';
    } catch (error) {
      return this.recordFailure(entry, error, stillUncertain);
    }
  }

  /** Queued automatic checkpoints of one issue land as one comment: the latest records it all. */
  private async mergedIntoLater(entry: PendingWrite): Promise<boolean> {
    const later = this.queue.supersedingWrite(entry);
    if (!later) return false;
    this.options.log('info', `outbox: ${describeWrite(entry.write)} is merged into the later ${describeWrite(later.write)}, which records the same work and more`);
    await this.queue.markDone(entry.write, 'moot', { supersededBy: later.write.key });
    return true;
  }

  private async recordFailure(entry: PendingWrite, error: unknown, uncertain: boolean): Promise<'next' | 'stop'> {
    const { write } = entry;
    if (error instanceof CliError && error.kind === 'canceled') {
      await this.queue.markInterrupted(write.key);
      return 'stop';
    }
    const now = this.options.now();
    const decision = decideAfterFailure(toWriteFailure(error), entry.attempts + 1, now, this.options.policy);
    const message = errorMessage(error);
    if (decision.action === 'park' && decision.reason === 'moot') {
      // Nothing left to do (br: already closed, or gone): the write's purpose holds or cannot be had.
      this.options.log('info', `outbox: ${describeWrite(write)}: ${message}; counted as done`);
      await this.queue.markDone(write, 'moot');
      return 'next';
    }
    if (decision.action === 'park') {
      await this.park(write.key, decision.reason, message);
      return 'next';
    }
    // A freeze is no attempt of the write's own: its backoff does not grow.
    const attempts = decision.counted ? entry.attempts + 1 : entry.attempts;
    this.options.log('warn', `outbox: ${describeWrite(write)} failed (attempt ${attempts}, ${describeDecision(decision)}); retrying in ${Math.round((decision.at - now) / 1000)} s: ${message}`);
    const everyWriteWaits = affectsEveryWrite(decision);
    await this.queue.recordRetry(write.key, { attempts, at: decision.at, error: message, reason: decision.reason, mayHaveLanded: uncertain || decision.mayHaveLanded, everyWriteWaits });
    return everyWriteWaits ? 'stop' : 'next';
  }

  private async land(write: BeadsWrite, how: 'sent' | 'found', clock?: CliClock): Promise<void> {
    await this.queue.markDone(write, how, { clock });
    await this.options.landed(write);
  }

  private async park(key: string, reason: ParkReason, error: string): Promise<void> {
    const parked = await this.queue.park(key, reason, error);
    if (!parked) return;
    this.options.log('error', `outbox: ${describeWrite(parked.write)} will not be retried (${describeDecision({ action: 'park', reason })}): ${error}`);
    this.options.parked(parked);
  }
}

/** Wakes the drainer when the earliest write is due, and at least every FOLLOW_INTERVAL_MS while any waits. */
export class DrainSchedule {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly now: () => number,
    private readonly wake: () => void,
  ) {}

  wakeAt(at: number): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, Math.max(FOLLOW_INTERVAL_MS, at - this.now()));
    this.timer.unref?.();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Whatever a killed process left running (a write, or a read hanging on the database the writes
 * need) is ended before a pass. A CLI of a drainer that is alive but lost its lease is the
 * in-flight mark's to end (endOrphanedCli).
 */
function endOrphansBeforePass(log: (message: string) => void): void {
  endOrphanedProcesses({ log });
}

/** Ends the CLI a dead drainer left writing, and waits (briefly) for it to be gone. */
async function endOrphanedCli(inFlight: NonNullable<PendingWrite['inFlight']>, now: number, log: (message: string) => void): Promise<void> {
  const pid = inFlight.cliPid;
  // An old pid may belong to another program by now.
  if (pid === undefined || now - inFlight.since > ORPHAN_PID_TRUST_MS || !processTreeIsAlive(pid)) return;
  log(`ending the CLI (pid ${pid}) that a drainer which is gone left writing`);
  killProcessTree(pid, 'SIGKILL');
  const deadline = Date.now() + ORPHAN_EXIT_WAIT_MS;
  while (processTreeIsAlive(pid) && Date.now() < deadline) await sleep(20);
}

/** The CLI's clock against ours, from the stamp of a comment it just wrote (none for other writes). */
function measureCliClock(answer: AddedComment | void, sentAt: number, landedAt: number): CliClock | undefined {
  const stampedAt = parseTimestamp(answer?.createdAt);
  return stampedAt === undefined ? undefined : { offsetMs: cliClockOffset(stampedAt, sentAt, landedAt), measuredAt: landedAt };
}

/**
 * Sends one write through the backend: one CLI process. A comment's answer carries the CLI's
 * stamp. The only code that sends a beads write (lint refuses the backend's write methods
 * elsewhere); the drainer calls it, and so does the checkpoint flow when there is no place to keep
 * a queue at all (services/checkpointFlow.ts, writeDirectly).
 */
export async function sendWrite(backend: BeadsBackend, write: BeadsWrite, signal?: AbortSignal): Promise<AddedComment | void> {
  switch (write.kind) {
    case 'comment':
      return backend.addComment(write.issueId, write.text, signal);
    case 'claim':
      return backend.claim(write.issueId, signal);
    case 'close':
      return backend.close(write.issueId, write.reason, signal, { force: write.force });
  }
}

/** Whether beads already shows the effect of a write whose earlier attempt may have landed. */
export function alreadyApplied(write: BeadsWrite, issue: IssueDetails): boolean {
  switch (write.kind) {
    case 'comment': {
      const text = write.text.trim();
      return issue.comments.some((comment) => comment.text.trim() === text);
    }
    case 'claim':
      return issue.status === 'in_progress';
    case 'close':
      return isTerminal(issue.status);
  }
}

export function toWriteFailure(error: unknown): WriteFailure {
  if (error instanceof CliError) {
    const kind = error.kind === 'canceled' ? 'timeout' : error.kind;
    return { kind, message: error.cliMessage ?? error.message, exitCode: error.exitCode, cliCode: error.cliCode, stderr: error.stderr };
  }
  if (error instanceof ReadOnlyError) return { kind: 'readOnly', message: error.message };
  return { kind: 'other', message: errorMessage(error) };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
