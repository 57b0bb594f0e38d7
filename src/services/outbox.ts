// The durable outbox every beads write goes through (docs/ARCHITECTURE.md §4): a write is kept in
// a JSON file before any CLI is spawned and leaves it only once the CLI said it succeeded (or beads
// gave a final answer). Exactly once, across crashes, retries, windows and the command line.
//
// Two parts, composed here behind one face for the services and adapters that use it:
// - the durable queue (src/services/outboxQueue.ts): what waits, what was parked, what landed;
// - the drainer (src/services/outboxDrainer.ts): the lease, the schedule, orphan handling, the
//   CLI's clock and the retry policy (src/core/outboxPolicy.ts) — what is sent when.
//
// Just before the CLI is spawned the entry is marked in flight, durably. An entry found in flight
// later, by a drainer that did not start it, belongs to a process that died mid-write: its CLI may
// have written before the process died. Such an entry — and one whose attempt timed out, was
// killed or printed garbage — is checked against beads before it is sent again: a comment whose
// exact text the issue already has, a claim on an issue already in progress, a close of a closed
// issue all count as done. (A comment of identical text that someone wrote independently is
// therefore taken for ours; checkpoint texts carry counts and times, so that is rare, and a
// duplicate would be worse.)

import { randomUUID } from 'node:crypto';
import type { BeadsBackend } from '../beads/backend';
import { errorMessage } from '../core/errors';
import { DEFAULT_BACKOFF, describeDecision, type BackoffPolicy } from '../core/outboxPolicy';
import type { DamageReport } from './durableJson';
import { OutboxDrainer } from './outboxDrainer';
import { DrainLease } from './outboxLease';
import { describeWrite, OutboxQueue, type FailedWrite, type PendingWrite, type WriteStatus } from './outboxQueue';
import type { BeadsWrite, WriteQueue } from './writeQueue';

export { alreadyApplied, toWriteFailure } from './outboxDrainer';
export { describeWrite, writeInWords, type FailedWrite, type PendingWrite, type WriteStatus } from './outboxQueue';

export interface OutboxOptions {
  /** The outbox file, e.g. `<git-common-dir>/beads-recovery/outbox.json`. */
  file: string;
  /** The project root this outbox sends for (backend.root). */
  root: string;
  backend?: BeadsBackend;
  now?: () => number;
  policy?: BackoffPolicy;
  /** How many done keys the file remembers. */
  doneLimit?: number;
  /** A drain lease untouched for this long is taken over: its owner hung or died. */
  leaseStaleMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** The file was damaged: what was recovered (VS Code shows a notification, the command line a stderr line). */
  onDamage?: (report: DamageReport) => void;
}

export interface Listener<T> {
  (value: T): void;
}

export interface Subscription {
  dispose(): void;
}

/**
 * A write's first answer, for a caller that waits for it (claim, close): it landed, beads refused it
 * (the CLI's own words; it is not kept, the caller says it), or it is queued and why.
 */
export type WriteAnswer = { state: 'written' } | { state: 'refused'; why: string } | { state: 'queued'; why: string };

/** Told of a write that landed; may be async (the drain waits for it). */
export type LandListener = (write: BeadsWrite) => void | Promise<void>;

const DEFAULT_LEASE_STALE_MS = 120_000;

export class Outbox implements WriteQueue {
  readonly file: string;
  readonly root: string;
  private backend: BeadsBackend | undefined;
  private readonly queue: OutboxQueue;
  private readonly drainer: OutboxDrainer;
  private loaded: Promise<void> | undefined;
  private disposed = false;
  private readonly changeListeners = new Set<Listener<void>>();
  private readonly parkListeners = new Set<Listener<FailedWrite>>();
  private readonly landListeners = new Set<LandListener>();
  /** Keys of writes a caller of `enqueueAndWait` is waiting on: a refusal is that caller's to tell. */
  private readonly answering = new Set<string>();

