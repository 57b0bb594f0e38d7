// The durable outbox every beads write goes through (docs/ARCHITECTURE.md §4). A write is appended to a
// JSON file (a DurableJsonFile: atomic write, cross-process lock, damage recovered) before any CLI is spawned, and leaves the file only once the CLI
// said it succeeded. Exactly once, across crashes, retries and windows:
//
// - A key already pending, parked or done is ignored on enqueue (done keys are kept, capped).
// - Just before the CLI is spawned the entry is marked in flight, durably. An entry found in
//   flight later, by a drainer that did not start it, belongs to a process that died mid-write:
//   its CLI may have written before the process died. Such an entry — and one whose attempt timed
//   out, was killed or printed garbage — is checked against beads before it is sent again: a
//   comment whose exact text the issue already has, a claim on an issue already in progress, a
//   close of a closed issue all count as done. (A comment of identical text that someone wrote
//   independently is therefore taken for ours; checkpoint texts carry counts and times, so that
//   is rare, and a duplicate would be worse.)
// - Only one drainer at a time per file, across windows and the command line (src/services/outboxLease.ts): a lease file next
//   to the outbox, taken with O_EXCL and broken only when its owner is gone or its time is up.
// - Writes to one issue are sent in the order they were queued: a later write waits while an
//   earlier one for the same issue is pending (the file list lands before the close).

import { randomUUID } from 'node:crypto';
import type { AddedComment, BeadsBackend } from '../beads/backend';
import { CliError, ReadOnlyError } from '../beads/errors';
import { endOrphanedProcesses, killProcessTree, processTreeIsAlive } from '../beads/processRegistry';
import { observeSpawns } from '../beads/runCli';
import { cliClockOffset } from '../core/checkpoint';
import { fnv1a } from '../core/hash';
import { parseTimestamp } from '../core/time';
import { isTerminal, type IssueDetails } from '../core/model';
import {
  affectsEveryWrite,
  DEFAULT_BACKOFF,
  decideAfterFailure,
  describeDecision,
  type BackoffPolicy,
  type RetryReason,
  type ParkReason,
  type WriteFailure,
} from '../core/outboxPolicy';
import { DurableJsonFile, type DamageReport } from './durableJson';
import { DrainLease } from './outboxLease';
import type { BeadsWrite, WriteQueue } from './writeQueue';
import { errorMessage } from '../core/errors';

export interface PendingWrite {
  write: BeadsWrite;
  /** The beads project root the write belongs to; a file shared by worktrees holds several. */
  root: string;
  enqueuedAt: number;
  /** Failed attempts so far. */
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
  /** Why the last attempt failed: a write that waits for the CLI as a whole goes as soon as the CLI works again. */
  lastReason?: RetryReason;
  /**
   * Set (durably) just before the CLI is spawned, cleared when the attempt ends; `cliPid` is the
   * CLI's pid (and process group) once it started.
   */
  inFlight?: { owner: string; since: number; cliPid?: number };
  /** An earlier attempt may have reached beads: check before sending again. */
  mayHaveLanded?: boolean;
}

export interface FailedWrite {
  write: BeadsWrite;
  root: string;
  enqueuedAt: number;
  attempts: number;
  failedAt: number;
  reason: ParkReason;
  error: string;
}

interface DoneWrite {
  key: string;
  issueId: string;
  at: number;
  /** For comments: a hash of the text, so a refresh can tell our comments from someone else's. */
  textHash?: string;
  /** Not sent: merged into this later write, which records the same and more. */
  supersededBy?: string;
}

interface OutboxState {
  version: 1;
  pending: PendingWrite[];
  failed: FailedWrite[];
  done: DoneWrite[];
  /** Entries of a damaged file that are not writes at all: kept for a human, never sent. */
  unreadable: unknown[];
  /** Per project root: the CLI's clock minus ours, measured on the last comment it stamped for us. */
  clocks?: Record<string, CliClock>;
}

