// The outbox's durable queue (docs/ARCHITECTURE.md §4): the writes waiting for beads, the ones
// beads refused (parked), the keys that landed, and the CLI's clock offset, in one JSON file shared
// by every window and process (a DurableJsonFile: atomic write, cross-process lock, damage
// recovered entry by entry). It only keeps the record — what to send when, and sending it, is the
// drainer's (src/services/outboxDrainer.ts) — and every change is one locked read-change-write.
//
// - A key already pending, parked or done is ignored on enqueue (done keys are kept, capped;
//   typed words only within their window, BeadsWrite.sameWithinMs).
// - An entry marked in flight belongs to the drainer that marked it; found so by another, its
//   attempt may have landed (the outbox's header says how that is checked).

import { fnv1a } from '../core/hash';
import type { ParkReason, RetryReason } from '../core/outboxPolicy';
import { affectsEveryWrite } from '../core/outboxPolicy';
import { DurableJsonFile, type DamageReport } from './durableJson';
import type { BeadsWrite } from './writeQueue';

export interface PendingWrite {
  write: BeadsWrite;
  /** The beads project root the write belongs to; a file shared by worktrees holds several. */
  root: string;
  enqueuedAt: number;
  /** Failed attempts so far. */
  attempts: number;
  nextAttemptAt: number;
  /** When its last failed attempt ended (absent before the first, and in files of older versions). */
  lastTriedAt?: number;
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

export interface DoneWrite {
  key: string;
  issueId: string;
  at: number;
  /** For comments: a hash of the text, so a refresh can tell our comments from someone else's. */
  textHash?: string;
  /** Not sent: merged into this later write, which records the same and more. */
  supersededBy?: string;
}

export interface OutboxState {
  version: 1;
  pending: PendingWrite[];
  failed: FailedWrite[];
  done: DoneWrite[];
  /** Entries of a damaged file that are not writes at all: kept for a human, never sent. */
  unreadable: unknown[];
  /** Per project root: the CLI's clock minus ours, measured on the last comment it stamped for us. */
  clocks?: Record<string, CliClock>;
  /** Per project root: when the CLI last landed a write it was sent (the sign that it writes now). */
  landedAt?: Record<string, number>;
}

export interface CliClock {
  offsetMs: number;
  measuredAt: number;
}

export type WriteStatus = 'pending' | 'done' | 'failed' | 'unknown';

export interface OutboxQueueOptions {
  file: string;
  /** The project root whose writes this queue hands out; a file shared by worktrees holds several. */
  root: string;
  now?: () => number;
  /** How many done keys the file remembers. */
  doneLimit?: number;
  onDamage?: (report: DamageReport) => void;
}

const RETRY_REASONS: ReadonlySet<string> = new Set<RetryReason>(['cli-missing', 'locked', 'timeout', 'read-only', 'garbled', 'frozen', 'failed']);
const EMPTY_STATE: OutboxState = { version: 1, pending: [], failed: [], done: [], unreadable: [] };
const DEFAULT_DONE_LIMIT = 2_000;

export class OutboxQueue {
  readonly file: string;
  readonly root: string;
  private readonly now: () => number;
  private readonly doneLimit: number;
  private state: OutboxState = structuredClone(EMPTY_STATE);
  private readonly disk: DurableJsonFile<OutboxState>;
  private readonly changeListeners = new Set<() => void>();

  constructor(options: OutboxQueueOptions) {
    this.file = options.file;
    this.root = options.root;
    this.now = options.now ?? Date.now;
    this.doneLimit = options.doneLimit ?? DEFAULT_DONE_LIMIT;
    this.disk = new DurableJsonFile<OutboxState>({ file: options.file, empty: () => structuredClone(EMPTY_STATE), parse: parseState, now: options.now, onDamage: options.onDamage });
  }

  /** Told whenever the state read or written differs from what was known. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  clearListeners(): void {
    this.changeListeners.clear();
  }

  /** Reads the file again: another window or process may have changed it. */
  async reload(): Promise<void> {
    const before = JSON.stringify(this.state);
    this.state = await this.disk.read();
    if (JSON.stringify(this.state) !== before) this.emitChange();
  }

  get pending(): readonly PendingWrite[] {
    return this.state.pending.filter((entry) => entry.root === this.root);
  }

  get failed(): readonly FailedWrite[] {
    return this.state.failed.filter((entry) => entry.root === this.root);
  }

