import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BLOCKING_TYPES, PARENT_CHILD, isTerminal, isWorkInProgress, type Dialect, type Issue, type IssueDetails } from '../core/model';
import { issueFromLine, JsonlReader, type JsonlLoad, type LineSpan, type ScheduleFlags } from '../core/parse';
import { parseTimestamp } from '../core/time';
import { storeFolderOf, type BeadsBackend } from './backend';
import { CliError, ReadOnlyError } from './errors';
import { byHybrid, byMostRecentlyUpdated, byPriorityThenNewest } from './order';
import { errorMessage } from '../core/errors';
import { readFileRanges, readLines, readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

export interface JsonlBackendOptions {
  /** The folder that holds `.beads`. */
  root: string;
  /** The `.beads` folder actually used (after a redirect); `<root>/.beads` by default. */
  beadsDir?: string;
  /** Default `<beadsDir>/issues.jsonl`. */
  jsonlPath?: string;
  /** Whose readiness rules and ready order to follow; br's when unknown. */
  dialect?: Dialect;
  /** Why the project is read-only, for the message of a refused write. */
  reason?: string;
  /** Milliseconds since the epoch; a parameter so that tests can fix the time of "deferred until". */
  now?: () => number;
}

/**
 * The largest issues.jsonl read: twice a 122 MB store, far more than real projects hold, and little
 * enough that the issues it holds fit in memory. A bigger file is refused whole, with its size.
 */
export const JSONL_MAX_BYTES = 256 * 1024 * 1024;

/** bd keeps these infrastructure types out of `ready` (docs/BEADS_CONTRACT.md §1, ready_work.go). */
const BD_NON_WORK_TYPES: ReadonlySet<string> = new Set(['merge-request', 'gate', 'molecule', 'message', 'agent', 'role', 'rig']);

/**
 * The most shown issues whose details are kept between queries: a view shows a few at a time (the
 * focus and the issues around it), and each is read again from its line only when it is asked for
 * after falling out.
 */
const DETAILS_KEPT = 64;

/**
 * A read-only backend over `.beads/issues.jsonl`, for when no CLI can run (missing, untrusted
 * workspace, failing). br rewrites the file after every command; bd only with auto-export, so it
 * may be stale or absent — the message says so. The file is read as a stream, once, into what
 * lists need (each issue's fields and links, where its line is), reused until its size,
 * modification time or inode changes, so a refresh's several queries read it once; `show` reads
 * the lines of the issues it is asked for again, for their descriptions and comments. Memory
 * follows the number of issues, not the size of their texts (`npm run bench readOnly`).
 */
export function createJsonlBackend(options: JsonlBackendOptions): BeadsBackend {
  const beadsDir = options.beadsDir ?? storeFolderOf({ root: options.root });
  const jsonlPath = options.jsonlPath ?? join(beadsDir, 'issues.jsonl');
  const dialect = options.dialect ?? 'br';
  const reason = options.reason ?? 'no beads CLI available';
  const now = options.now ?? Date.now;
  const readOptions = { maxBytes: JSONL_MAX_BYTES, within: dirname(beadsDir) };
  interface Loaded {
    key: string;
    load: JsonlLoad;
    byId: Map<string, IssueDetails>;
    /** The details shown lately, read again from their lines. */
    details: Map<string, IssueDetails>;
  }
  let cached: Loaded | undefined;
  /**
   * The read under way: the queries of one refresh start together (the lists, then `show`), and
   * each waits for this one read instead of reading the file beside it (two reads held the issues
   * twice). It stops when every query that waited for it has been canceled.
   */
  interface Reading {
    key: string;
    done: Promise<Loaded>;
    /** The queries waiting for it. */
    waiting: number;
  }
  let reading: Reading | undefined;

  async function load(signal?: AbortSignal): Promise<Loaded> {
    throwIfAborted(signal, jsonlPath);
    let key: string;
    try {
      const info = await stat(jsonlPath);
      key = `${info.size}:${info.mtimeMs}:${info.ino}`;
    } catch (error) {
      throw new Error(missingFileMessage(jsonlPath, dialect, error), { cause: error });
    }
    if (cached?.key === key) return cached;
    if (reading?.key !== key) reading = startReading(key);
    const current = reading;
    current.waiting++;
    try {
      return await untilAborted(current.done, signal, jsonlPath);
    } finally {
      current.waiting--;
    }
  }

  function startReading(key: string): Reading {
    const started: Reading = {
      key,
      waiting: 0,
      // Asked at every line (never before the first): a read nobody waits for any more stops, and no query joins it after that.
      done: readFile(key, () => {
        if (started.waiting > 0) return true;
        if (reading === started) reading = undefined;
        return false;
      }),
    };
    void started.done
      .then(
        (loaded) => {
          cached = loaded;
        },
        // Each waiting query gets the error; a read that all of them gave up on ends here.
        () => undefined,
      )
      .finally(() => {
        if (reading === started) reading = undefined;
      });
    return started;
  }

  async function readFile(key: string, wanted: () => boolean): Promise<Loaded> {
    // Line by line: memory holds the issues as lists show them, not the text. Only a regular file inside the project.
    const lines = await readLines(jsonlPath, readOptions);
    if (!lines) throw new Error(noFileMessage(jsonlPath, dialect));
    const reader = new JsonlReader();
    for await (const line of lines) {
      reader.add(line.text, line.complete, { offset: line.offset, bytes: line.bytes });
      // Leaving the loop closes the file.
      if (!wanted()) throw canceled(jsonlPath);
    }
    // A removed issue that a live one links to is named by its title, read from its line.
    const tombstones = [...reader.tombstonesToRead()];
    const tombstoneLines = tombstones.length > 0 ? await readFileRanges(jsonlPath, tombstones.map(([, span]) => span), readOptions) : [];
    tombstones.forEach(([id], index) => {
      const line = tombstoneLines?.[index];
      if (line) reader.addTombstoneLine(id, line.toString('utf8'));
    });
    const parsed = reader.finish();
    return { key, load: parsed, byId: new Map(parsed.issues.map((issue) => [issue.id, issue])), details: new Map() };
  }

  /**
   * The details of the issues of `ids` found in the file, from their lines; undefined when a line
   * no longer holds its issue (the file was rewritten in place since it was read, unseen by its
   * size, time and inode) or the file is gone.
   */
  async function detailsOf(loaded: Loaded, ids: readonly string[]): Promise<IssueDetails[] | undefined> {
    const wanted = ids.map((id) => loaded.byId.get(id)).filter((issue) => issue !== undefined);
    const unread = wanted.filter((issue) => !loaded.details.has(issue.id) && loaded.load.spans.has(issue.id));
    const read = new Map<string, IssueDetails>();
    if (unread.length > 0) {
      const lines = await readFileRanges(jsonlPath, unread.map((issue) => loaded.load.spans.get(issue.id) as LineSpan), readOptions);
      if (!lines) return undefined;
      for (const [index, listed] of unread.entries()) {
        const whole = issueFromLine((lines[index] as Buffer).toString('utf8'));
        if (whole?.id !== listed.id) return undefined;
        read.set(listed.id, { ...whole, dependencies: listed.dependencies, dependents: listed.dependents });
      }
    }
    const found = wanted.map((issue) => read.get(issue.id) ?? loaded.details.get(issue.id) ?? issue);
    for (const issue of read.values()) {
      loaded.details.set(issue.id, issue);
      if (loaded.details.size > DETAILS_KEPT) loaded.details.delete(loaded.details.keys().next().value as string);
    }
    return found;
  }

  return {
    kind: 'jsonl',
    readOnly: true,
    root: options.root,
    beadsDir,
    async listInProgress(signal) {
      const { load: data } = await load(signal);
      return byMostRecentlyUpdated(data.issues.filter(isWorkInProgress)).map(withoutLinks);
    },
    async listReady(signal) {
      const { load: data, byId } = await load(signal);
      const readyStatuses = dialect === 'br' ? await readyStatusGroup(beadsDir) : DEFAULT_READY_STATUSES;
      return readyIssues(data.issues, byId, data.schedule, now(), dialect, readyStatuses).map(withoutLinks);
    },
    async readyChangesAfter(at, signal) {
      const { load: data } = await load(signal);
      let next: number | undefined;
      for (const flags of data.schedule.values()) {
        const until = parseTimestamp(flags.deferUntil);
        if (until !== undefined && until > at && (next === undefined || until < next)) next = until;
      }
      return next === undefined ? {} : { at: next };
    },
    async show(ids, signal) {
      const unique = [...new Set(ids)];
      const found = await detailsOf(await load(signal), unique);
      if (found) return found;
      // Rewritten in place since it was read: read it again, once.
      cached = undefined;
      const again = await detailsOf(await load(signal), unique);
      if (again) return again;
      throw new Error(`${jsonlPath} changed while it was read; nothing was shown from it. Try again.`);
    },
    async addComment() {
      throw new ReadOnlyError('add a comment', reason);
    },
    async claim() {
      throw new ReadOnlyError('claim an issue', reason);
    },
    async close() {
      throw new ReadOnlyError('close an issue', reason);
    },
  };
}

/** Which statuses are ready when nothing says otherwise: both CLIs' `open`. */
const DEFAULT_READY_STATUSES: readonly string[] = ['open'];

/**
 * br's ready status group (C11): `.beads/policy.yaml` `workflow.status_groups.ready`, lowercased
 * and trimmed as br reads it, `[open]` when the file, the key or any member is missing. A file br
 * could not read either (not YAML) also gives the default: the reader stays useful.
 */
export async function readyStatusGroup(beadsDir: string): Promise<readonly string[]> {
  let text: string | undefined;
  try {
    text = await readTextFile(join(beadsDir, 'policy.yaml'), { maxBytes: SMALL_FILE_MAX_BYTES });
  } catch {
    return DEFAULT_READY_STATUSES;
  }
  if (text === undefined) return DEFAULT_READY_STATUSES;
  let policy: unknown;
  try {
    // Loaded here only: most stores have no policy, and a hook process need not load a YAML parser for nothing.
    const { parse: parseYaml } = await import('yaml');
    policy = parseYaml(text);
  } catch {
    return DEFAULT_READY_STATUSES;
  }
  const group = field(field(field(policy, 'workflow'), 'status_groups'), 'ready');
  if (!Array.isArray(group)) return DEFAULT_READY_STATUSES;
  const statuses = [...new Set(group.filter((status): status is string => typeof status === 'string').map((status) => status.trim().toLowerCase()))].filter(Boolean);
  return statuses.length > 0 ? statuses : DEFAULT_READY_STATUSES;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The CLIs' readiness (docs/BEADS_CONTRACT.md §1 "ready"): a status of the ready group (`open`, or br's
 * `policy.yaml` group); no open blocker through `blocks`,
 * `conditional-blocks` or `waits-for`; no blocked or deferred parent (propagated up the
 * parent-child chain); not deferred into the future; not pinned, ephemeral, a template or a
 * wisp; for bd not an infrastructure type, for br not an epic with an open child. A blocker
 * missing from the file does not block: the CLIs join on existing issues too.
 *
 * Order: each CLI's default — br `hybrid` (P0/P1 first, each group oldest first), bd `priority`
 * (priority, then newest first, then id).
 */
function readyIssues(
  issues: readonly IssueDetails[],
  byId: ReadonlyMap<string, IssueDetails>,
  schedule: ReadonlyMap<string, ScheduleFlags>,
  now: number,
  dialect: Dialect,
  readyStatuses: readonly string[] = DEFAULT_READY_STATUSES,
): IssueDetails[] {
  const deferred = (issue: IssueDetails): boolean => {
    const until = parseTimestamp(schedule.get(issue.id)?.deferUntil);
    return until !== undefined && until > now;
  };
  const held = new Map<string, boolean>();
  // An issue is held back when it, or any ancestor, is blocked or deferred. Memoized; a
  // parent-child cycle counts as not held rather than recursing forever.
  const isHeld = (issue: IssueDetails, visiting: Set<string>): boolean => {
    const known = held.get(issue.id);
    if (known !== undefined) return known;
    if (visiting.has(issue.id)) return false;
    visiting.add(issue.id);
    let result = deferred(issue);
    for (const dependency of issue.dependencies) {
      if (result) break;
      const target = byId.get(dependency.id);
      if (!target) continue;
      if (BLOCKING_TYPES.has(dependency.dependencyType)) result = !isTerminal(target.status);
      else if (dependency.dependencyType === PARENT_CHILD) result = isHeld(target, visiting);
    }
    visiting.delete(issue.id);
    held.set(issue.id, result);
    return result;
  };

  const ready = issues.filter((issue) => {
    if (!readyStatuses.includes(issue.status.toLowerCase())) return false;
    const flags = schedule.get(issue.id);
    if (flags?.pinned || flags?.ephemeral || flags?.template) return false;
    if (issue.id.includes('-wisp-')) return false;
    if (dialect === 'bd' && BD_NON_WORK_TYPES.has(issue.issueType)) return false;
    // Not propagated to the children: they are the open work the epic waits for.
    if (dialect === 'br' && issue.issueType === 'epic' && hasOpenChild(issue, byId)) return false;
    return !isHeld(issue, new Set());
  });
  return dialect === 'bd' ? ready.sort(byPriorityThenNewest) : ready.sort(byHybrid);
}

function hasOpenChild(issue: IssueDetails, byId: ReadonlyMap<string, IssueDetails>): boolean {
  return issue.dependents.some((link) => {
    const child = byId.get(link.id);
    return link.dependencyType === PARENT_CHILD && child !== undefined && !isTerminal(child.status);
  });
}

/** Lists answer with plain issues, as the CLIs' list commands do. */
function withoutLinks(issue: IssueDetails): Issue {
  const plain: Partial<IssueDetails> = { ...issue };
  delete plain.dependencies;
  delete plain.dependents;
  delete plain.comments;
  return plain as Issue;
}

function throwIfAborted(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted) throw canceled(path);
}

function canceled(path: string): CliError {
  return new CliError({ kind: 'canceled', command: path, args: [] });
}

/** `work`'s result, or canceled as soon as `signal` aborts (the work itself goes on for others). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, path: string): Promise<T> {
  if (!signal) return work;
  throwIfAborted(signal, path);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(canceled(path));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function missingFileMessage(path: string, dialect: Dialect, error: unknown): string {
  const code = (error as { code?: string }).code;
  return code === 'ENOENT' ? noFileMessage(path, dialect) : `Cannot read ${path}: ${errorMessage(error)}`;
}

function noFileMessage(path: string, dialect: Dialect): string {
  const why =
    dialect === 'bd'
      ? 'bd writes it only with export.auto enabled, in no-db mode, or after `bd export -o .beads/issues.jsonl`'
      : 'br writes it after every change; run a br command once to create it';
  return `There is no ${path} to read (${why}).`;
}