interface CliClock {
  offsetMs: number;
  measuredAt: number;
}

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

/** Told of a write that landed; may be async (the drain waits for it). */
export type LandListener = (write: BeadsWrite) => void | Promise<void>;

export type WriteStatus = 'pending' | 'done' | 'failed' | 'unknown';

const EMPTY_STATE: OutboxState = { version: 1, pending: [], failed: [], done: [], unreadable: [] };
const DEFAULT_DONE_LIMIT = 2_000;
const DEFAULT_LEASE_STALE_MS = 120_000;
/** A CLI pid noted in flight longer ago than this is not trusted to still be that CLI. */
const ORPHAN_PID_TRUST_MS = 60 * 60_000;
const ORPHAN_EXIT_WAIT_MS = 2_000;
/** While another drainer holds the lease, how often the file is read for its progress. */
const FOLLOW_INTERVAL_MS = 250;

export class Outbox implements WriteQueue {
  readonly file: string;
  readonly root: string;
  private backend: BeadsBackend | undefined;
  private readonly now: () => number;
  private readonly policy: BackoffPolicy;
  private readonly doneLimit: number;
  private readonly log: NonNullable<OutboxOptions['log']>;
  /** Identifies this drainer in in-flight marks and the lease. */
  private readonly owner = `${process.pid}:${randomUUID()}`;
  private state: OutboxState = EMPTY_STATE;
  private loaded: Promise<void> | undefined;
  private pass: Promise<void> | undefined;
  private passAgain = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private readonly changeListeners = new Set<Listener<void>>();
  private readonly parkListeners = new Set<Listener<FailedWrite>>();
  private readonly landListeners = new Set<LandListener>();

  private readonly disk: DurableJsonFile<OutboxState>;
  private readonly lease: DrainLease;

  constructor(options: OutboxOptions) {
    this.file = options.file;
    this.disk = new DurableJsonFile<OutboxState>({
      file: options.file,
      empty: () => structuredClone(EMPTY_STATE),
      parse: parseState,
      now: options.now,
      onDamage: (report) => {
        this.log('error', `outbox: ${report.file} was damaged: ${report.details.join('; ')}${report.keptAs ? ` (a copy is kept as ${report.keptAs})` : ''}`);
        options.onDamage?.(report);
      },
    });
    this.root = options.root;
    this.backend = options.backend;
    this.now = options.now ?? Date.now;
    this.policy = options.policy ?? DEFAULT_BACKOFF;
    this.doneLimit = options.doneLimit ?? DEFAULT_DONE_LIMIT;
    this.lease = new DrainLease({
      file: `${options.file}.drain`,
      owner: this.owner,
      staleMs: options.leaseStaleMs ?? DEFAULT_LEASE_STALE_MS,
      now: this.now,
      log: (message) => this.log('warn', `outbox: ${message}`),
    });
    this.log = options.log ?? (() => undefined);
  }

  /** Whether this outbox has a backend that can write (the CLI); without one, writes only queue. */
  get canSend(): boolean {
    return this.backend !== undefined && !this.backend.readOnly;
  }

  /** Writes of this project still to be sent. */
  get pendingCount(): number {
    return this.state.pending.filter((entry) => entry.root === this.root).length;
  }

  /** Writes of this project parked because they can never succeed; kept until the user acts. */
  get failedCount(): number {
    return this.state.failed.filter((entry) => entry.root === this.root).length;
  }

  get pending(): readonly PendingWrite[] {
    return this.state.pending.filter((entry) => entry.root === this.root);
  }

