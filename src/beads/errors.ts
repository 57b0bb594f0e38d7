import { basename } from 'node:path';

/**
 * Why a process did not give a usable answer. `canceled` means the caller aborted it: callers
 * must never show it as a failure. An output cap overrun is reported as `exit` (the process was
 * stopped) with `outputLimitExceeded` set. `refused` is a write the CLI declined for a reason it
 * named (blocked, open children, claimed by someone else): a final answer, never retried, and
 * `cliMessage` holds the CLI's reason.
 */
export type CliErrorKind = 'notFound' | 'timeout' | 'canceled' | 'exit' | 'badJson' | 'refused';

export interface CliErrorDetails {
  kind: CliErrorKind;
  command: string;
  args: readonly string[];
  exitCode?: number;
  stderr?: string;
  /** What the process printed on stdout before it failed (br prints what it skipped, then fails). */
  stdout?: string;
  /** The CLI's own error text (bd `{"error":"…"}`, br `{"error":{"message":"…"}}`), when it printed one. */
  cliMessage?: string;
  /** The CLI's machine-readable code (bd `code`, br `error.code`), e.g. `ISSUE_NOT_FOUND`. */
  cliCode?: string;
  /** br's `error.hint` or bd's `hint`. */
  hint?: string;
  /** The issue id the CLI says it could not find (br `error.context.searched_id`). */
  searchedId?: string;
  outputLimitExceeded?: boolean;
  maxOutputBytes?: number;
  timeoutMs?: number;
  detail?: string;
}

export class CliError extends Error {
  readonly kind: CliErrorKind;
  readonly command: string;
  readonly args: readonly string[];
  readonly exitCode?: number;
  readonly stderr?: string;
  readonly stdout?: string;
  readonly cliMessage?: string;
  readonly cliCode?: string;
  readonly hint?: string;
  readonly searchedId?: string;
  readonly outputLimitExceeded: boolean;

  constructor(details: CliErrorDetails) {
    super(describeFailure(details));
    this.name = 'CliError';
    this.kind = details.kind;
    this.command = details.command;
    this.args = details.args;
    this.exitCode = details.exitCode;
    this.stderr = details.stderr;
    this.stdout = details.stdout;
    this.cliMessage = details.cliMessage;
    this.cliCode = details.cliCode;
    this.hint = details.hint;
    this.searchedId = details.searchedId;
    this.outputLimitExceeded = details.outputLimitExceeded ?? false;
  }
}

/** A write asked of the read-only `.beads/issues.jsonl` backend. */
export class ReadOnlyError extends Error {
  constructor(readonly operation: string, reason: string) {
    super(`Cannot ${operation}: this beads project is open read-only (${reason}).`);
    this.name = 'ReadOnlyError';
  }
}

export function isCanceled(error: unknown): boolean {
  return error instanceof CliError && error.kind === 'canceled';
}

/**
 * "bd update -- demo-1" rather than the whole argv: arguments can hold comment text of any length,
 * and the subcommand and the issue are what tell a user which operation failed. The issue id
 * comes after `--` in writes (so that it is never read as a flag); the first word there is shown,
 * after its `--`.
 */
function commandLabel(command: string, args: readonly string[]): string {
  const words = [basename(command).replace(/\.(exe|cmd|bat)$/i, '')];
  const shorten = (arg: string) => (arg.length > 40 ? `${arg.slice(0, 40)}…` : arg);
  for (const arg of args) {
    if (arg.startsWith('-') || words.length > 2) break;
    words.push(shorten(arg));
  }
  const dashes = args.indexOf('--');
  const first = dashes === -1 ? undefined : args[dashes + 1];
  // After `--`, as it ran: the label is quoted in contexts, and an id like `--help` must not read as a flag.
  if (first !== undefined && words.length <= 3) words.push('--', shorten(first));
  return words.join(' ');
}

function describeFailure(details: CliErrorDetails): string {
  const label = `'${commandLabel(details.command, details.args)}'`;
  const own = details.cliMessage ? `: ${details.cliMessage}` : '';
  const hint = details.hint ? ` (${details.hint})` : '';
  switch (details.kind) {
    case 'notFound':
      return `Cannot run ${label}: '${details.command}' was not found${details.detail ? ` (${details.detail})` : ''}`;
    case 'timeout':
      return `${label} did not finish within ${details.timeoutMs ?? '?'} ms and was stopped`;
    case 'canceled':
      return `${label} was canceled`;
    case 'badJson':
      return `${label} printed output that is not the expected JSON${details.detail ? `: ${details.detail}` : ''}`;
    case 'refused':
      return `${label} was refused${own || (details.detail ? `: ${details.detail}` : '')}`;
    case 'exit':
      if (details.outputLimitExceeded) {
        return `${label} printed more than ${formatBytes(details.maxOutputBytes)} of output and was stopped`;
      }
      if (details.exitCode === undefined) return `${label} failed${details.detail ? `: ${details.detail}` : ''}${own}${hint}`;
      return `${label} failed (exit ${details.exitCode})${own || (details.detail ? `: ${details.detail}` : '')}${hint}`;
  }
}

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return 'the allowed amount';
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}

