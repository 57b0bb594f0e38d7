// An agent hook must never fail the agent. A SessionStart hook that exits 1 or prints nothing leaves
// it without context; a hook past the agent's own timeout is cancelled and its output thrown
// away. `guardHook` runs a hook's work against one overall deadline, below the agent's hook
// timeout, and whatever happens answers with the best it has: the full answer, else a fallback
// that needs no CLI (the read-only reading of .beads/issues.jsonl), else valid output that says
// why there is nothing. The reason goes to stderr. `runHookProcess` is the process side: the
// answer on stdout, exit code 0, and no waiting for stray handles once the answer is out.

import { clampTimeoutMs } from '../core/time';
import { errorMessage } from '../core/errors';

/**
 * Our hook installers give each hook 30 s (src/core/hookConfig.ts); Copilot's default is 30 s
 * too. The deadline stays well below, leaving the agent time to read the answer.
 */
export const DEFAULT_HOOK_DEADLINE_MS = 20_000;
/** Part of the deadline kept back for the fallback when the full answer runs late. */
const FALLBACK_RESERVE_MS = 3_000;

/** `T` is the hook's answer: its output text, or whatever the caller turns into output. */
export interface GuardedHook<T = string> {
  /**
   * The full answer; `signal` aborts at the deadline, so pass it to every CLI and git call.
   * `deadline` (epoch ms) is when that happens: work that can stop waiting early answers before it.
   */
  answer(signal: AbortSignal, deadline: number): Promise<T>;
  /** The best answer without the CLI, when the full one failed or ran out of time; `reason` says why. */
  fallback?(reason: string, signal: AbortSignal): Promise<T>;
  /** The answer when nothing else worked (valid hook output that says why); must not throw. */
  last(reason: string): T;
}

export interface HookGuardOptions {
  deadlineMs: number;
  /** Where the reasons go; stderr by default (the agent shows it at most as a notice). */
  warn?: (line: string) => void;
}

export class HookDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the hook ran out of time (${deadlineMs} ms)`);
  }
}

/** The deadline a hook runs under: BEADS_RECOVERY_HOOK_DEADLINE_MS, clamped, or the default. */
export function hookDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  return clampTimeoutMs(env.BEADS_RECOVERY_HOOK_DEADLINE_MS, DEFAULT_HOOK_DEADLINE_MS);
}

/** Resolves with the hook's answer, never rejects, and never later than `deadlineMs` (plus a tick). */
export async function guardHook<T = string>(hook: GuardedHook<T>, options: HookGuardOptions): Promise<T> {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`beads-recovery: ${line}\n`));
  const started = Date.now();
  const reserve = hook.fallback ? Math.min(FALLBACK_RESERVE_MS, options.deadlineMs / 4) : 0;
  let reason: string;
  try {
    return await withinDeadline((signal) => hook.answer(signal, started + options.deadlineMs - reserve), options.deadlineMs - reserve);
  } catch (error) {
    reason = errorMessage(error);
    warn(reason);
  }
  if (hook.fallback) {
    const fallback = hook.fallback;
    const left = options.deadlineMs - (Date.now() - started);
    try {
      if (left <= 0) throw new HookDeadlineError(options.deadlineMs);
      return await withinDeadline((signal) => fallback(reason, signal), left);
    } catch (error) {
      warn(`the fallback failed too: ${errorMessage(error)}`);
    }
  }
  return hook.last(reason);
}

/**
 * Runs `work` with a signal aborted after `ms`, and stops waiting for it then even if it ignores
 * the signal. Aborting also ends whatever process it started (runCli kills the process group).
 */
async function withinDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new HookDeadlineError(ms);
      controller.abort(error);
      reject(error);
    }, Math.max(0, ms));
  });
  const running = Promise.resolve().then(() => work(controller.signal));
  // The loser of the race may still reject later; that is not news.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort();
  }
}

/**
 * The process side of a hook: prints what `produce` answers and exits 0, whatever happens,
 * without waiting for handles left open (a pipe a grandchild holds, a stdin nobody closes).
 * `afterAnswer` runs once the answer is out, before the exit (housekeeping the agent need not wait for).
 */
export async function runHookProcess(produce: () => Promise<string>, afterAnswer?: () => Promise<void>): Promise<never> {
  // An error thrown from a stray callback must not end the process before the answer is out.
  const report = (error: unknown) => process.stderr.write(`beads-recovery: ${errorMessage(error)}\n`);
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
  let output = '';
  try {
    output = await produce();
  } catch (error) {
    report(error);
  }
  const text = output === '' || output.endsWith('\n') ? output : `${output}\n`;
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  await afterAnswer?.().catch(report);
  process.exit(0);
}