  get failed(): readonly FailedWrite[] {
    return this.state.failed.filter((entry) => entry.root === this.root);
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
   * listener, so what it records is done before `drain`/`sendNow` resolve. A write another
   * process landed is that process's to report.
   */
  onDidLand(listener: LandListener): Subscription {
    return subscribe(this.landListeners, listener);
  }

  /** Reads the file; call once before relying on the counts. Sending starts if anything is due. */
  load(): Promise<void> {
    this.loaded ??= this.reload().then(
      () => this.kick(),
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
    const wasWritable = this.backend !== undefined && !this.backend.readOnly;
    this.backend = backend;
    if (backend && !backend.readOnly && !wasWritable) void this.retryNow();
  }

  async enqueue(write: BeadsWrite): Promise<void> {
    await this.load();
    let added = false;
    await this.mutate((state) => {
      const now = this.now();
      if (knownWrite(state, write, now)) return;
      state.pending.push({ write, root: this.root, enqueuedAt: now, attempts: 0, nextAttemptAt: now });
      added = true;
    });
    if (added) this.kick();
  }

  /** Whether this write (by key) has landed, and — for typed words — recently enough that sending it again would be a duplicate. */
  landedAlready(write: BeadsWrite): boolean {
    return this.state.done.some((entry) => entry.key === write.key && landedWithinWindow(write, entry, this.now()));
  }

  /** Where a write stands, by key; a write merged into a later one stands where that one does. */
  status(key: string, seen = new Set<string>()): WriteStatus {
    if (this.state.pending.some((entry) => entry.write.key === key)) return 'pending';
    if (this.state.failed.some((entry) => entry.write.key === key)) return 'failed';
    const done = this.state.done.find((entry) => entry.key === key);
    seen.add(key);
    if (done?.supersededBy !== undefined && !seen.has(done.supersededBy)) return this.status(done.supersededBy, seen);
    return done ? 'done' : 'unknown';
  }

  /**
   * The CLI's clock minus ours (ms), as measured on the last comment it stamped for this project
   * (0: no skew evident); undefined before any. Comment times are read through it (core/checkpoint, onOurClock).
   */
  get cliClockOffsetMs(): number | undefined {
    return this.state.clocks?.[this.root]?.offsetMs;
  }

  /** Whether a comment with this text on this issue is one the outbox wrote or is writing. */
  isOwnComment(issueId: string, text: string): boolean {
    const hash = textHash(text);
    return (
      this.state.done.some((entry) => entry.issueId === issueId && entry.textHash === hash) ||
      this.state.pending.some((entry) => entry.write.kind === 'comment' && entry.write.issueId === issueId && textHash(entry.write.text) === hash)
    );
  }

  /** Sends every pending write now, whatever its backoff said: the CLI may be back. */
  async retryNow(): Promise<void> {
    await this.load();
    const now = this.now();
    await this.mutate((state) => {
      for (const entry of state.pending) if (entry.root === this.root) entry.nextAttemptAt = Math.min(entry.nextAttemptAt, now);
    });
    this.kick();
  }

  /** Puts parked writes back in the queue (the user fixed what was wrong, or wants to see it fail again). */
  async requeueFailed(): Promise<number> {
    const now = this.now();
    const moved = await this.takeFailed((state, entry) => {
      state.pending.push({ write: entry.write, root: entry.root, enqueuedAt: entry.enqueuedAt, attempts: 0, nextAttemptAt: now, mayHaveLanded: true });
    });
    if (moved > 0) this.kick();
    return moved;
  }

  /** Forgets parked writes; their keys count as done, so a duplicate signal does not bring them back. */
  discardFailed(): Promise<number> {
    const now = this.now();
    return this.takeFailed((state, entry) => {
      state.done.push({ key: entry.write.key, issueId: entry.write.issueId, at: now });
    });
  }

  /** Removes this project's parked writes, handing each to `use`; returns how many there were. */
  private async takeFailed(use: (state: OutboxState, entry: FailedWrite) => void): Promise<number> {
    await this.load();
    let taken = 0;
    await this.mutate((state) => {
      const mine = state.failed.filter((entry) => entry.root === this.root);
      state.failed = state.failed.filter((entry) => entry.root !== this.root);
      for (const entry of mine) use(state, entry);
      taken = mine.length;
    });
    return taken;
  }

  /**
   * One attempt at every write that is due, now: for a short-lived process (the command line)
   * that leaves later retries to VS Code or its next run. A write waiting out its backoff keeps
   * waiting, whoever asks: that is what spaces the attempts of many short-lived processes.
   * Resolves when that pass is over; a write another drainer holds stays pending.
   */
  async sendDue(): Promise<void> {
    await this.load();
    this.kick();
    await this.pass;
  }

  /**
   * Resolves when every write of this project queued before the call (or those of `keys`) has
   * landed or been parked, or when the signal aborts (then some may still be pending: see
   * `pendingCount`/`status`). Due writes are tried at once, the others when they are due.
   */
  async drain(signal?: AbortSignal, keys?: readonly string[]): Promise<void> {
    await this.load();
    this.kick();
    const waiting = new Set(keys ?? this.pending.map((entry) => entry.write.key));
    while (waiting.size > 0 && !signal?.aborted && !this.disposed) {
      await this.pass;
      for (const key of [...waiting]) if (this.status(key) !== 'pending') waiting.delete(key);
      if (waiting.size === 0) break;
      // A write due in a moment is waited for exactly; one due already, after a pass, waits for
      // another drainer or for a CLI, so the file is looked at again a little later.
      const untilDue = Math.min(...this.pending.map((entry) => entry.nextAttemptAt)) - this.now();
      await sleep(untilDue > 0 ? Math.min(FOLLOW_INTERVAL_MS, untilDue + 5) : FOLLOW_INTERVAL_MS, signal);
      // Another window may be the drainer: its progress shows only in the file.
      await this.reload();
      this.kick();
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.changeListeners.clear();
    this.parkListeners.clear();
    this.landListeners.clear();
  }

  /** Starts a drain pass, or asks the running one to look again when it ends. */
  private kick(): void {
    if (this.disposed) return;
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    this.pass = this.runPasses().finally(() => {
      this.pass = undefined;
      this.schedule();
    });
  }

  private async runPasses(): Promise<void> {
    do {
      this.passAgain = false;
      try {
        await this.drainPass();
      } catch (error) {
        this.log('error', `outbox: drain failed: ${errorMessage(error)}`);
      }
    } while (this.passAgain && !this.disposed);
  }

  /** Wakes up when the earliest pending write is due (or to follow another drainer's progress). */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed || !this.backend || this.backend.readOnly) return;
    const pending = this.pending;
    if (pending.length === 0) return;
    const earliest = Math.min(...pending.map((entry) => entry.nextAttemptAt));
    const delay = Math.max(FOLLOW_INTERVAL_MS, earliest - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.reload().then(() => this.kick());
    }, delay);
    this.timer.unref?.();
  }

