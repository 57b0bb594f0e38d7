import { compareVersions } from '../core/cliVersions';
import { IN_PROGRESS_STATUSES, isWorkInProgress, type Dialect, type Issue, type IssueDetails } from '../core/model';
import { parseCliVersion, parseComment, parseIssueList, parseMemories, parseShow } from '../core/parse';
import type { BeadsBackend, CloseOptions } from './backend';
import { CliError } from './errors';
import { asRefusal, asWriteHold, refusalInCloseAnswer, type RefusableWrite } from './refusal';
import { byMostRecentlyUpdated } from './order';
import { runCliJson } from './runCli';

export interface CliBackendOptions {
  dialect: Dialect;
  /** The executable: a path, or a name looked up on PATH. */
  command: string;
  /** The folder that holds `.beads`; every command runs there. */
  root: string;
  /** The store folder detection found, when it is not `<root>/.beads`. */
  beadsDir?: string;
  timeoutMs: number;
  /** Added to the CLI's environment (tests point the stand-ins' fault switch and call log here). */
  env?: Record<string, string>;
  /**
   * The bd version that last used this store (`.beads/.local_version`): from bd 1.3.0 on, `show`,
   * `list` and `ready` are asked for the smaller payloads (BRIEF_SINCE), and given up for good on
   * the first "unknown flag" (another bd on PATH than the one that used the store).
   */
  lastUsedVersion?: string;
}

/**
 * bd's smaller payloads (CHANGELOG [1.2.1] Added, #5546–#5586): `show --brief-deps` cuts each
 * dependency to the six keys parseShow reads, `list`/`ready --brief` drop the free text, which the
 * lists are never read for (the focused issue's comes from `show`). The released 1.2.2 is the
 * 1.1.2 code, so the first release to rely on is 1.3.0.
 */
const BRIEF_SINCE = '1.3.0';
const BRIEF_FLAGS = ['--brief', '--brief-deps'];

/**
 * The exact argument arrays per dialect (docs/BEADS_CONTRACT.md §1). Always `--json`; `--limit 0` on list and
 * ready because both CLIs default to 50 or 100. Issue ids go after `--`, which both parsers
 * (cobra for bd, clap for br) read as the end of the flags, so an id that starts with `-` is
 * still an id. Free text is attached to its flag with `=` (br's comment, both close reasons) or,
 * for bd's comment, which bd reads as `args[1]`, after the id.
 */
export const DIALECT_ARGS: Record<Dialect, {
  inProgress: readonly string[];
  ready: readonly string[];
  show: (ids: readonly string[]) => string[];
  /** bd ≤ 1.0.4 has no --include-* flags and always includes comments and dependents (C1). */
  legacyShow?: (ids: readonly string[]) => string[];
  addComment: (id: string, text: string) => string[];
  claim: (id: string) => string[];
  close: (id: string, reason: string, options?: CloseOptions) => string[];
}> = {
  bd: {
    // `hooked` is bd's other work-in-progress status (C2); bd takes a comma list.
    inProgress: ['list', '--status', IN_PROGRESS_STATUSES.join(','), '--json', '--limit', '0', '--sort', 'updated'],
    ready: ['ready', '--json', '--limit', '0'],
    // bd ≥ 1.0.5 leaves dependents and comments out of show unless asked.
    show: (ids) => ['show', '--json', '--include-comments', '--include-dependents', '--', ...ids],
    legacyShow: (ids) => ['show', '--json', '--', ...ids],
    addComment: (id, text) => ['comments', 'add', '--json', '--', id, text],
    claim: (id) => ['update', '--claim', '--json', '--', id],
    close: (id, reason, options) => ['close', `--reason=${reason}`, ...(options?.force ? ['--force'] : []), '--json', '--', id],
  },
  br: {
    // br takes the flag once per status.
    inProgress: ['list', ...IN_PROGRESS_STATUSES.flatMap((status) => ['-s', status]), '--json', '--limit', '0', '--sort', 'updated_at'],
    ready: ['ready', '--json', '--limit', '0'],
    show: (ids) => ['show', '--json', '--', ...ids],
    addComment: (id, text) => ['comments', 'add', '--json', `--message=${text}`, '--', id],
    claim: (id) => ['update', '--claim', '--json', '--', id],
    close: (id, reason, options) => ['close', `--reason=${reason}`, ...(options?.force ? ['--force'] : []), '--json', '--', id],
  },
};

/**
 * A backend that runs bd or br. Each method is one process, with two exceptions, both paid only
 * where they apply: when br rejects a multi-id `show` because one id does not exist (it fails the
 * whole call, exit 3), the call is repeated without the id it named; and the first `show` on a
 * bd ≤ 1.0.4, which rejects `--include-comments` as an unknown flag, is repeated without the
 * flags — the backend remembers that, so later shows on that project cost one process again.
 * bd answers the ids it found and exits 0, or fails with "no issues found" when none exist,
 * which is read as an empty answer. A write the CLI declines fails as a `refused` CliError with
 * the CLI's reason (src/beads/refusal.ts).
 */
