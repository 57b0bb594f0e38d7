import * as path from 'node:path';
import {
  emptyLedgerState,
  focusedLedger,
  markCheckpoint,
  noteEarlierCheckpoint,
  mergeLedgerStates,
  normalizeLedgerState,
  type Ledger,
  type LedgerState,
} from '../core/ledger';
import { findRepository, type GitRepository } from '../git/repo';
import type { GitOptions } from '../git/runGit';
import { DurableJsonFile, type DamageReport } from './durableJson';
import { errorMessage } from '../core/errors';

export interface LedgerLocation {
  /** The JSON file of the ledger. */
  file: string;
  /** The repository around the folder; undefined outside git (files are tracked, commits are not linked). */
  repository?: GitRepository;
}

/** Our folder in a repository's git directory: the ledger, and the command line's project cache. */
export const LEDGER_DIR = 'beads-recovery';
const LEDGER_FILE = 'ledger.json';

/**
 * Where the ledger of `folder` lives: inside the work tree's own git dir
 * (`<git-dir>/beads-recovery/ledger.json`), which git never tracks and every window, the
 * command line and a reloaded window find again; outside git, in `fallbackDir` (the extension's
 * workspace storage). A linked worktree has its own git dir, so each checkout keeps its own
 * ledger and its own reflog cursor. Undefined when neither exists.
 */
export async function locateLedger(folder: string, fallbackDir: string | undefined, options: GitOptions): Promise<LedgerLocation | undefined> {
  const repository = await findRepository(folder, options);
  if (repository) return ledgerIn(repository);
  return fallbackDir ? { file: path.join(fallbackDir, LEDGER_FILE) } : undefined;
}

/** The ledger of a repository already found (the command line finds it once and shares it). */
export function ledgerIn(repository: GitRepository): LedgerLocation {
  return { file: path.join(repository.gitDir, LEDGER_DIR, LEDGER_FILE), repository };
}

export interface LedgerStoreOptions {
  /** How long file events gather in memory before one write. */
  persistDelayMs?: number;
  /** A lock older than this belongs to a writer that died: it is broken (at least 2 s). */
  staleLockMs?: number;
  log?: (message: string) => void;
  /** A damaged ledger file was read: what was kept, for the user. */
  onDamage?: (report: DamageReport) => void;
}

export interface Subscription {
  dispose(): void;
}

type Transition = (state: LedgerState) => LedgerState | Promise<LedgerState>;

/**
 * The ledger state of one folder, in memory and in one JSON file shared by every window on the
 * folder and by the command line (a DurableJsonFile: atomic writes, a cross-process lock, damage
 * recovered and reported). Writes are made under the lock, after merging whatever another writer put there
 * (`mergeLedgerStates` loses no one's updates), so a reload, a crash or a second window never
 * loses or repeats what was recorded. Free of `vscode`: src/bin uses it too.
 */
export class LedgerStore {
  private value: LedgerState = emptyLedgerState();
  private dirty = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Every disk operation runs on this chain, one at a time. */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private readonly persistDelayMs: number;
  /** What the store did, for benchmarks and tests. */
  readonly stats = { reads: 0, writes: 0, changes: 0 };

  private readonly disk: DurableJsonFile<LedgerState>;

  constructor(readonly file: string, private readonly options: LedgerStoreOptions = {}) {
    this.persistDelayMs = options.persistDelayMs ?? 500;
    this.disk = new DurableJsonFile<LedgerState>({
      file,
      empty: emptyLedgerState,
      // normalizeLedgerState keeps every ledger that reads, and drops only what cannot be one.
      parse: (value) => normalizeLedgerState(value),
      staleLockMs: options.staleLockMs,
      onDamage: (report) => {
        options.log?.(`the ledger file was damaged: ${report.details.join('; ')}${report.keptAs ? ` (a copy is kept as ${report.keptAs})` : ''}`);
        options.onDamage?.(report);
      },
    });
  }

