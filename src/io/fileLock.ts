// A cross-process lock on a file, in proper-lockfile's protocol (4.x, which earlier versions of
// this extension used, so a lock either takes is respected by the other): a directory
// `<file>.lock`, made by mkdir (atomic on local and network file systems alike), whose holder
// keeps its mtime fresh; one untouched for longer than the stale time belongs to a holder that
// died, and is broken.
//
// Written here, not taken from proper-lockfile: every agent start takes two of these locks, and
// proper-lockfile, with graceful-fs, retry and signal-exit under it, cost about 5 ms of CPU at
// each start (issue 28 gives all our work at a start about 25 ms). What this keeps of it: the
// same lock directory, the mtime kept fresh at half the stale time, a stale lock broken, a lock
// taken over while held reported, and the locks still held removed when the process exits.

import { rmdirSync } from 'node:fs';
import { mkdir, rmdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';

/** Another writer holds the lock, and it did not come free within the wait. */
export class LockHeldError extends Error {
  readonly code = 'ELOCKED';

  constructor(readonly file: string) {
    super(`${file} is locked by another writer`);
  }
}

export interface LockOptions {
  /** A lock untouched for this long belongs to a holder that died, and is broken. */
  staleMs: number;
  /** How long to wait for a live holder's lock; 0 gives up at once. */
  waitMs: number;
  /** The lock was taken over or removed while this process held it (it stalled past the stale time). */
  onCompromised?(error: Error): void;
}

/** Ends the hold; the lock directory is removed unless another writer has taken it over. */
export type ReleaseLock = () => Promise<void>;

const FIRST_RETRY_MS = 5;
const LONGEST_RETRY_MS = 50;
/** When a refresh of the lock's mtime fails for a passing reason, it is tried again this soon. */
const REFRESH_RETRY_MS = 1_000;

/**
 * Locks `file` (its `<file>.lock` directory). Waits for a live holder up to `waitMs`; any error
 * other than the lock being held (a folder that cannot be written, a read-only disk) is thrown at
 * once, since waiting would not change it.
 */
export async function lockFile(file: string, options: LockOptions): Promise<ReleaseLock> {
  const dir = `${path.resolve(file)}.lock`;
  const deadline = Date.now() + options.waitMs;
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(LONGEST_RETRY_MS, Math.ceil(delay * 1.5))) {
    if (await takeLock(dir, options.staleMs)) return hold(dir, options);
    if (Date.now() + delay > deadline) throw new LockHeldError(file);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** True when this process now holds the lock; false while a live holder has it. */
async function takeLock(dir: string, staleMs: number): Promise<boolean> {
  if (await makeLockDir(dir)) return true;
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  // Released between the two calls: free again.
  if (info !== undefined) {
    if (info.mtimeMs >= Date.now() - staleMs) return false;
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  // Another writer may have broken the same stale lock first: then it is theirs.
  return makeLockDir(dir);
}

async function makeLockDir(dir: string): Promise<boolean> {
  try {
    await mkdir(dir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Lock directories this process holds, removed if it exits holding them. */
const heldDirs = new Set<string>();
let removesAtExit = false;

async function hold(dir: string, options: LockOptions): Promise<ReleaseLock> {
  heldDirs.add(dir);
  if (!removesAtExit) {
    removesAtExit = true;
    process.once('exit', () => {
      for (const held of heldDirs) {
        try {
          rmdirSync(held);
        } catch {
          // Already gone, or taken over: nothing of ours to remove.
        }
      }
    });
  }
  // The mtime as the file system keeps it (some keep whole seconds): a refresh that finds another
  // one knows the lock was broken and taken by another writer. Undefined for a moment when a
  // refresh set it but could not read it back: the next refresh reads it again.
  let ownMtime: number | undefined = (await stat(dir)).mtimeMs;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  const compromised = (reason: string) => {
    released = true;
    heldDirs.delete(dir);
    options.onCompromised?.(new Error(reason));
  };
  const refresh = async () => {
    const info = await stat(dir).catch(() => undefined);
    if (released) return;
    if (info === undefined) return compromised('another writer removed it');
    if (ownMtime !== undefined && info.mtimeMs !== ownMtime) return compromised('another writer broke it as stale and took it');
    const now = new Date();
    const touched = await utimes(dir, now, now).then(() => true, () => false);
    if (released) return;
    if (touched) ownMtime = await stat(dir).then((after) => after.mtimeMs, () => undefined);
    schedule(touched ? options.staleMs / 2 : REFRESH_RETRY_MS);
  };
  const schedule = (delay: number) => {
    // A held lock does not keep the process alive; its holder's own work does.
    timer = setTimeout(() => void refresh(), delay).unref();
  };
  schedule(options.staleMs / 2);
  return async () => {
    clearTimeout(timer);
    if (released) return;
    released = true;
    heldDirs.delete(dir);
    await rmdir(dir).catch(() => undefined);
  };
}
