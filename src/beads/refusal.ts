import type { Dialect } from '../core/model';
import { WRITE_HOLD_CODES } from '../core/outboxPolicy';
import { CliError } from './errors';

/** The writes a CLI can decline. */
export type RefusableWrite = 'claim' | 'close' | 'comment';

/**
 * bd's refusals: plain text on stderr, exit 1 (docs/BEADS_CONTRACT.md C4, C9), or from bd 1.2 the same reasons
 * in `failed[].error` (C6), which `parseCliOwnError` has already put into `cliMessage`.
 * "already claimed", "not claimable", "cannot close … blocked by …", "cannot close epic … open
 * child issue(s)" and the like.
 */
const BD_REFUSAL = /error claiming |already claimed|not claimable|cannot (close|claim|update|reopen)\b|blocked by|open child/i;

/** br's skipped reasons that mean the close already holds (C7): nothing to refuse. */
const BR_ALREADY_DONE = /^already (closed|tombstone)/i;
/** br's exit codes for a write it declined: 4 validation (claimed elsewhere, blocked), 5 dependency. */
const BR_REFUSAL_EXITS: ReadonlySet<number> = new Set([4, 5]);

/**
 * A failed write read as the CLI's refusal, when it is one: a `CliError` of kind `refused` whose
 * `cliMessage` is the CLI's own reason. Anything else (locked, missing, timed out, not found, an
 * error of unknown shape) is returned as it was, for the caller's retry rules.
 */
export function asRefusal(error: unknown, dialect: Dialect, write: RefusableWrite, issueId: string): unknown {
  if (!(error instanceof CliError) || error.kind !== 'exit' || error.exitCode === undefined) return error;
  const reason = dialect === 'bd' ? bdRefusal(error, write) : brRefusal(error, write, issueId);
  if (reason === undefined) return error;
  return new CliError({ kind: 'refused', command: error.command, args: error.args, exitCode: error.exitCode, stderr: error.stderr, stdout: error.stdout, cliMessage: reason, cliCode: error.cliCode, hint: error.hint });
}

function bdRefusal(error: CliError, write: RefusableWrite): string | undefined {
  if (write === 'comment') return undefined;
  const own = error.cliMessage ?? '';
  if (BD_REFUSAL.test(own)) return own;
  // Several lines on stderr (a warning first, or one line per id): the refusal is the one that says so.
  const line = (error.stderr ?? '').split(/\r?\n/).map((text) => text.trim()).find((text) => BD_REFUSAL.test(text));
  return line;
}

function brRefusal(error: CliError, write: RefusableWrite, issueId: string): string | undefined {
  if (write === 'close') {
    // `{"closed":[],"skipped":[{id,reason}]}` on stdout, then NOTHING_TO_DO (exit 3).
    for (const answer of jsonLines(error.stdout ?? '')) {
      const skipped = skippedReason(answer, issueId);
      if (skipped !== undefined) return BR_ALREADY_DONE.test(skipped) ? undefined : skipped;
    }
  }
  if (error.exitCode !== undefined && BR_REFUSAL_EXITS.has(error.exitCode)) return error.cliMessage ?? error.message;
  return undefined;
}

/**
 * br's refusal inside a close that exited 0: it closed some of several ids and lists the others
 * under `skipped`. Undefined when `issueId` was closed, or skipped only because it already was.
 */
export function refusalInCloseAnswer(answer: unknown, issueId: string): string | undefined {
  const skipped = skippedReason(answer, issueId);
  return skipped === undefined || BR_ALREADY_DONE.test(skipped) ? undefined : skipped;
}

function skippedReason(answer: unknown, issueId: string): string | undefined {
  const skipped = typeof answer === 'object' && answer !== null ? (answer as { skipped?: unknown }).skipped : undefined;
  if (!Array.isArray(skipped)) return undefined;
  for (const entry of skipped) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { id, reason } = entry as { id?: unknown; reason?: unknown };
    if (id === issueId && typeof reason === 'string') return reason;
  }
  return undefined;
}

/** Each line of compact JSON in `text` (br prints its answers on one line, its errors pretty-printed). */
function* jsonLines(text: string): Generator<unknown> {
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      yield JSON.parse(trimmed);
    } catch {
      // a line of a pretty-printed error, or not JSON at all
    }
  }
}

/**
 * Why a CLI is holding every write back for now, not refusing this one: the write is to stay
 * queued, untried, until the hold ends, then land once.
 * - `migration-freeze`: bd 1.3's write freeze. While a `MIGRATION-FREEZE` file exists in the
 *   workspace, the working folder or an ancestor, every write prints "workspace is frozen for
 *   migration" (naming the marker) and exits 14 (CHANGELOG [1.3.0] Changed, dc-6jaq; #6028).
 * - `migration-consent`: bd will not migrate a shared (or remote-backed) database's schema
 *   without its operator: writes refuse until `bd migrate schema` or `BD_ALLOW_REMOTE_MIGRATE=1`
 *   has run (CHANGELOG [1.1.0-rc.1] remote-migrate gate; [1.3.0] #5920, #6048; #5043).
 * Both are bd's; br has neither.
 */
export type WriteHold = 'migration-freeze' | 'migration-consent';

/** bd's exit status for a write refused by the migration freeze. */
export const BD_FREEZE_EXIT = 14;
const FREEZE_TEXT = /frozen for migration|MIGRATION-FREEZE/i;
const CONSENT_TEXT = /BD_ALLOW_REMOTE_MIGRATE|bd migrate schema|never (?:auto-)?migrated automatically|remote-migrate gate/i;

export function writeHoldOf(error: unknown): WriteHold | undefined {
  if (!(error instanceof CliError) || error.kind !== 'exit') return undefined;
  const text = `${error.cliMessage ?? ''}\n${error.stderr ?? ''}\n${error.stdout ?? ''}`;
  if (error.exitCode === BD_FREEZE_EXIT || FREEZE_TEXT.test(text)) return 'migration-freeze';
  if (CONSENT_TEXT.test(text)) return 'migration-consent';
  return undefined;
}

/**
 * A failed write as the outbox policy must see it: a held write carries its hold's code
 * (WRITE_HOLD_CODES) so that it waits, uncounted and never parked; anything else is returned as it was.
 */
export function asWriteHold(error: unknown): unknown {
  const hold = writeHoldOf(error);
  if (hold === undefined || !(error instanceof CliError)) return error;
  return new CliError({
    kind: 'exit',
    command: error.command,
    args: error.args,
    exitCode: error.exitCode,
    stderr: error.stderr,
    stdout: error.stdout,
    cliMessage: error.cliMessage,
    cliCode: hold === 'migration-freeze' ? WRITE_HOLD_CODES.freeze : WRITE_HOLD_CODES.consent,
  });
}