  /** Appends a write unless its key is known; true when it was added. */
  async add(write: BeadsWrite): Promise<boolean> {
    let added = false;
    await this.mutate((state) => {
      const now = this.now();
      if (knownWrite(state, write, now)) return;
      state.pending.push({ write, root: this.root, enqueuedAt: now, attempts: 0, nextAttemptAt: now });
      added = true;
    });
    return added;
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

  /** The CLI's clock minus ours (ms) for this project, as last measured; undefined before any. */
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

  /** Every pending write of this project due now (a person asked, or the CLI appeared). */
  async makeAllDue(): Promise<void> {
    const now = this.now();
    await this.mutate((state) => {
      for (const entry of state.pending) if (entry.root === this.root) entry.nextAttemptAt = Math.min(entry.nextAttemptAt, now);
    });
  }

  /**
   * Puts parked writes (all of this project's, or those of `keys`) back in the queue, due now and
   * checked against beads first; returns how many.
   */
  requeueFailed(keys?: readonly string[]): Promise<number> {
    const now = this.now();
    return this.takeFailed(keys, (state, entry) => {
      state.pending.push({ write: entry.write, root: entry.root, enqueuedAt: entry.enqueuedAt, attempts: 0, nextAttemptAt: now, mayHaveLanded: true });
    });
  }

  /** Forgets parked writes (all, or those of `keys`); their keys count as done, so a duplicate signal does not bring them back. */
  discardFailed(keys?: readonly string[]): Promise<number> {
    const now = this.now();
    return this.takeFailed(keys, (state, entry) => {
      state.done.push({ key: entry.write.key, issueId: entry.write.issueId, at: now });
    });
  }

  private async takeFailed(keys: readonly string[] | undefined, use: (state: OutboxState, entry: FailedWrite) => void): Promise<number> {
    let taken = 0;
    const wanted = (entry: FailedWrite) => entry.root === this.root && (keys === undefined || keys.includes(entry.write.key));
    await this.mutate((state) => {
      const mine = state.failed.filter(wanted);
      state.failed = state.failed.filter((entry) => !wanted(entry));
      for (const entry of mine) use(state, entry);
      taken = mine.length;
    });
    return taken;
  }

  /** When the CLI last landed a write sent to it for this project; undefined before any. */
  get lastLandedAt(): number | undefined {
    return this.state.landedAt?.[this.root];
  }

  /**
   * The first due write of this project whose issue has no earlier write still pending (reads the
   * file first). An issue's oldest write that still waits out its backoff while a later write of
   * its issue is due is the drainer's to choose: it is returned when `sendsAhead` says so.
   */
  async nextDue(sendsAhead: (head: PendingWrite) => boolean = () => false): Promise<PendingWrite | undefined> {
    await this.reload();
    const now = this.now();
    const heads = new Map<string, PendingWrite>();
    const askedAbout = new Set<string>();
    for (const entry of this.state.pending) {
      if (entry.root !== this.root) continue;
      const issueId = entry.write.issueId;
      const head = heads.get(issueId);
      if (!head) {
        heads.set(issueId, entry);
        if (entry.nextAttemptAt <= now) return entry;
      } else if (entry.nextAttemptAt <= now && !askedAbout.has(issueId)) {
        askedAbout.add(issueId);
        if (sendsAhead(head)) return head;
      }
    }
    return undefined;
  }

  /** An earlier write of `entry`'s issue that still waits for its retry: `entry` goes after it. */
  waitingAhead(entry: PendingWrite): PendingWrite | undefined {
    const now = this.now();
    for (const other of this.state.pending) {
      if (other.write.key === entry.write.key) return undefined;
      if (other.root === entry.root && other.write.issueId === entry.write.issueId && other.nextAttemptAt > now) return other;
    }
    return undefined;
  }

  /** Forgets parked writes of `keys` without counting them done: their caller was told of the refusal, and asking again sends them again. */
  dropFailed(keys: readonly string[]): Promise<number> {
    return this.takeFailed(keys, () => undefined);
  }

  /**
   * The later automatic checkpoint of the same issue that makes `entry` (an automatic checkpoint)
   * unnecessary: queued after it with no other kind of write to the issue in between.
   */
  supersedingWrite(entry: PendingWrite): PendingWrite | undefined {
    if (!isCumulative(entry.write)) return undefined;
    const sameIssue = this.state.pending.filter((other) => other.root === entry.root && other.write.issueId === entry.write.issueId);
    const after = sameIssue.slice(sameIssue.findIndex((other) => other.write.key === entry.write.key) + 1);
    let latest: PendingWrite | undefined;
    for (const other of after) {
      if (!isCumulative(other.write)) break;
      latest = other;
    }
    return latest;
  }

  /**
   * Claims the write for `owner`'s attempt, under the file's lock, only if the file still shows it
   * as `seen` (the entry the attempt was decided on): pending, with the same in-flight mark, tries
   * and doubt. False when another drainer tried, claimed or finished it since: the attempt would
   * send it again unchecked. The lease keeps drainers apart; this keeps one write's sends apart
   * even if the lease did not.
   */
  async markInFlight(key: string, owner: string, seen: PendingWrite): Promise<boolean> {
    let claimed = false;
    await this.mutate((state) => {
      const current = findPending(state, key);
      if (!current || !sameAttemptState(current, seen)) return;
      current.inFlight = { owner, since: this.now() };
      claimed = true;
    });
    return claimed;
  }

  /** Notes the pid (and process group) of the CLI writing `key`, while `owner` still holds it. */
  async noteCliPid(key: string, owner: string, cliPid: number): Promise<void> {
    await this.mutate((state) => {
      const current = findPending(state, key);
      if (current?.inFlight?.owner === owner) current.inFlight.cliPid = cliPid;
    });
  }

  /** The attempt was cancelled (the window is closing): due as it was, checked against beads first. */
  async markInterrupted(key: string): Promise<void> {
    await this.mutate((state) => {
      const current = findPending(state, key);
      if (!current) return;
      delete current.inFlight;
      current.mayHaveLanded = true;
    });
  }

  /**
   * The attempt failed and the write waits until `at`. `everyWriteWaits`: the CLI as a whole is
   * unavailable, so the project's other writes wait as long, without a failure each.
   */
  async recordRetry(key: string, retry: { attempts: number; at: number; error: string; reason: RetryReason; mayHaveLanded: boolean; everyWriteWaits: boolean }): Promise<void> {
    await this.mutate((state) => {
      const current = findPending(state, key);
      if (!current) return;
      delete current.inFlight;
      current.attempts = retry.attempts;
      current.nextAttemptAt = retry.at;
      current.lastTriedAt = this.now();
      current.lastError = retry.error;
      current.lastReason = retry.reason;
      current.mayHaveLanded = retry.mayHaveLanded || undefined;
      if (retry.everyWriteWaits) for (const other of state.pending) if (other.root === this.root) other.nextAttemptAt = Math.max(other.nextAttemptAt, retry.at);
    });
  }

  /**
   * The write is done: landed (`sent` now, or `found` in beads), or `moot` (nothing left to do, or
   * merged into `supersededBy`). A write that was sent frees what waited for the CLI as a whole.
   */
  async markDone(write: BeadsWrite, how: 'sent' | 'found' | 'moot', options: { clock?: CliClock; supersededBy?: string } = {}): Promise<void> {
    const now = this.now();
    const { clock, supersededBy } = options;
    await this.mutate((state) => {
      if (clock) state.clocks = { ...state.clocks, [this.root]: clock };
      if (how === 'sent') state.landedAt = { ...state.landedAt, [this.root]: now };
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
  }

  /** Moves a pending write to the parked ones; returns it, or undefined when it was no longer pending. */
  async park(key: string, reason: ParkReason, error: string): Promise<FailedWrite | undefined> {
    let parked: FailedWrite | undefined;
    const now = this.now();
    await this.mutate((state) => {
      const entry = findPending(state, key);
      if (!entry) return;
      state.pending = state.pending.filter((candidate) => candidate !== entry);
      parked = { write: entry.write, root: entry.root, enqueuedAt: entry.enqueuedAt, attempts: entry.attempts + 1, failedAt: now, reason, error };
      state.failed.push(parked);
    });
    return parked;
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

/** A write as a person reads it: what it is and on which issue, never the outbox's key. */
export function writeInWords(write: BeadsWrite): string {
  switch (write.kind) {
    case 'comment':
      return /^\s*(?:auto-)?checkpoint\b/i.test(write.text) ? `checkpoint on ${write.issueId}` : `comment on ${write.issueId}`;
    case 'claim':
      return `claim of ${write.issueId}`;
    case 'close':
      return `close of ${write.issueId}`;
  }
}

/** A write as the log names it, with its key to find it in the outbox file. */
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

function isCumulative(write: BeadsWrite): boolean {
  return write.kind === 'comment' && write.cumulative === true;
}

function waitsForTheCli(entry: PendingWrite): boolean {
  const reason = entry.lastReason;
  return reason === undefined || affectsEveryWrite({ action: 'retry', reason, at: 0, mayHaveLanded: false, counted: true });
}

/** Whether no attempt was made on the write between two readings (a CLI pid noted meanwhile is no attempt). */
function sameAttemptState(current: PendingWrite, seen: PendingWrite): boolean {
  return (
    current.attempts === seen.attempts &&
    current.lastTriedAt === seen.lastTriedAt &&
    (current.mayHaveLanded === true) === (seen.mayHaveLanded === true) &&
    current.inFlight?.owner === seen.inFlight?.owner &&
    current.inFlight?.since === seen.inFlight?.since
  );
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
  if (isRecord(value.landedAt)) {
    const landed = Object.entries(value.landedAt).filter(([, at]) => typeof at === 'number' && Number.isFinite(at));
    if (landed.length > 0) state.landedAt = Object.fromEntries(landed) as Record<string, number>;
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
  if (typeof raw.lastTriedAt === 'number' && Number.isFinite(raw.lastTriedAt)) value.lastTriedAt = raw.lastTriedAt;
  if (typeof raw.lastReason === 'string' && RETRY_REASONS.has(raw.lastReason)) value.lastReason = raw.lastReason as RetryReason;
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

