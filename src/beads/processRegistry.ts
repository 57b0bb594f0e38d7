// Every process runCli starts is noted in a small registry on disk while it runs, so that one left
// behind by a process that was killed outright (SIGKILL, a crash, an agent ending its hook) is
// ended by the next run: a `br where` hanging for a hook that was killed would otherwise run on,
// holding the database, for as long as it hangs. A process that holds nothing (git, which we run
// with optional locks off) is not noted: runCli's `holdsNothing`. runCli kills its groups at its own
// timeout and when its process exits normally; this covers the owner that could not.
//
// One file per started process, `<owner pid>-<token>.json`, in a per-user folder of the temp
// directory: runCli starts processes (detection's `where`) before any project, and so any project
// state folder, is known. The file is written before the spawn, naming a token the process gets in
// its environment (SPAWN_TOKEN_VARIABLE, inherited by whatever it starts), then again with the
// process's pid right after the spawn, and removed when the process ends. An owner killed between
// the spawn and the second write (a loaded machine can leave it unscheduled right there) has left
// an entry without a pid: on Linux the next run finds the process by its token in
// /proc/<pid>/environ; elsewhere that short window stays uncovered.
//
// A pid can be reused once its process is gone, so nothing is killed on the pid alone:
// - the owner counts as gone only when no process has its pid, or (Linux) the one that has it
//   started at another time than the owner did;
// - the recorded process is ended only while its process group (POSIX; the process leads its own
//   group, and a pid is not reused while a group of that id has members) or the process (Windows)
//   is alive, when on Linux its start time is still the recorded one, and only within
//   ORPHAN_TRUST_MS of its start (macOS and Windows give no cheap start time: age is the guard);
// - a process found by its token is ours whatever its pid: the token is random (Math.random, which
//   Node seeds from the system's entropy in every process; node:crypto would cost each hook that
//   runs git a few ms to load, and the token needs to be unique, not unguessable: only the user's
//   own processes can be read for it).

import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateFolderSync, privateStateRoot, UnsafeFolderError } from '../io/privateFolder';

const IS_WINDOWS = process.platform === 'win32';
/** A recorded process older than this is not trusted to be ours any more: its entry is dropped, the process left alone. */
export const ORPHAN_TRUST_MS = 60 * 60_000;
/** An entry that cannot be read (written half by a process killed mid-write) is removed after this long. */
const UNREADABLE_GRACE_MS = 60_000;

/** Carries a spawn's token into the started process and everything it starts. */
export const SPAWN_TOKEN_VARIABLE = 'BEADS_RECOVERY_SPAWN';

export interface ProcessEntry {
  /** The started process; on POSIX also its process group. Absent while it is being started. */
  pid?: number;
  /** What the process has in its environment as SPAWN_TOKEN_VARIABLE. */
  token?: string;
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

/** The registry's folder: in the user's private state folder, so that one user's runs never judge another's. */
export function processRegistryDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BEADS_RECOVERY_PROCESS_DIR || path.join(privateStateRoot(env), 'processes');
}

/** The registry's folder, made and checked (io/privateFolder.ts) unless the environment names one, which is then the user's choice. */
function checkedRegistryDir(): string {
  const dir = processRegistryDir();
  if (process.env.BEADS_RECOVERY_PROCESS_DIR) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else ensurePrivateFolderSync(dir);
  return dir;
}

let ownStart: string | undefined | null = null;

/** This process's start time (Linux), computed once. */
function ownStartIdentity(): string | undefined {
  if (ownStart === null) ownStart = startIdentity(process.pid);
  return ownStart;
}

/** A process about to be started: its token, and what notes its pid once it runs. */
export interface AnnouncedSpawn {
  /** The environment the process is started with, on top of the caller's. */
  env: Record<string, string>;
  /** Notes the started process's pid; returns what removes the note. */
  started(pid: number): () => void;
  /** Removes the note of a process that did not start. */
  cancel(): void;
}

/** 24 hex digits, as every version has named its entries. */
function spawnToken(): string {
  return Array.from({ length: 3 }, () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')).join('');
}

/**
 * Notes a process before it is started, so that no moment exists in which it runs unnoted. Never
 * throws: a registry that cannot be written (a read-only temp directory) costs only this safety
 * net, not the call.
 */
export function announceSpawn(command: string, now = Date.now()): AnnouncedSpawn {
  const dir = processRegistryDir();
  const token = spawnToken();
  const file = path.join(dir, `${process.pid}-${token}.json`);
  const base: ProcessEntry = { token, ownerPid: process.pid, ownerStarted: ownStartIdentity(), at: now, command: path.basename(command) };
  const remove = () => rmSync(file, { force: true });
  let writable = true;
  try {
    checkedRegistryDir();
    writeFileSync(file, JSON.stringify(base), { mode: 0o600 });
  } catch {
    writable = false;
  }
  return {
    env: { [SPAWN_TOKEN_VARIABLE]: token },
    started: (pid) => {
      if (!writable) return () => undefined;
      try {
        writeFileSync(file, JSON.stringify({ ...base, pid, started: startIdentity(pid) }), { mode: 0o600 });
      } catch {
        // The announcement stays: the process is still found by its token.
      }
      return remove;
    },
    cancel: () => {
      if (writable) remove();
    },
  };
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
    // Entries in a folder that is not the user's own alone could name anyone's processes.
    checkedRegistryDir();
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch (error) {
    if (error instanceof UnsafeFolderError) options.log?.(error.message);
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
    if (now - entry.at <= ORPHAN_TRUST_MS) {
      const end = (pid: number) => {
        options.log?.(`ending ${entry.command} (pid ${pid}), left running by a process that is gone (pid ${entry.ownerPid})`);
        killProcessTree(pid, 'SIGKILL', true);
        ended.push({ ...entry, pid });
      };
      if (entry.pid === undefined) {
        for (const pid of processesCarrying(entry.token)) {
          end(pid);
          // A process found by its token may be a member of a group rather than its leader.
          killProcess(pid);
        }
      } else if (isStillTheRecordedProcess(entry, entry.pid)) end(entry.pid);
    }
    rmSync(file, { force: true });
  }
  return ended;
}

function readEntry(file: string): ProcessEntry | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProcessEntry>;
    if (!isPid(value.ownerPid) || typeof value.at !== 'number' || typeof value.command !== 'string') return undefined;
    // A pid, or (announced, not yet started) the token to find the process by.
    if (value.pid === undefined ? typeof value.token !== 'string' || !/^[0-9a-f]{24}$/.test(value.token) : !isPid(value.pid)) return undefined;
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

function isStillTheRecordedProcess(entry: ProcessEntry, pid: number): boolean {
  if (!processTreeIsAlive(pid)) return false;
  if (IS_WINDOWS || entry.started === undefined) return true;
  // The leader gone, its group lives on (a launcher's child): the group's id is not reused meanwhile.
  const now = startIdentity(pid);
  return now === undefined || now === entry.started;
}

/**
 * The processes that have the token in their environment: Linux reads /proc/<pid>/environ (this
 * user's processes only, which is all the registry is about); elsewhere none are found. Each one
 * leads its own group or belongs to one that does, and each carries the token, so ending each of
 * them and its group ends them all.
 */
function processesCarrying(token: string | undefined): number[] {
  if (token === undefined || process.platform !== 'linux') return [];
  const needle = Buffer.from(`\0${SPAWN_TOKEN_VARIABLE}=${token}\0`);
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    try {
      // A leading NUL lets the first variable match like the others.
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`)]);
      if (environ.includes(needle)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
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

function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
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