  private async drainPass(): Promise<void> {
    const backend = this.backend;
    if (!backend || backend.readOnly) return;
    if (!this.pending.some((entry) => entry.nextAttemptAt <= this.now())) return;
    const lease = await this.lease.acquire();
    if (!lease) {
      await this.reload();
      return;
    }
    // Whatever a killed process left running (a write, or a read hanging on the database the
    // writes need) is ended first. A CLI of a drainer that is alive but lost its lease is the
    // in-flight mark's to end (endOrphanedCli).
    endOrphanedProcesses({ log: (message) => this.log('warn', `outbox: ${message}`) });
    try {
      let entry = await this.nextDue();
      while (entry && !this.disposed) {
        await this.lease.touch();
        const outcome = await this.attempt(backend, entry);
        if (outcome === 'stop') break;
        entry = await this.nextDue();
      }
    } finally {
      await this.lease.release();
    }
  }

  /** The first due write of this project whose issue has no earlier write still pending. */
  private async nextDue(): Promise<PendingWrite | undefined> {
    await this.reload();
    const now = this.now();
    const issuesAhead = new Set<string>();
    for (const entry of this.state.pending) {
      if (entry.root !== this.root) continue;
      const issueId = entry.write.issueId;
      if (issuesAhead.has(issueId)) continue;
      issuesAhead.add(issueId);
      if (entry.nextAttemptAt <= now) return entry;
    }
    return undefined;
  }

