// One JSON state file shared by every window and the command line: the ledger
// (src/services/ledgerStore.ts) and the outbox (src/services/outbox.ts) both keep theirs this way.
// Writes are atomic (io/atomicWrite.ts: a temporary file, fsynced, renamed over the file), a
// read-change-write runs under a cross-process lock (io/fileLock.ts: a lock directory whose
// mtime its holder keeps fresh, broken once stale), and a damaged file is not thrown away: what
// still parses of it is recovered, the file is kept beside it, and the damage is reported.

import { copyFile, mkdir, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage } from '../core/errors';
import { writeFileAtomic } from '../io/atomicWrite';
import { lockFile } from '../io/fileLock';
import { readTextFile, STATE_FILE_MAX_BYTES } from '../io/safeRead';

/** What a read had to leave out or repair, for the user (a notification, a stderr line). */
export interface DamageReport {
  file: string;
  /** Where the damaged file was copied before anything replaced it. */
  keptAs?: string;
  /** What was recovered and what was not, in words. */
  details: string[];
}

/** One line for the user: which file, what was done, where the damaged copy is. */
export function describeDamage(what: string, report: DamageReport): string {
  return `the ${what} (${report.file}) was damaged: ${report.details.join('; ')}${report.keptAs ? `. The damaged file is kept as ${report.keptAs}` : ''}.`;
}

export interface DurableJsonOptions<T> {
  file: string;
  empty(): T;
  /**
   * Turns parsed JSON into the state, repairing what it can; `problems` collects what it had to
   * repair or set aside. Must not throw.
   */
  parse(value: unknown, problems: string[]): T;
  /** A lock directory untouched for this long belongs to a writer that died. */
  staleLockMs?: number;
  /** How long to wait for another writer's lock before giving up. */
  lockWaitMs?: number;
  onDamage?(report: DamageReport): void;
  now?: () => number;
}

const DEFAULT_STALE_LOCK_MS = 10_000;
const DEFAULT_LOCK_WAIT_MS = 15_000;

export class DurableJsonFile<T> {
  readonly file: string;
  private readonly options: DurableJsonOptions<T>;
  /** Callers in this process queue here: the lock directory is per process, not per caller. */
  private chain: Promise<unknown> = Promise.resolve();
  private reportedText: string | undefined;

  constructor(options: DurableJsonOptions<T>) {
    this.file = options.file;
    this.options = options;
  }