  constructor(options: OutboxOptions) {
    this.file = options.file;
    this.root = options.root;
    this.backend = options.backend;
    const now = options.now ?? Date.now;
    const log = options.log ?? (() => undefined);
    // Identifies this drainer in in-flight marks and the lease.
    const owner = `${process.pid}:${randomUUID()}`;
    this.queue = new OutboxQueue({
      file: options.file,
      root: options.root,
      now: options.now,
      doneLimit: options.doneLimit,
      onDamage: (report) => {
        log('error', `outbox: ${report.file} was damaged: ${report.details.join('; ')}${report.keptAs ? ` (a copy is kept as ${report.keptAs})` : ''}`);
        options.onDamage?.(report);
      },
    });
    this.queue.onDidChange(() => {
      for (const listener of [...this.changeListeners]) listener();
    });
    this.drainer = new OutboxDrainer({
      queue: this.queue,
      lease: new DrainLease({ file: `${options.file}.drain`, owner, staleMs: options.leaseStaleMs ?? DEFAULT_LEASE_STALE_MS, now, log: (message) => log('warn', `outbox: ${message}`) }),
      owner,
      backend: () => this.backend,
      policy: options.policy ?? DEFAULT_BACKOFF,
      now,
      log,
      landed: async (write) => {
        for (const listener of [...this.landListeners]) {
          try {
            await listener(write);
          } catch (error) {
            log('warn', `outbox: after ${describeWrite(write)} landed: ${errorMessage(error)}`);
          }
        }
      },
      parked: (failed) => {
        if (this.answering.has(failed.write.key)) return;
        for (const listener of [...this.parkListeners]) listener(failed);
      },
    });
  }

  /** Whether this outbox has a backend that can write (the CLI); without one, writes only queue. */
  get canSend(): boolean {
    return this.backend !== undefined && !this.backend.readOnly;
  }

  /** Writes of this project still to be sent. */
  get pendingCount(): number {
    return this.queue.pending.length;
  }

  /** Writes of this project parked because beads refused them; kept until someone sends them again. */
  get failedCount(): number {
    return this.queue.failed.length;
  }

  get pending(): readonly PendingWrite[] {
    return this.queue.pending;
  }

  get failed(): readonly FailedWrite[] {
    return this.queue.failed;
  }

  /** Fires when the pending or failed writes may have changed. */
  onDidChange(listener: Listener<void>): Subscription {
    return subscribe(this.changeListeners, listener);
  }

  /** Fires once per write that is parked as failed (only in the window that parked it). */
  onDidPark(listener: Listener<FailedWrite>): Subscription {
    return subscribe(this.parkListeners, listener);
  }

  /**
   * Fires once per write this process saw land: sent now, or found already in beads (an earlier
   * attempt, perhaps of a process that died, had landed it). The drain pass waits for the
   * listener, so what it records is done before `drain`/`sendDue` resolve. A write another
   * process landed is that process's to report.
   */
  onDidLand(listener: LandListener): Subscription {
    return subscribe(this.landListeners, listener);
  }

  /** Reads the file; call once before relying on the counts. Sending starts if anything is due. */
  load(): Promise<void> {
    this.loaded ??= this.queue.reload().then(
      () => this.drainer.kick(),
      (error: unknown) => {
        // Unreadable now (permissions, a full disk): the next call tries again.
        this.loaded = undefined;
        throw error;
      },
    );
    return this.loaded;
  }

  /** A new backend (detection ran again): a CLI that appeared is tried at once. */
  setBackend(backend: BeadsBackend | undefined): void {
    const wasWritable = this.canSend;
    this.backend = backend;
    if (this.canSend && !wasWritable) void this.retryNow();
  }

  async enqueue(write: BeadsWrite): Promise<void> {
    await this.load();
    if (await this.queue.add(write)) this.drainer.kick();
  }

  /**
   * Queues a write and waits for its first answer (ARCHITECTURE §4: every write is queued first,
   * one drainer sends it): written, refused by beads, or queued (beads is not answering now, or an
   * earlier write of the issue waits) with the reason. The drainer's rules hold as for any write:
   * the order per issue, the check of a write that may have landed, the retries. A refused write is
   * not kept: the caller tells the user, and the parked-write listeners are not told. When the signal
   * aborts first the write stays queued.
   */
  async enqueueAndWait(write: BeadsWrite, signal?: AbortSignal): Promise<WriteAnswer> {
    await this.load();
    this.answering.add(write.key);
    try {
      await this.queue.add(write);
      if (this.canSend) await this.drainer.firstAnswer(write.key, signal);
      return await this.answerOf(write.key);
    } finally {
      this.answering.delete(write.key);
    }
  }