  /** One attempt at one write. 'stop' ends the pass: the CLI as a whole is unavailable. */
  private async attempt(backend: BeadsBackend, entry: PendingWrite): Promise<'next' | 'stop'> {
    const { write } = entry;
    const later = supersedingWrite(this.state, entry);
    if (later) {
      // Queued automatic checkpoints of one issue land as one comment: the latest records it all.
      this.log('info', `outbox: ${describeWrite(write)} is merged into the later ${describeWrite(later.write)}, which records the same work and more`);
      await this.markDone(write, 'moot', undefined, later.write.key);
      return 'next';
    }
    // Found in flight at the start of an attempt: its drainer died mid-write (we hold the lease).
    const uncertain = entry.mayHaveLanded === true || entry.inFlight !== undefined;
    // Its CLI may still be running, and could land the write after the check below said it had not.
    if (entry.inFlight?.cliPid !== undefined && entry.inFlight.owner !== this.owner) await this.endOrphanedCli(entry.inFlight);
    await this.mutate((state) => {
      const current = findPending(state, write.key);
      if (current) current.inFlight = { owner: this.owner, since: this.now() };
    });
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
          this.log('info', `outbox: ${describeWrite(write)} had already landed; not sent again`);
          await this.markDone(write, 'found');
          return 'next';
        }
        stillUncertain = false;
      }
      const sentAt = this.now();
      const answer = await observeSpawns((pid) => this.noteCliPid(write.key, pid), () => send(backend, write));
      const stampedAt = parseTimestamp(answer?.createdAt);
      const landedAt = this.now();
      await this.markDone(write, 'sent', stampedAt === undefined ? undefined : { offsetMs: cliClockOffset(stampedAt, sentAt, landedAt), measuredAt: landedAt });
      return 'next';
    } catch (error) {
      return this.recordFailure(entry, error, stillUncertain);
    }
  }

  private noteCliPid(key: string, cliPid: number): void {
    this.mutate((state) => {
      const current = findPending(state, key);
      if (current?.inFlight?.owner === this.owner) current.inFlight.cliPid = cliPid;
    }).catch((error: unknown) => this.log('warn', `outbox: could not note the pid of the CLI writing ${key}: ${errorMessage(error)}`));
  }

  /** Ends the CLI a dead drainer left writing, and waits (briefly) for it to be gone. */
  private async endOrphanedCli(inFlight: NonNullable<PendingWrite['inFlight']>): Promise<void> {
    const pid = inFlight.cliPid;
    // An old pid may belong to another program by now.
    if (pid === undefined || this.now() - inFlight.since > ORPHAN_PID_TRUST_MS || !processTreeIsAlive(pid)) return;
    this.log('warn', `outbox: ending the CLI (pid ${pid}) that a drainer which is gone left writing`);
    killProcessTree(pid, 'SIGKILL');
    const deadline = Date.now() + ORPHAN_EXIT_WAIT_MS;
    while (processTreeIsAlive(pid) && Date.now() < deadline) await sleep(20);
  }

  private async recordFailure(entry: PendingWrite, error: unknown, uncertain: boolean): Promise<'next' | 'stop'> {
    const { write } = entry;
    if (error instanceof CliError && error.kind === 'canceled') {
      await this.mutate((state) => {
        const current = findPending(state, write.key);
        if (!current) return;
        delete current.inFlight;
        current.mayHaveLanded = true;
      });
      return 'stop';
    }
    const now = this.now();
    const decision = decideAfterFailure(toWriteFailure(error), entry.attempts + 1, now, this.policy);
    // A freeze is no attempt of the write's own: its backoff does not grow.
    const attempts = decision.action === 'retry' && !decision.counted ? entry.attempts : entry.attempts + 1;
    const message = errorMessage(error);
    if (decision.action === 'park' && decision.reason === 'moot') {
      // Nothing left to do (br: already closed, or gone): the write's purpose holds or cannot be had.
      this.log('info', `outbox: ${describeWrite(write)}: ${message}; counted as done`);
      await this.markDone(write, 'moot');
      return 'next';
    }
    if (decision.action === 'park') {
      await this.park(write.key, decision.reason, message);
      return 'next';
    }
    this.log('warn', `outbox: ${describeWrite(write)} failed (attempt ${attempts}, ${describeDecision(decision)}); retrying in ${Math.round((decision.at - now) / 1000)} s: ${message}`);
    await this.mutate((state) => {
      const current = findPending(state, write.key);
      if (!current) return;
      delete current.inFlight;
      current.attempts = attempts;
      current.nextAttemptAt = decision.at;
      current.lastError = message;
      current.lastReason = decision.reason;
      current.mayHaveLanded = uncertain || decision.mayHaveLanded || undefined;
      if (affectsEveryWrite(decision)) {
        // The CLI as a whole is unavailable: the other writes wait as long, without a failure each.
        for (const other of state.pending) if (other.root === this.root) other.nextAttemptAt = Math.max(other.nextAttemptAt, decision.at);
      }
    });
    return affectsEveryWrite(decision) ? 'stop' : 'next';
  }

  /** `moot`: not landed, but nothing is left to do (the issue is closed or gone). */
  private async markDone(write: BeadsWrite, how: 'sent' | 'found' | 'moot', clock?: CliClock, supersededBy?: string): Promise<void> {
    const now = this.now();
    await this.mutate((state) => {
      if (clock) state.clocks = { ...state.clocks, [this.root]: clock };
      state.pending = state.pending.filter((entry) => entry.write.key !== write.key);
      state.done.push({
        key: write.key,
        issueId: write.issueId,
        at: now,
        ...(write.kind === 'comment' && supersededBy === undefined ? { textHash: textHash(write.text) } : {}),
        ...(supersededBy === undefined ? {} : { supersededBy }),
      });
      if (state.done.length > this.doneLimit) state.done.splice(0, state.done.length - this.doneLimit);
      // The CLI just worked, so what waited for the CLI as a whole (missing, locked, slow, frozen)
      // can go now; a write that failed for its own reasons keeps its spacing.
      if (how === 'sent') {
        for (const entry of state.pending) if (entry.root === this.root && waitsForTheCli(entry)) entry.nextAttemptAt = Math.min(entry.nextAttemptAt, now);
      }
    });
    if (how === 'moot') return;
    for (const listener of [...this.landListeners]) {
      try {
        await listener(write);
      } catch (error) {
        this.log('warn', `outbox: after ${describeWrite(write)} landed: ${errorMessage(error)}`);
      }
    }
  }

  private async park(key: string, reason: ParkReason, error: string): Promise<void> {
    let parked: FailedWrite | undefined;
    const now = this.now();
    await this.mutate((state) => {
      const entry = findPending(state, key);
      if (!entry) return;
      state.pending = state.pending.filter((candidate) => candidate !== entry);
      parked = { write: entry.write, root: entry.root, enqueuedAt: entry.enqueuedAt, attempts: entry.attempts + 1, failedAt: now, reason, error };
      state.failed.push(parked);
    });
    if (!parked) return;
    this.log('error', `outbox: ${describeWrite(parked.write)} will not be retried (${describeDecision({ action: 'park', reason })}): ${error}`);
    for (const listener of [...this.parkListeners]) listener(parked);
  }

  // --- the file ---------------------------------------------------------------------------

  private async reload(): Promise<void> {
    const before = JSON.stringify(this.state);
    this.state = await this.readState();
    if (JSON.stringify(this.state) !== before) this.emitChange();
  }

  private readState(): Promise<OutboxState> {
    return this.disk.read();
  }

  /** Read, change, write atomically, under the file's lock (other windows and processes use it too). */
  private async mutate(change: (state: OutboxState) => void): Promise<void> {
    this.state = await this.disk.update((state) => {
      change(state);
      return state;
    });
    this.emitChange();
  }

  private emitChange(): void {
    for (const listener of [...this.changeListeners]) listener();
  }
}