  /**
   * The state on disk: empty when there is no file; what can be recovered when it is damaged.
   * Throws for a file that is not a regular one (a FIFO would block the process for ever) or is
   * larger than STATE_FILE_MAX_BYTES; the next write replaces it.
   */
  async read(): Promise<T> {
    const text = await readTextFile(this.file, { maxBytes: STATE_FILE_MAX_BYTES });
    if (text === undefined) return this.options.empty();
    const problems: string[] = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      value = salvageJsonObject(text);
      problems.push(`it is not valid JSON (${errorMessage(error)}); the entries that could still be read were kept`);
    }
    const state = value === undefined ? this.options.empty() : this.options.parse(value, problems);
    // Once per damaged text: until the next write replaces it, every read finds the same damage.
    if (problems.length > 0 && text !== this.reportedText) {
      this.reportedText = text;
      await this.reportDamage(problems);
    }
    return state;
  }

  /** Reads, changes and writes the file under the lock; returns the state written. */
  update(change: (state: T) => T | undefined | Promise<T | undefined>): Promise<T> {
    const run = this.chain.then(
      () => this.locked(async () => {
        const state = await this.read();
        const before = JSON.stringify(state);
        const next = (await change(state)) ?? state;
        if (JSON.stringify(next) !== before) await this.write(next);
        return next;
      }),
    );
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Replaces the file atomically (callers that merge under `locked` themselves). */
  async write(state: T): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(state)}\n`);
  }

  /** Runs `work` holding the file's cross-process lock. */
  async locked<R>(work: () => Promise<R>): Promise<R> {
    await mkdir(dirname(this.file), { recursive: true });
    const stale = Math.max(2_000, this.options.staleLockMs ?? DEFAULT_STALE_LOCK_MS);
    const waitMs = this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    await this.removeStaleLegacyLock(stale);
    // Only another writer's lock is worth waiting for: a lock that cannot be made at all (a folder
    // not writable, a read-only disk) fails at once.
    const release = await lockFile(this.file, {
      staleMs: stale,
      waitMs,
      // A lock taken over because this process stalled: its write still lands atomically; say so.
      onCompromised: (error) => this.options.onDamage?.({ file: this.file, details: [`its lock was taken over while held: ${error.message}`] }),
    });
    try {
      return await work();
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Version 0.1.0 locked with an exclusive *file* at the same path, `<file>.lock`. Today's lock
   * (io/fileLock.ts) is a directory there and can only break a stale directory, so a file left by a 0.1.0
   * writer that died would block every write after an update. A stale one is removed, as 0.1.0
   * itself would have done; a fresh one belongs to a 0.1.0 writer still at work and is left alone.
   */
  private async removeStaleLegacyLock(staleMs: number): Promise<void> {
    const legacy = `${this.file}.lock`;
    const info = await stat(legacy).catch(() => undefined);
    if (info?.isFile() && (this.options.now ?? Date.now)() - info.mtimeMs > staleMs) {
      await unlink(legacy).catch(() => undefined);
    }
  }

  private async reportDamage(details: string[]): Promise<void> {
    const keptAs = `${this.file}.damaged-${(this.options.now ?? Date.now)()}`;
    const copied = await copyFile(this.file, keptAs).then(
      () => true,
      () => false,
    );
    this.options.onDamage?.({ file: this.file, keptAs: copied ? keptAs : undefined, details });
  }
}

/**
 * What can still be read of a JSON object whose text is damaged (cut short, or garbage inside):
 * every top-level member whose value parses, and of a member that is an array or object, every
 * element or entry that parses on its own. Undefined when the text does not start an object.
 */
export function salvageJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  const result: Record<string, unknown> = {};
  for (const member of members(text, start)) {
    const value = text.slice(member.valueStart, member.valueEnd).trim();
    const parsed = tryParse(value);
    if (parsed.ok) {
      result[member.key] = parsed.value;
      continue;
    }
    const opening = value[0];
    if (opening === '[') {
      result[member.key] = elements(text, member.valueStart + text.slice(member.valueStart).indexOf('['))
        .map((element) => tryParse(text.slice(element.start, element.end)))
        .filter((element) => element.ok)
        .map((element) => element.value);
    } else if (opening === '{') {
      const entries: Record<string, unknown> = {};
      for (const entry of members(text, member.valueStart + text.slice(member.valueStart).indexOf('{'))) {
        const parsedEntry = tryParse(text.slice(entry.valueStart, entry.valueEnd));
        if (parsedEntry.ok) entries[entry.key] = parsedEntry.value;
      }
      result[member.key] = entries;
    }
  }
  return result;
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function tryParse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The `"key": value` members of the object opening at `open`, as text ranges (a cut-off value runs to the end). */
function members(text: string, open: number): { key: string; valueStart: number; valueEnd: number }[] {
  const found: { key: string; valueStart: number; valueEnd: number }[] = [];
  for (const part of parts(text, open)) {
    const segment = text.slice(part.start, part.end);
    const match = /^\s*("(?:[^"\\]|\\.)*")\s*:/.exec(segment);
    if (!match?.[1]) continue;
    const key = tryParse(match[1]);
    if (!key.ok || typeof key.value !== 'string') continue;
    found.push({ key: key.value, valueStart: part.start + match[0].length, valueEnd: part.end });
  }
  return found;
}

function elements(text: string, open: number): { start: number; end: number }[] {
  return parts(text, open);
}

/**
 * The comma-separated parts at the top level of the container opening at `open` ('{' or '['),
 * strings and nesting respected. A container cut short ends at the end of the text.
 */
function parts(text: string, open: number): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  let depth = 0;
  let inString = false;
  let partStart = open + 1;
  for (let index = open + 1; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      if (depth === 0) {
        if (text.slice(partStart, index).trim() !== '') found.push({ start: partStart, end: index });
        return found;
      }
      depth--;
    } else if (char === ',' && depth === 0) {
      found.push({ start: partStart, end: index });
      partStart = index + 1;
    }
  }
  if (text.slice(partStart).trim() !== '') found.push({ start: partStart, end: text.length });
  return found;
}