export function createCliBackend(options: CliBackendOptions): BeadsBackend {
  const args = DIALECT_ARGS[options.dialect];
  const runOptions = (signal?: AbortSignal) => ({ cwd: options.root, timeoutMs: options.timeoutMs, signal, env: options.env });
  const query = (argv: readonly string[], signal?: AbortSignal) => runCliJson(options.command, argv, runOptions(signal));
  let brief = options.dialect === 'bd' && options.lastUsedVersion !== undefined && compareVersions(options.lastUsedVersion, BRIEF_SINCE) >= 0;
  /** A read with the smaller payload while this bd takes it; asked again without it, once, when it does not. */
  const briefQuery = async (argv: readonly string[], flag: string, signal?: AbortSignal): Promise<unknown> => {
    if (!brief) return query(argv, signal);
    try {
      return await query(withFlag(argv, flag), signal);
    } catch (error) {
      if (!isUnknownFlag(error, BRIEF_FLAGS)) throw error;
      brief = false;
      return query(argv, signal);
    }
  };
  // A write must also print its JSON answer: exit 0 with garbage is not proof that it landed, so
  // it fails as badJson and the outbox checks beads before sending it again.
  const write = async (kind: RefusableWrite, issueId: string, argv: readonly string[], signal?: AbortSignal) => {
    let answer: unknown;
    try {
      answer = await query(argv, signal);
    } catch (error) {
      // bd 1.3 holding every write back (a migration freeze, a shared database awaiting consent) is no refusal.
      const held = asWriteHold(error);
      throw held === error ? asRefusal(error, options.dialect, kind, issueId) : held;
    }
    // br prints `{closed, skipped}` (exit 0) when it closed some of several ids and skipped others.
    const refused = kind === 'close' ? refusalInCloseAnswer(answer, issueId) : undefined;
    if (refused !== undefined) throw new CliError({ kind: 'refused', command: options.command, args: argv, exitCode: 0, cliMessage: refused });
    return answer;
  };
  let showArgs = args.show;

  async function showOnce(ids: readonly string[], signal?: AbortSignal): Promise<unknown> {
    try {
      return await briefQuery(showArgs(ids), '--brief-deps', signal);
    } catch (error) {
      if (!args.legacyShow || showArgs === args.legacyShow || !isUnknownFlag(error)) throw error;
      showArgs = args.legacyShow;
      return query(showArgs(ids), signal);
    }
  }

  async function show(ids: readonly string[], signal?: AbortSignal): Promise<IssueDetails[]> {
    let remaining = [...new Set(ids)].filter((id) => id.length > 0);
    while (remaining.length > 0) {
      try {
        return parseShow(await showOnce(remaining, signal));
      } catch (error) {
        const unknown = unknownIds(error, remaining, options.dialect);
        if (!unknown) throw error;
        remaining = remaining.filter((id) => !unknown.has(id));
      }
    }
    return [];
  }

  // Shared by every caller, so no caller's signal may cancel it; a failure is remembered as "not said".
  let version: Promise<string | undefined> | undefined;

  return {
    kind: options.dialect,
    readOnly: false,
    root: options.root,
    ...(options.beadsDir ? { beadsDir: options.beadsDir } : {}),
    async listInProgress(signal): Promise<Issue[]> {
      // Both CLIs are asked to sort by update time, but only a parsed timestamp orders mixed offsets correctly.
      return byMostRecentlyUpdated(parseIssueList(await briefQuery(args.inProgress, '--brief', signal)).filter(isWorkInProgress));
    },
    async listReady(signal): Promise<Issue[]> {
      return parseIssueList(await briefQuery(args.ready, '--brief', signal));
    },
    show,
    // Both print the added comment (CONTRACT §1): its stamp tells the CLI's clock (outbox, cliClockOffset).
    addComment: async (id, text, signal) => ({ createdAt: parseComment(await write('comment', id, args.addComment(id, text), signal))?.createdAt || undefined }),
    claim: async (id, signal) => void (await write('claim', id, args.claim(id), signal)),
    close: async (id, reason, signal, closeOptions) => void (await write('close', id, args.close(id, reason, closeOptions), signal)),
    version: () => (version ??= query(['version', '--json']).then(parseCliVersion, () => undefined)),
    ...(options.dialect === 'bd' ? { memories: async (signal?: AbortSignal) => parseMemories(await query(['memories', '--json'], signal)) } : {}),
  };
}

/**
 * cobra's "unknown flag: --include-comments" (exit 1, plain text): an older bd. With `flags`, only
 * when the flag it names is one of them.
 */
function isUnknownFlag(error: unknown, flags?: readonly string[]): boolean {
  if (!(error instanceof CliError) || error.kind !== 'exit') return false;
  const named = /unknown flag:?\s+(--?[\w-]+)/i.exec(`${error.cliMessage ?? ''} ${error.stderr ?? ''}`);
  return named !== null && (flags === undefined || flags.includes(named[1] as string));
}

/** The flag placed before `--` (after which everything is an issue id), or at the end. */
function withFlag(argv: readonly string[], flag: string): string[] {
  const dashes = argv.indexOf('--');
  return dashes === -1 ? [...argv, flag] : [...argv.slice(0, dashes), flag, ...argv.slice(dashes)];
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