/** Sends one write through the backend: one CLI process. A comment's answer carries the CLI's stamp. */
async function send(backend: BeadsBackend, write: BeadsWrite): Promise<AddedComment | void> {
  switch (write.kind) {
    case 'comment':
      return backend.addComment(write.issueId, write.text);
    case 'claim':
      return backend.claim(write.issueId);
    case 'close':
      return backend.close(write.issueId, write.reason, undefined, { force: write.force });
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

export function describeWrite(write: BeadsWrite): string {
  switch (write.kind) {
    case 'comment':
      return `comment on ${write.issueId} (${write.key})`;
    case 'claim':
      return `claim of ${write.issueId}`;
    case 'close':
      return `close of ${write.issueId}`;
  }
}

/**
 * The later automatic checkpoint of the same issue that makes `entry` (an automatic checkpoint)
 * unnecessary: queued after it with no other kind of write to the issue in between.
 */
function supersedingWrite(state: OutboxState, entry: PendingWrite): PendingWrite | undefined {
  if (!isCumulative(entry.write)) return undefined;
  const sameIssue = state.pending.filter((other) => other.root === entry.root && other.write.issueId === entry.write.issueId);
  const after = sameIssue.slice(sameIssue.indexOf(entry) + 1);
  let latest: PendingWrite | undefined;
  for (const other of after) {
    if (!isCumulative(other.write)) break;
    latest = other;
  }
  return latest;
}

function isCumulative(write: BeadsWrite): boolean {
  return write.kind === 'comment' && write.cumulative === true;
}

function waitsForTheCli(entry: PendingWrite): boolean {
  const reason = entry.lastReason;
  return reason === undefined || affectsEveryWrite({ action: 'retry', reason, at: 0, mayHaveLanded: false, counted: true });
}

/** A key queued, parked, or landed (for typed words: within their window) is the same write again. */
function knownWrite(state: OutboxState, write: BeadsWrite, now: number): boolean {
  const { key } = write;
  return (
    state.pending.some((entry) => entry.write.key === key) ||
    state.failed.some((entry) => entry.write.key === key) ||
    state.done.some((entry) => entry.key === key && landedWithinWindow(write, entry, now))
  );
}

function landedWithinWindow(write: BeadsWrite, done: DoneWrite, now: number): boolean {
  const window = write.kind === 'comment' ? write.sameWithinMs : undefined;
  return window === undefined || now - done.at <= window;
}

function findPending(state: OutboxState, key: string): PendingWrite | undefined {
  return state.pending.find((entry) => entry.write.key === key);
}

/**
 * The state from parsed JSON. An entry with a bad field is repaired (a bad time or count: due now,
 * tried again first if it may have landed), or parked with the failed writes when its write itself
 * is unusable; an entry that is not a write at all is kept as it was, under `unreadable`. Nothing
 * is dropped. `problems` says what was done.
 */
function parseState(value: unknown, problems: string[]): OutboxState {
  const state = structuredClone(EMPTY_STATE);
  if (!isRecord(value) || value.version !== 1) {
    problems.push('it is not an outbox file of this version; it was set aside');
    state.unreadable.push(value);
    return state;
  }
  state.unreadable.push(...(Array.isArray(value.unreadable) ? value.unreadable : []));
  for (const raw of Array.isArray(value.pending) ? value.pending : []) {
    const entry = repairPending(raw);
    if (entry.kind === 'ok') state.pending.push(entry.value);
    else if (entry.kind === 'repaired') {
      state.pending.push(entry.value);
      problems.push(`the queued ${describeWrite(entry.value.write)} had a bad ${entry.fields.join(', ')}; repaired`);
    } else {
      state.unreadable.push(raw);
      problems.push('a queued entry without a usable write was set aside (kept in the file as unreadable)');
    }
  }
  for (const raw of Array.isArray(value.failed) ? value.failed : []) {
    if (!isRecord(raw) || !isBeadsWrite(raw.write)) state.unreadable.push(raw);
    else if (raw.reason === 'gave-up' && typeof raw.root === 'string') {
      // Parked by an earlier version for failing often; nothing but a final answer parks a write now.
      const attempts = typeof raw.attempts === 'number' && Number.isFinite(raw.attempts) ? raw.attempts : 0;
      state.pending.push({ write: raw.write, root: raw.root, enqueuedAt: typeof raw.enqueuedAt === 'number' ? raw.enqueuedAt : 0, attempts, nextAttemptAt: 0, mayHaveLanded: true });
    } else state.failed.push(raw as unknown as FailedWrite);
  }
  if (isRecord(value.clocks)) {
    const clocks = Object.entries(value.clocks).filter(([, clock]) => isRecord(clock) && Number.isFinite(clock.offsetMs) && Number.isFinite(clock.measuredAt));
    if (clocks.length > 0) state.clocks = Object.fromEntries(clocks) as Record<string, CliClock>;
  }
  state.done = (Array.isArray(value.done) ? value.done : []).filter((entry): entry is DoneWrite => isRecord(entry) && typeof entry.key === 'string' && typeof entry.issueId === 'string');
  return state;
}

function repairPending(raw: unknown): { kind: 'ok' | 'repaired'; value: PendingWrite; fields: string[] } | { kind: 'unusable' } {
  if (!isRecord(raw) || !isBeadsWrite(raw.write) || typeof raw.root !== 'string') return { kind: 'unusable' };
  const fields: string[] = [];
  const count = (name: 'attempts' | 'nextAttemptAt' | 'enqueuedAt') => {
    const field = raw[name];
    if (typeof field === 'number' && Number.isFinite(field) && field >= 0) return field;
    fields.push(name);
    return 0;
  };
  const value: PendingWrite = { write: raw.write, root: raw.root, enqueuedAt: count('enqueuedAt'), attempts: count('attempts'), nextAttemptAt: count('nextAttemptAt') };
  if (typeof raw.lastError === 'string') value.lastError = raw.lastError;
  const inFlight = raw.inFlight;
  if (isRecord(inFlight) && typeof inFlight.owner === 'string' && typeof inFlight.since === 'number') {
    value.inFlight = { owner: inFlight.owner, since: inFlight.since, ...(typeof inFlight.cliPid === 'number' ? { cliPid: inFlight.cliPid } : {}) };
  } else if (inFlight !== undefined) fields.push('inFlight');
  // Whatever was damaged, an attempt may have been under way: check beads before sending again.
  if (raw.mayHaveLanded === true || fields.length > 0) value.mayHaveLanded = true;
  return fields.length > 0 ? { kind: 'repaired', value, fields } : { kind: 'ok', value, fields };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBeadsWrite(write: unknown): write is BeadsWrite {
  if (typeof write !== 'object' || write === null) return false;
  const record = write as Record<string, unknown>;
  if (typeof record.key !== 'string' || typeof record.issueId !== 'string') return false;
  switch (record.kind) {
    case 'comment':
      return typeof record.text === 'string';
    case 'claim':
      return true;
    case 'close':
      return typeof record.reason === 'string';
    default:
      return false;
  }
}


/** The outbox's own name for a comment's text, kept in its record of sent writes: `<fnv1a>:<length>` of the trimmed text. */
function textHash(text: string): string {
  const trimmed = text.trim();
  return `${fnv1a(trimmed)}:${trimmed.length}`;
}

function subscribe<T>(listeners: Set<Listener<T>>, listener: Listener<T>): Subscription {
  listeners.add(listener);
  return { dispose: () => listeners.delete(listener) };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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



