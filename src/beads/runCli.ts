import { AsyncLocalStorage } from 'node:async_hooks';
import { constants as osConstants } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import crossSpawn from 'cross-spawn';
import { CliError, meaningfulLine, parseCliOwnError } from './errors';
import { announceSpawn, killProcessTree, type AnnouncedSpawn } from './processRegistry';
import { errorMessage } from '../core/errors';

export interface RunCliOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Cap on stdout and on stderr, each; a process that prints more is stopped. */
  maxOutputBytes?: number;
  /** Text for stdin. Without it stdin is closed, so a process that reads it cannot hang. */
  input?: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (git uses 1 for "differs"). Default [0]. */
  okExitCodes?: readonly number[];
  /** How long a process that ignores SIGTERM gets before SIGKILL. */
  killGraceMs?: number;
  /**
   * The process takes no lock and ends of its own accord (git, run with optional locks off): it is
   * not noted in the process registry. An orphan of it harms nothing, and the note (two writes and
   * a removal) cost every hook start that runs git about 4 ms. It is still ended at its timeout, on
   * cancel, and when this process exits or is ended by a signal.
   */
  holdsNothing?: boolean;
}

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2_000;
/** How much of a failed process's stdout its error keeps (what br skipped is a line or two). */
const MAX_KEPT_STDOUT = 64 * 1024;
/**
 * After the process itself has ended, how long its output pipes may stay open. A grandchild that
 * escaped the process group (or a launcher's child on Windows) can hold them for ever.
 */
const PIPE_GRACE_MS = 500;

const IS_WINDOWS = process.platform === 'win32';
/** What a process that holds nothing is started with in place of a registry note. */
const UNNOTED: AnnouncedSpawn = { env: {}, started: () => () => undefined, cancel: () => undefined };
const CMD_NOT_FOUND_EXIT_CODE = 9009;

/**
 * The one place that starts processes: an argument array (never a shell), an explicit cwd, a
 * timeout that kills (SIGTERM, then SIGKILL for a process that ignores it), cancellation through
 * an AbortSignal, an output cap, and failures typed as `CliError`.
 *
 * Each process runs in its own process group (detached on POSIX), and the whole group is killed,
 * not only the direct child: the npm package of `bd` is a Node launcher that spawns the binary,
 * and killing the launcher alone would leave the binary running and holding the output pipes.
 * On Windows, `taskkill /T /F` ends the tree. A process still running when this one exits (a hook
 * that hit its deadline) is killed with it.
 *
 * Node's spawn through cross-spawn, not execa: every hook process that runs git loads this module,
 * and execa with its dependencies cost about 20 ms of loading per start here, more than all the
 * rest of what runCli needs; cross-spawn is the part of execa that mattered, the Windows one.
 */
