import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BLOCKING_TYPES, PARENT_CHILD, isTerminal, isWorkInProgress, type Dialect, type Issue, type IssueDetails } from '../core/model';
import { JsonlReader, type JsonlLoad, type ScheduleFlags } from '../core/parse';
import { parseTimestamp } from '../core/time';
import { storeFolderOf, type BeadsBackend } from './backend';
import { CliError, ReadOnlyError } from './errors';
import { byHybrid, byMostRecentlyUpdated, byPriorityThenNewest } from './order';
import { errorMessage } from '../core/errors';
import { readLines, readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

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
 * A read-only backend over `.beads/issues.jsonl`, for when no CLI can run (missing, untrusted
 * workspace, failing). br rewrites the file after every command; bd only with auto-export, so it
 * may be stale or absent — the message says so. The parsed file is reused until its size or
 * modification time changes, so a refresh's several queries read it once.
 */
export function createJsonlBackend(options: JsonlBackendOptions): BeadsBackend {
  const beadsDir = options.beadsDir ?? storeFolderOf({ root: options.root });
  const jsonlPath = options.jsonlPath ?? join(beadsDir, 'issues.jsonl');
  const dialect = options.dialect ?? 'br';
  const reason = options.reason ?? 'no beads CLI available';
  const now = options.now ?? Date.now;
  let cached: { key: string; load: JsonlLoad; byId: Map<string, IssueDetails> } | undefined;

  async function load(signal?: AbortSignal): Promise<{ load: JsonlLoad; byId: Map<string, IssueDetails> }> {
    throwIfAborted(signal, jsonlPath);
    let key: string;
    try {
      const info = await stat(jsonlPath);
      key = `${info.size}:${info.mtimeMs}:${info.ino}`;
    } catch (error) {
      throw new Error(missingFileMessage(jsonlPath, dialect, error), { cause: error });
    }
    if (cached?.key === key) return cached;
    // Line by line: memory holds the issues, not the text. Only a regular file inside the project.
    const lines = await readLines(jsonlPath, { maxBytes: JSONL_MAX_BYTES, within: dirname(beadsDir) });
    if (!lines) throw new Error(noFileMessage(jsonlPath, dialect));
    const reader = new JsonlReader();
    for await (const line of lines) {
      reader.add(line.text, line.complete);
      // Leaving the loop closes the file.
      throwIfAborted(signal, jsonlPath);
    }
    const parsed = reader.finish();
    cached = { key, load: parsed, byId: new Map(parsed.issues.map((issue) => [issue.id, issue])) };
    return cached;
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
    async show(ids, signal) {
      const { byId } = await load(signal);
      const found: IssueDetails[] = [];
      for (const id of new Set(ids)) {
        const issue = byId.get(id);
        if (issue) found.push(issue);
      }
      return found;
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
  if (signal?.aborted) throw new CliError({ kind: 'canceled', command: path, args: [] });
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