  get state(): LedgerState {
    return this.value;
  }

  /** The focused issue's ledger. */
  current(): Ledger | undefined {
    return focusedLedger(this.value);
  }

  /** Reads the file (missing or unreadable: an empty ledger) and merges it into memory. */
  load(): Promise<void> {
    return this.enqueue(async () => {
      const disk = await this.readDisk();
      this.value = mergeLedgerStates(this.value, disk);
    });
  }

  /**
   * Applies a transition in memory only and writes later, once for a whole burst: the path for
   * file events, which must stay cheap. Listeners hear of it when it is written.
   */
  record(transition: (state: LedgerState) => LedgerState): void {
    const next = transition(this.value);
    if (next === this.value) return;
    this.value = next;
    this.dirty = true;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.flush().catch((error: unknown) => this.options.log?.(`could not write the ledger: ${errorMessage(error)}`));
      }, this.persistDelayMs);
    }
  }

  /**
   * Applies a transition to the freshest state (the file merged in, under the lock) and writes it
   * before resolving. Transitions run one at a time, across windows too. Anything recorded while
   * an asynchronous transition ran is merged back in, not overwritten.
   */
  update(transition: Transition): Promise<void> {
    return this.enqueue(() =>
      this.withLock(async () => {
        const disk = await this.readDisk();
        const base = mergeLedgerStates(this.value, disk);
        this.value = base;
        const next = await transition(base);
        this.value = this.value === base ? next : mergeLedgerStates(next, this.value);
        const written = this.value;
        await this.writeDisk(written);
        // An edit recorded while the file was written is not in it: it stays for its delayed write,
        // which would find nothing to do (and tell no one) if the store were marked clean here.
        if (this.value === written) this.dirty = false;
        this.notify();
      }),
    );
  }

  markCheckpoint(issueId: string, now: number): Promise<void> {
    return this.update((state) => markCheckpoint(state, issueId, now));
  }

  noteEarlierCheckpoint(issueId: string, at: number, now?: number): Promise<void> {
    return this.update((state) => noteEarlierCheckpoint(state, issueId, at, now));
  }

  /** Writes what `record` gathered now rather than after the delay; resolves when every queued write is done. */
  flush(): Promise<void> {
    this.clearTimer();
    return this.enqueue(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await this.withLock(async () => {
          const disk = await this.readDisk();
          this.value = mergeLedgerStates(this.value, disk);
          await this.writeDisk(this.value);
        });
      } catch (error) {
        this.dirty = true;
        throw error;
      }
      this.notify();
    });
  }

  /** Merges in what another writer put in the file; listeners hear of it when that changed anything. */
  reload(): Promise<boolean> {
    return this.enqueue(async () => {
      const disk = await this.readDisk();
      const merged = mergeLedgerStates(this.value, disk);
      if (JSON.stringify(merged) === JSON.stringify(this.value)) return false;
      this.value = merged;
      this.notify();
      return true;
    });
  }

  onDidChange(listener: () => void): Subscription {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Stops the pending delayed write; call `flush` first to keep what it held. */
  dispose(): void {
    this.clearTimer();
    this.listeners.clear();
  }

  private notify(): void {
    this.stats.changes += 1;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.options.log?.(`ledger listener failed: ${errorMessage(error)}`);
      }
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.chain.then(operation, operation);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * The file's state. Callers merge it into `this.value` only after the read: `record` may run
   * while it reads (an editor save), and a value taken before the read would drop that record.
   */
  private async readDisk(): Promise<LedgerState> {
    this.stats.reads += 1;
    return this.disk.read();
  }

  private async writeDisk(state: LedgerState): Promise<void> {
    this.stats.writes += 1;
    await this.disk.write(state);
  }

  /** Holds the file's lock around a read-merge-write, so two writers cannot interleave. */
  private withLock<T>(work: () => Promise<T>): Promise<T> {
    return this.disk.locked(work);
  }
}