export async function runCli(command: string, args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (options.signal?.aborted) throw new CliError({ kind: 'canceled', command, args });

  // Noted before it starts: a kill of this process right after the spawn leaves nothing unnoted.
  const announced = options.holdsNothing ? UNNOTED : announceSpawn(command);
  let subprocess: ChildProcess;
  try {
    // cross-spawn, not node's spawn alone: on Windows it finds the command through PATHEXT and runs
    // a .cmd or .bat shim (npm's bd.cmd) through cmd.exe with each argument escaped, which spawn
    // cannot do without a shell; elsewhere it is node's spawn.
    subprocess = crossSpawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, ...announced.env },
      shell: false,
      detached: !IS_WINDOWS,
      windowsHide: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Node throws at once for some failures (an argument with a NUL byte); most come as 'error'.
    announced.cancel();
    throw new CliError({ command, args, kind: 'exit', detail: errorMessage(error) });
  }
  const group = subprocess.pid === undefined ? undefined : liveGroups.add(subprocess.pid, announced);
  if (subprocess.pid === undefined) announced.cancel();
  if (subprocess.pid !== undefined) spawnObservers.getStore()?.(subprocess.pid);
  let stopReason: 'timeout' | 'canceled' | 'output' | undefined;
  let forceTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: NonNullable<typeof stopReason>) => {
    if (stopReason !== undefined) return;
    stopReason = reason;
    group?.kill('SIGTERM');
    forceTimer = setTimeout(() => group?.kill('SIGKILL'), options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  };
  const timeoutTimer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('canceled');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // Bytes, not characters: the cap is about memory, and decoding happens once at the end. A process
  // that floods its output is stopped rather than waited for until the timeout.
  const collect = (stream: Readable | null) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream?.on('data', (chunk: Buffer) => {
      if (bytes + chunk.length > maxOutputBytes) {
        stop('output');
        chunks.push(chunk.subarray(0, Math.max(0, maxOutputBytes - bytes)));
        bytes = maxOutputBytes;
        return;
      }
      bytes += chunk.length;
      chunks.push(chunk);
    });
    // A read error ends the stream; what came before it is kept, and the exit still tells.
    stream?.on('error', () => undefined);
    return () => Buffer.concat(chunks);
  };
  const stdoutBytes = collect(subprocess.stdout);
  const stderrBytes = collect(subprocess.stderr);
  if (options.input !== undefined && subprocess.stdin) {
    // A process that exits without reading its input closes the pipe: EPIPE, not a failure of ours.
    subprocess.stdin.on('error', () => undefined);
    subprocess.stdin.end(options.input);
  }
  // The process has exited but its pipes are still open: whatever of its group is left is ended,
  // and a pipe held from outside the group is closed on our side.
  let pipeTimer: ReturnType<typeof setTimeout> | undefined;
  subprocess.once('exit', () => {
    pipeTimer = setTimeout(() => {
      group?.kill('SIGKILL');
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, PIPE_GRACE_MS);
  });

  let result: Ended;
  try {
    result = await new Promise<Ended>((resolve) => {
      // 'error' is a start that failed (on Windows cross-spawn turns cmd.exe's "not found" exit
      // into one); 'close' comes once the process has exited and its pipes are closed.
      subprocess.once('error', (error: NodeJS.ErrnoException) => resolve({ spawnError: error }));
      subprocess.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => resolve({ exitCode, signal }));
    });
  } finally {
    clearTimeout(timeoutTimer);
    clearTimeout(forceTimer);
    clearTimeout(pipeTimer);
    options.signal?.removeEventListener('abort', onAbort);
    // Nothing of the group may outlive the call: a launcher's child that is still running ends here.
    group?.kill('SIGKILL');
    group?.forget();
  }

  const stdout = decode(stdoutBytes());
  const stderr = decode(stderrBytes());
  const base = { command, args, stderr: stderr || undefined };

  if (stopReason === 'canceled') throw new CliError({ ...base, kind: 'canceled' });
  if (stopReason === 'timeout') throw new CliError({ ...base, kind: 'timeout', timeoutMs: options.timeoutMs });
  if (stopReason === 'output') throw new CliError({ ...base, kind: 'exit', outputLimitExceeded: true, maxOutputBytes });
  if ('spawnError' in result) {
    const spawnCode = result.spawnError.code;
    // A missing cwd fails the spawn with ENOENT too, as if the command were missing.
    if (spawnCode === 'ENOENT' && !isFolder(options.cwd)) {
      throw new CliError({ ...base, kind: 'exit', detail: `the folder ${options.cwd} does not exist` });
    }
    if (spawnCode === 'ENOENT' || spawnCode === 'EACCES' || spawnCode === 'ENOTDIR') {
      throw new CliError({ ...base, kind: 'notFound', detail: spawnCode === 'EACCES' ? 'it is not executable' : undefined });
    }
    throw new CliError({ ...base, kind: 'exit', detail: result.spawnError.message || 'could not be started' });
  }
  if (result.exitCode === null) {
    throw new CliError({ ...base, kind: 'exit', detail: result.signal ? `killed by ${result.signal}` : 'could not be started' });
  }
  // A command cross-spawn could not resolve runs through cmd.exe, and only its exit code 1 becomes
  // ENOENT; 9009 is the code cmd.exe sets for a command it does not recognize (Wine's cmd.exe exits
  // with it). No CLI we run exits 9009 of its own.
  if (IS_WINDOWS && result.exitCode === CMD_NOT_FOUND_EXIT_CODE) throw new CliError({ ...base, kind: 'notFound' });
  const okExitCodes = options.okExitCodes ?? [0];
  if (!okExitCodes.includes(result.exitCode)) {
    // bd prints some errors as JSON on stdout (`where`, `show`), the rest on stderr; br 0.2.15
    // on stderr, later br on stdout (docs/BEADS_CONTRACT.md C5, C8).
    const own = parseCliOwnError(stderr) ?? parseCliOwnError(stdout);
    throw new CliError({
      ...base,
      stdout: stdout ? stdout.slice(0, MAX_KEPT_STDOUT) : undefined,
      kind: 'exit',
      exitCode: result.exitCode,
      cliMessage: own?.message ?? meaningfulLine(stderr),
      cliCode: own?.code,
      hint: own?.hint,
      searchedId: own?.searchedId,
    });
  }
  return { stdout, stderr, exitCode: result.exitCode };
}

export interface DetachedOptions {
  cwd: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** Where the process's stdout goes (its answer tells, once it has ended, whether it finished). */
  stdoutFile: string;
}

