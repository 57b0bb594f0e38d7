import { CliError } from '../beads/errors';
import { runCli, type CliResult } from '../beads/runCli';

export interface GitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Exit codes that are answers, not failures. Default [0]. */
  okExitCodes?: readonly number[];
  maxOutputBytes?: number;
  /** The git executable; `git` on PATH by default. */
  gitPath?: string;
}

/** Thrown by `runGit` when the folder is not inside a git work tree. */
export class NotGitRepositoryError extends Error {
  constructor(readonly cwd: string) {
    super(`${cwd} is not a git repository`);
    this.name = 'NotGitRepositoryError';
  }
}

/**
 * Thrown instead of running git in Restricted Mode. A repository's own config can make git run
 * programs (`core.fsmonitor`, filter drivers), so an untrusted workspace gets no git process at
 * all. It is a NotGitRepositoryError so that every caller degrades as it does outside git; its
 * message says why.
 */
export class GitNotRunError extends NotGitRepositoryError {
  constructor(cwd: string, reason: string) {
    super(cwd);
    this.name = 'GitNotRunError';
    this.message = reason;
  }
}

let refusal: string | undefined;

/** Set by the extension from Workspace Trust: a reason refuses every git run, undefined allows them. */
export function refuseGit(reason: string | undefined): void {
  refusal = reason;
}

/** Whether git runs are refused (Restricted Mode): what is found without git is then not found either. */
export function gitRefused(): boolean {
  return refusal !== undefined;
}

// quotepath=off keeps non-ASCII names readable in the few non -z outputs; the C locale keeps
// git's messages in English so "not a git repository" can be recognized; optional locks off so
// that a background `git status` never takes index.lock away from the user's own git commands.
const GIT_CONFIG = ['-c', 'core.quotepath=off', '-c', 'color.ui=false'];
const GIT_ENV = { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };

/** Runs git through `runCli`. */
export async function runGit(cwd: string, args: readonly string[], options: GitOptions): Promise<CliResult> {
  if (refusal !== undefined) throw new GitNotRunError(cwd, refusal);
  try {
    return await runCli(options.gitPath ?? 'git', [...GIT_CONFIG, ...args], {
      cwd,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      okExitCodes: options.okExitCodes,
      maxOutputBytes: options.maxOutputBytes,
      env: GIT_ENV,
      // Every git we run reads, with optional locks off: a git left running holds nothing.
      holdsNothing: true,
    });
  } catch (error) {
    if (error instanceof CliError && error.kind === 'exit' && /not a git repository/i.test(error.stderr ?? '')) {
      throw new NotGitRepositoryError(cwd);
    }
    throw error;
  }
}