export interface CliOwnError {
  message: string;
  code?: string;
  hint?: string;
  searchedId?: string;
}

/**
 * Reads the error a CLI printed about itself. bd writes `{"error":"…","code":"…","hint"?}` (to
 * stderr, or to stdout for `where` and `show`); br writes `{"error":{"code","message","hint",
 * "context":{"searched_id"}}}`. Text may precede the JSON (bd prints "Issue x not found" lines
 * first), so each line that opens an object is tried as the start of the JSON value.
 */
export function parseCliOwnError(text: string): CliOwnError | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  for (const start of objectStarts(trimmed)) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed.slice(start));
    } catch {
      continue;
    }
    const found = readErrorObject(value);
    if (found) return found;
  }
  return undefined;
}

/** Lines that tell how to get help, not what went wrong (cobra's "Run 'bd --help' for usage.", clap's "Usage: …"). */
const USAGE_LINE = /^(run '[^']*--help'|for more information, try|usage:|see '[^']*--help')/i;
/** Side remarks a CLI prints on the way (bd: "warning: beads.role not configured", "Hint: …"). */
const ASIDE_LINE = /^(warning|warn|hint|note|tip)\b/i;

/** A line that says it is the error (bd "Error: …", clap "error: …", Go "panic: …"). */
const ERROR_LINE = /^(error|fatal|panic)\b/i;

/**
 * The reason a CLI gave in plain text: the first line that says it is an error, else the first
 * line that says anything, skipping usage lines and, when there is anything else, warnings and
 * hints. bd prints "Error: unknown flag: …" and then "Run 'bd --help' for usage."; the first is
 * the reason.
 */
export function meaningfulLine(text: string): string | undefined {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !USAGE_LINE.test(line));
  const found = lines.find((line) => ERROR_LINE.test(line)) ?? lines.find((line) => !ASIDE_LINE.test(line)) ?? lines[0];
  if (found === undefined) return undefined;
  return found.length > 300 ? `${found.slice(0, 300)}…` : found;
}

function* objectStarts(text: string): Generator<number> {
  if (text.startsWith('{')) yield 0;
  let index = text.indexOf('\n{');
  while (index !== -1) {
    yield index + 1;
    index = text.indexOf('\n{', index + 1);
  }
}

function readErrorObject(value: unknown): CliOwnError | undefined {
  if (!isRecord(value)) return undefined;
  // bd with BD_JSON_ENVELOPE=1 wraps errors too.
  if (isRecord(value.data) && 'error' in value.data) return readErrorObject(value.data);
  const error = value.error;
  if (typeof error === 'string') {
    // bd 1.2: {"error":"1 of 1 issues failed to update","failed":[{id,error}]}; the reasons are per id.
    const reasons = failedReasons(value.failed);
    if (reasons) return { message: reasons };
    const message = typeof value.message === 'string' && value.message ? value.message : error;
    return {
      message,
      code: typeof value.code === 'string' ? value.code : message === error ? undefined : error,
      hint: typeof value.hint === 'string' && value.hint ? value.hint : undefined,
    };
  }
  if (isRecord(error)) {
    const message = typeof error.message === 'string' ? error.message : typeof error.code === 'string' ? error.code : undefined;
    if (message === undefined) return undefined;
    const context = isRecord(error.context) ? error.context : undefined;
    return {
      message,
      code: typeof error.code === 'string' ? error.code : undefined,
      hint: typeof error.hint === 'string' && error.hint ? error.hint : undefined,
      searchedId: typeof context?.searched_id === 'string' ? context.searched_id : undefined,
    };
  }
  return undefined;
}

function failedReasons(failed: unknown): string | undefined {
  if (!Array.isArray(failed)) return undefined;
  const reasons = failed.filter(isRecord).flatMap((entry) => (typeof entry.error === 'string' && entry.error ? [entry.error] : []));
  return reasons.length > 0 ? [...new Set(reasons)].join('; ') : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