/**
 * Starts a process that must be left to finish, even after this one exits: bd 1.3's first-run
 * schema migration, which a kill at any timeout would only restart on the next call (docs/BEADS_CONTRACT.md
 * §9). Its own process group, stdin closed, stdout to `stdoutFile`, stderr dropped; no timeout,
 * never killed here and not noted in the process registry, whose sweep ends what a dead owner
 * left behind. Returns its pid, or undefined when it could not be started.
 */
export function startDetached(command: string, args: readonly string[], options: DetachedOptions): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(options.stdoutFile, 'w');
    // Not runCli's pipes: the file descriptor is handed to the process itself, so its output
    // reaches the file after this process has gone.
    const subprocess = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      shell: false,
      detached: true,
      windowsHide: true,
      stdio: ['ignore', fd, 'ignore'],
    });
    subprocess.on('error', () => undefined);
    subprocess.unref();
    return subprocess.pid;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const spawnObservers = new AsyncLocalStorage<(pid: number) => void>();

/**
 * Runs `work`, telling `onSpawn` the pid (and process group) of every process runCli starts for
 * it. The outbox notes the pid of the CLI doing a write, so that if the outbox's process dies the
 * next drainer can end that CLI before it checks whether the write landed; passing a callback
 * through every backend method instead would burden each caller for the sake of one.
 */
export function observeSpawns<T>(onSpawn: (pid: number) => void, work: () => Promise<T>): Promise<T> {
  return spawnObservers.run(onSpawn, work);
}

/** A started process's group, killable as a whole until it is forgotten. */
interface ProcessGroup {
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
  forget(): void;
}

/**
 * The groups of processes started and not yet ended, each noted in the process registry
 * (src/beads/processRegistry.ts) until it ends; killed when this process exits, or, should this
 * process be killed outright, by the next run that finds them in the registry.
 */
const liveGroups = {
  unrecord: new Map<number, () => void>(),
  add(pid: number, announced: AnnouncedSpawn): ProcessGroup {
    if (this.unrecord.size === 0) process.once('exit', killLiveGroups);
    this.unrecord.set(pid, announced.started(pid));
    return { kill: (signal) => killProcessTree(pid, signal), forget: () => this.forget(pid) };
  },
  forget(pid: number): void {
    this.unrecord.get(pid)?.();
    this.unrecord.delete(pid);
    if (this.unrecord.size === 0) process.removeListener('exit', killLiveGroups);
  },
};

function killLiveGroups(): void {
  for (const [pid, unrecord] of liveGroups.unrecord) {
    killProcessTree(pid, 'SIGKILL', true);
    unrecord();
  }
  liveGroups.unrecord.clear();
}

/**
 * For a command-line process: a signal that ends it (an agent ending a hook at its timeout,
 * SIGTERM; Ctrl-C, SIGINT; a closed terminal, SIGHUP) ends the processes it started, then the
 * process, with the shell's code for that signal. Without this, Node dies with no 'exit' event and
 * a `br` hanging behind a launcher runs on until a later run finds it in the registry. (A handler
 * that deferred to other listeners would not do: signal-exit, which the lock and atomic-write
 * libraries use, re-raises a signal only when its own listener is alone, so the two would wait on
 * each other and the process would run on.) Not for the extension host, whose life VS Code owns.
 */
export function endStartedProcessesOnSignals(): void {
  const signals = process.platform === 'win32' ? (['SIGINT'] as const) : (['SIGTERM', 'SIGINT', 'SIGHUP'] as const);
  for (const signal of signals) {
    process.once(signal, () => {
      killLiveGroups();
      process.exit(128 + (osConstants.signals[signal] ?? 1));
    });
  }
}

/** Runs a command whose stdout is one JSON value; `badJson` (with a snippet) when it is not. */
export async function runCliJson(command: string, args: readonly string[], options: RunCliOptions): Promise<unknown> {
  const result = await runCli(command, args, options);
  return parseJsonOutput(result.stdout, command, args, result.stderr);
}

function parseJsonOutput(stdout: string, command: string, args: readonly string[], stderr?: string): unknown {
  const text = stdout.trim();
  if (!text) throw new CliError({ kind: 'badJson', command, args, stderr, detail: 'it printed nothing' });
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    throw new CliError({ kind: 'badJson', command, args, stderr, detail: `${reason}; output starts ${JSON.stringify(snippet(text))}` });
  }
}

function snippet(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** How a started process ended: a start that failed, or an exit code or the signal that killed it. */
type Ended = { spawnError: NodeJS.ErrnoException } | { exitCode: number | null; signal: NodeJS.Signals | null };

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

function decode(output: Uint8Array): string {
  return new TextDecoder('utf-8').decode(output);
}
