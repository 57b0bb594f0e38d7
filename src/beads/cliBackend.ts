import type { Dialect, Issue, IssueDetails } from '../core/model';
import { parseIssueList, parseShow } from '../core/parse';
import type { BeadsBackend } from './backend';
import { CliError } from './errors';
import { byMostRecentlyUpdated } from './order';
import { runCliJson } from './runCli';

export interface CliBackendOptions {
  dialect: Dialect;
  /** The executable: a path, or a name looked up on PATH. */
  command: string;
  /** The folder that holds `.beads`; every command runs there. */
  root: string;
  timeoutMs: number;
  /** Added to the CLI's environment (tests point the stand-ins' fault switch and call log here). */
  env?: Record<string, string>;
}

/**
 * The exact argument arrays per dialect (CONTRACT §1). Always `--json`; `--limit 0` on list and
 * ready because both CLIs default to 50 or 100. Free text goes where neither CLI can read it as
 * a flag: bd takes the comment as `args[1]` after `--`, br as `--message=<text>`, and the close
 * reason is attached with `=` in both.
 */
export const DIALECT_ARGS: Record<Dialect, {
  inProgress: readonly string[];
  ready: readonly string[];
  show: (ids: readonly string[]) => string[];
  addComment: (id: string, text: string) => string[];
  claim: (id: string) => string[];
  close: (id: string, reason: string) => string[];
}> = {
  bd: {
    inProgress: ['list', '--status', 'in_progress', '--json', '--limit', '0', '--sort', 'updated'],
    ready: ['ready', '--json', '--limit', '0'],
    // bd leaves dependents and comments out of show unless asked.
    show: (ids) => ['show', ...ids, '--json', '--include-comments', '--include-dependents'],
    addComment: (id, text) => ['comments', 'add', '--json', '--', id, text],
    claim: (id) => ['update', id, '--claim', '--json'],
    close: (id, reason) => ['close', id, `--reason=${reason}`, '--json'],
  },
  br: {
    inProgress: ['list', '-s', 'in_progress', '--json', '--limit', '0', '--sort', 'updated_at'],
    ready: ['ready', '--json', '--limit', '0'],
    show: (ids) => ['show', ...ids, '--json'],
    addComment: (id, text) => ['comments', 'add', id, '--json', `--message=${text}`],
    claim: (id) => ['update', id, '--claim', '--json'],
    close: (id, reason) => ['close', id, `--reason=${reason}`, '--json'],
  },
};

/**
 * A backend that runs bd or br. Each method is one process, with one exception: when br rejects
 * a multi-id `show` because one id does not exist (it fails the whole call, exit 3), the call is
 * repeated without the id it named — one more process per unknown id, so only on bad input.
 * bd answers the ids it found and exits 0, or fails with "no issues found" when none exist,
 * which is read as an empty answer.
 */
export function createCliBackend(options: CliBackendOptions): BeadsBackend {
  const args = DIALECT_ARGS[options.dialect];
  const runOptions = (signal?: AbortSignal) => ({ cwd: options.root, timeoutMs: options.timeoutMs, signal, env: options.env });
  const query = (argv: readonly string[], signal?: AbortSignal) => runCliJson(options.command, argv, runOptions(signal));
  // A write must also print its JSON answer: exit 0 with garbage is not proof that it landed, so
  // it fails as badJson and the outbox checks beads before sending it again.
  const write = async (argv: readonly string[], signal?: AbortSignal) => {
    await query(argv, signal);
  };

  async function show(ids: readonly string[], signal?: AbortSignal): Promise<IssueDetails[]> {
    let remaining = [...new Set(ids)].filter(isIssueId);
    while (remaining.length > 0) {
      try {
        return parseShow(await query(args.show(remaining), signal));
      } catch (error) {
        const unknown = unknownIds(error, remaining, options.dialect);
        if (!unknown) throw error;
        remaining = remaining.filter((id) => !unknown.has(id));
      }
    }
    return [];
  }

  return {
    kind: options.dialect,
    readOnly: false,
    root: options.root,
    async listInProgress(signal): Promise<Issue[]> {
      // Both CLIs are asked to sort by update time, but only a parsed timestamp orders mixed offsets correctly.
      return byMostRecentlyUpdated(parseIssueList(await query(args.inProgress, signal)));
    },
    async listReady(signal): Promise<Issue[]> {
      return parseIssueList(await query(args.ready, signal));
    },
    show,
    addComment: (id, text, signal) => write(args.addComment(id, text), signal),
    claim: (id, signal) => write(args.claim(id), signal),
    close: (id, reason, signal) => write(args.close(id, reason), signal),
  };
}

/** Ids come from CLI output; anything that could be read as a flag is not one. */
function isIssueId(id: string): boolean {
  return id.length > 0 && !id.startsWith('-');
}

/**
 * Which of `requested` a failed `show` says do not exist; undefined when the failure is about
 * something else (and must surface).
 */
function unknownIds(error: unknown, requested: readonly string[], dialect: Dialect): Set<string> | undefined {
  if (!(error instanceof CliError) || error.kind !== 'exit') return undefined;
  const message = error.cliMessage ?? '';
  if (dialect === 'bd') {
    // bd's show fails only when none of the ids exist.
    if (/no issues found/i.test(message)) return new Set(requested);
    const named = /not found:?\s+(\S+)/i.exec(message)?.[1] ?? /issue\s+(\S+)\s+not found/i.exec(message)?.[1];
    if (named && requested.includes(named)) return new Set([named]);
    if (requested.length === 1 && (error.cliCode === 'not_found' || /not found/i.test(message))) return new Set(requested);
    return undefined;
  }
  if (error.cliCode !== 'ISSUE_NOT_FOUND' && error.exitCode !== 3) return undefined;
  const named = error.searchedId ?? /not found:\s*(\S+)/i.exec(message)?.[1];
  if (named && requested.includes(named)) return new Set([named]);
  return requested.length === 1 ? new Set(requested) : undefined;
}