  private async answerOf(key: string): Promise<WriteAnswer> {
    const refused = this.queue.failed.find((entry) => entry.write.key === key);
    if (refused) {
      await this.queue.dropFailed([key]);
      return { state: 'refused', why: refused.error };
    }
    const entry = this.queue.pending.find((candidate) => candidate.write.key === key);
    // Not pending: it landed (or was merged into a later write that did, or there was nothing left to do).
    if (!entry) return { state: 'written' };
    return { state: 'queued', why: this.whyWaiting(entry) };
  }

  /** Why a pending write waits, in words: its own last failure, the earlier write of its issue it waits behind, or the CLI as a whole. */
  private whyWaiting(entry: PendingWrite): string {
    const because = entry.lastError !== undefined ? entry : (this.queue.waitingAhead(entry) ?? this.queue.pending.find((other) => other.root === this.root && other.lastError !== undefined));
    if (!this.canSend) return describeDecision({ action: 'retry', reason: 'read-only', at: 0, mayHaveLanded: false, counted: false });
    if (!because?.lastReason) return 'beads has not answered yet';
    const reason = describeDecision({ action: 'retry', reason: because.lastReason, at: because.nextAttemptAt, mayHaveLanded: false, counted: true });
    const behind = because === entry ? '' : `an earlier write waits: `;
    return `${behind}${reason}${because.lastError ? ` (${because.lastError})` : ''}`;
  }

  /** Whether this write (by key) has landed, and — for typed words — recently enough that sending it again would be a duplicate. */
  landedAlready(write: BeadsWrite): boolean {
    return this.queue.landedAlready(write);
  }

  /** Where a write stands, by key; a write merged into a later one stands where that one does. */
  status(key: string): WriteStatus {
    return this.queue.status(key);
  }

  /**
   * The CLI's clock minus ours (ms), as measured on the last comment it stamped for this project
   * (0: no skew evident); undefined before any. Comment times are read through it (core/checkpoint, onOurClock).
   */
  get cliClockOffsetMs(): number | undefined {
    return this.queue.cliClockOffsetMs;
  }

  /** Whether a comment with this text on this issue is one the outbox wrote or is writing. */
  isOwnComment(issueId: string, text: string): boolean {
    return this.queue.isOwnComment(issueId, text);
  }

  /** Sends every pending write now, whatever its backoff said: a person asked, or the CLI is back. */
  async retryNow(): Promise<void> {
    await this.load();
    await this.queue.makeAllDue();
    this.drainer.kick();
  }

  /**
   * Puts parked writes (all, or those of `keys`) back in the queue (the user fixed what was wrong,
   * or wants to see it fail again); the drainer sends them like any other write.
   */
  async requeueFailed(keys?: readonly string[]): Promise<number> {
    await this.load();
    const moved = await this.queue.requeueFailed(keys);
    if (moved > 0) this.drainer.kick();
    return moved;
  }

  /** Forgets parked writes (all, or those of `keys`); their keys count as done, so a duplicate signal does not bring them back. */
  async discardFailed(keys?: readonly string[]): Promise<number> {
    await this.load();
    return this.queue.discardFailed(keys);
  }

  /** Reads the file again: a hook or the command line may have queued, landed or parked a write. */
  async reload(): Promise<void> {
    await this.load();
    await this.queue.reload();
  }

  /**
   * One attempt at every write that is due, now: for a short-lived process (the command line)
   * that leaves later retries to VS Code or its next run. A write waiting out its backoff keeps
   * waiting, whoever asks: that is what spaces the attempts of many short-lived processes.
   * Resolves when that pass is over; a write another drainer holds stays pending.
   */
  async sendDue(): Promise<void> {
    await this.load();
    this.drainer.kick();
    await this.drainer.settled();
  }

  /**
   * Resolves when every write of this project queued before the call (or those of `keys`) has
   * landed or been parked, or when the signal aborts (then some may still be pending: see
   * `pendingCount`/`status`). Due writes are tried at once, the others when they are due.
   */
  async drain(signal?: AbortSignal, keys?: readonly string[]): Promise<void> {
    await this.load();
    if (this.disposed) return;
    await this.drainer.drain(keys ?? this.pending.map((entry) => entry.write.key), signal);
  }

  dispose(): void {
    this.disposed = true;
    this.drainer.dispose();
    this.queue.clearListeners();
    this.changeListeners.clear();
    this.parkListeners.clear();
    this.landListeners.clear();
  }
}

function subscribe<T>(listeners: Set<Listener<T>>, listener: Listener<T>): Subscription {
  listeners.add(listener);
  return { dispose: () => listeners.delete(listener) };
}
