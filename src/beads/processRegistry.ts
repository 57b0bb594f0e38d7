// Every process runCli starts is noted in a small registry on disk while it runs, so that one left
// behind by a process that was killed outright (SIGKILL, a crash, an agent ending its hook) is
// ended by the next run: a `br where` hanging for a hook that was killed would otherwise run on,
// holding the database, for as long as it hangs. runCli kills its groups at its own timeout and
// when its process exits normally; this covers the owner that could not.
//
// One file per running process, `<owner pid>-<child pid>.json`, in a per-user folder of the temp
// directory: runCli starts processes (detection's `where`) before any project, and so any project
// state folder, is known. A file is written synchronously right after the spawn, to keep the
// window in which a kill leaves an unnoted process as short as it can be, and removed when the
// process ends.
//
// A pid can be reused once its process is gone, so nothing is killed on the pid alone:
// - the owner counts as gone only when no process has its pid, or (Linux) the one that has it
//   started at another time than the owner did;
// - the recorded process is ended only while its process group (POSIX; the process leads its own
//   group, and a pid is not reused while a group of that id has members) or the process (Windows)
//   is alive, when on Linux its start time is still the recorded one, and only within
//   ORPHAN_TRUST_MS of its start (macOS and Windows give no cheap start time: age is the guard).

import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

const IS_WINDOWS = process.platform === 'win32';
/** A recorded process older than this is not trusted to be ours any more: its entry is dropped, the process left alone. */
export const ORPHAN_TRUST_MS = 60 * 60_000;
/** An entry that cannot be read (written half by a process killed mid-write) is removed after this long. */
const UNREADABLE_GRACE_MS = 60_000;

export interface ProcessEntry {
  /** The started process; on POSIX also its process group. */
  pid: number;
  /** Linux: its start time in clock ticks since boot, from /proc; elsewhere absent. */
  started?: string;
  /** The process that started it (runCli's), and its start time where known. */
  ownerPid: number;
  ownerStarted?: string;
  /** Epoch ms when it was started. */
  at: number;
  /** The executable, for the log. */
  command: string;
}

/** The registry's folder: per user, so that one user's runs never judge another's. */
export function processRegistryDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.BEADS_RECOVERY_PROCESS_DIR;
  if (override) return override;
  let user: string;
  try {
    user = IS_WINDOWS ? userInfo().username : String(userInfo().uid);
  } catch {
    user = 'user';
  }
  return path.join(tmpdir(), `beads-recovery-${user.replace(/[^A-Za-z0-9_.-]/g, '_')}`, 'processes');
}

let ownStart: string | undefined | null = null;

/** This process's start time (Linux), computed once. */
function ownStartIdentity(): string | undefined {
  if (ownStart === null) ownStart = startIdentity(process.pid);
  return ownStart;
}

/**
 * Notes a started process; returns what removes the note. Never throws: a registry that cannot be
 * written (a read-only temp directory) costs only this safety net, not the call.
 */
export function recordProcess(pid: number, command: string, now = Date.now()): () => void {
  const dir = processRegistryDir();
  const file = path.join(dir, `${process.pid}-${pid}.json`);
  const entry: ProcessEntry = { pid, started: startIdentity(pid), ownerPid: process.pid, ownerStarted: ownStartIdentity(), at: now, command: path.basename(command) };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(entry), { mode: 0o600 });
  } catch {
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

/**
 * Ends the processes whose owner is gone (with everything they started) and drops their entries.
 * Returns what was ended. Cheap when there is nothing to do: one directory listing. Never throws.
 */
export function endOrphanedProcesses(options: { now?: number; log?: (message: string) => void } = {}): ProcessEntry[] {
  const now = options.now ?? Date.now();
  const dir = processRegistryDir();
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const ended: ProcessEntry[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const entry = readEntry(file);
    if (!entry) {
      if (olderThan(file, UNREADABLE_GRACE_MS, now)) rmSync(file, { force: true });
      continue;
    }
    if (ownerIsAlive(entry)) continue;
    if (now - entry.at <= ORPHAN_TRUST_MS && isStillTheRecordedProcess(entry)) {
      options.log?.(`ending ${entry.command} (pid ${entry.pid}), left running by a process that is gone (pid ${entry.ownerPid})`);
      killProcessTree(entry.pid, 'SIGKILL', true);
      ended.push(entry);
    }
    rmSync(file, { force: true });
  }
  return ended;
}

function readEntry(file: string): ProcessEntry | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProcessEntry>;
    if (!isPid(value.pid) || !isPid(value.ownerPid) || typeof value.at !== 'number' || typeof value.command !== 'string') return undefined;
    return value as ProcessEntry;
  } catch {
    return undefined;
  }
}

function isPid(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function olderThan(file: string, ms: number, now: number): boolean {
  try {
    return now - statSync(file).mtimeMs > ms;
  } catch {
    return false;
  }
}

function ownerIsAlive(entry: ProcessEntry): boolean {
  if (!processExists(entry.ownerPid)) return false;
  // The pid is taken; by the owner unless (where the start time is known) it started at another time.
  return entry.ownerStarted === undefined || startIdentity(entry.ownerPid) === entry.ownerStarted;
}

function isStillTheRecordedProcess(entry: ProcessEntry): boolean {
  if (!processTreeIsAlive(entry.pid)) return false;
  if (IS_WINDOWS || entry.started === undefined) return true;
  // The leader gone, its group lives on (a launcher's child): the group's id is not reused meanwhile.
  const now = startIdentity(entry.pid);
  return now === undefined || now === entry.started;
}

/** Whether a process (or, given `-pgid`, a process group) exists; EPERM means it exists but belongs to someone else. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A process's start time where the system gives it for free: Linux's /proc/<pid>/stat field 22
 * (clock ticks since boot). The command name before it is in parentheses and may hold spaces.
 */
function startIdentity(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process group led by `pid` still has a live member (POSIX), or the process lives (Windows). */
export function processTreeIsAlive(pid: number): boolean {
  return processExists(IS_WINDOWS ? pid : -pid);
}

/**
 * Ends a process and everything it started: the process group on POSIX (the process leads it,
 * being detached), `taskkill /T` on Windows, which has no groups to signal. Never throws.
 */
export function killProcessTree(pid: number, signal: 'SIGTERM' | 'SIGKILL', synchronously = false): void {
  if (IS_WINDOWS) {
    // taskkill has no gentle mode for console programs that works reliably: /F for both.
    const taskkillArgs = ['/PID', String(pid), '/T', '/F'];
    try {
      if (synchronously) execFileSync('taskkill', taskkillArgs, { stdio: 'ignore', windowsHide: true });
      else execFile('taskkill', taskkillArgs, { windowsHide: true }, () => undefined);
    } catch {
      // Already gone.
    }
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // The whole group is gone already (ESRCH).
  }
}
