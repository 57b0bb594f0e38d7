// Tolerant readers from CLI JSON (already JSON.parse'd) and `.beads/issues.jsonl` text to the
// normalized model. Both CLIs change shapes between versions (docs/BEADS_CONTRACT.md §6), so: unwrap any
// envelope, ignore unknown keys, treat missing arrays as empty, keep statuses and types as the
// strings they are, and never fail a whole answer because one element is odd.
import { compareText } from './compare';
import { isTerminal, type Comment, type Issue, type IssueDetails, type IssueSummary, type LinkedIssue, type Memory } from './model';

type JsonRecord = Record<string, unknown>;

const DEFAULT_PRIORITY = 2;
const DEFAULT_TYPE = 'task';

/** The shape `where --json` gives when it finds a project. */
export interface WhereInfo {
  /** The active `.beads` folder (after any redirect). */
  path: string;
  redirectedFrom?: string;
  prefix?: string;
  databasePath?: string;
  jsonlPath?: string;
}

export interface VersionInfo {
  version: string;
  build?: string;
}

/**
 * The elements of a list-like answer: a bare array (bd, br ready/show, br ≤ 0.1.29 list), bd's
 * `{schema_version, data}` envelope, br's `{issues, total, …}` page, or a single object
 * (bd's legacy object-returning commands).
 */
export function unwrapList(json: unknown): unknown[] {
  const value = unwrapEnvelope(json);
  if (Array.isArray(value)) return value;
  if (isRecord(value)) {
    if (Array.isArray(value.issues)) return value.issues;
    if ('id' in value) return [value];
  }
  return [];
}

/** `list` / `ready` output. */
export function parseIssueList(json: unknown): Issue[] {
  const issues: Issue[] = [];
  for (const element of unwrapList(json)) {
    const issue = parseIssue(element);
    if (issue) issues.push(issue);
  }
  return issues;
}

/**
 * `show` output (an array in both CLIs, even for one id). bd's `dependencies` are full issues
 * with `dependency_type`; br's are `{id,title,status,priority,dependency_type}` summaries. bd
 * gives `dependents` and `comments` only with `--include-dependents --include-comments`; br
 * omits empty arrays. Either way a missing array is an empty one.
 */
export function parseShow(json: unknown): IssueDetails[] {
  const details: IssueDetails[] = [];
  for (const element of unwrapList(json)) {
    const issue = parseIssue(element);
    if (!issue || !isRecord(element)) continue;
    details.push({
      ...issue,
      dependencies: parseLinkedList(element.dependencies, 'target'),
      dependents: parseLinkedList(element.dependents, 'source'),
      comments: parseComments(element.comments),
    });
  }
  return details;
}

/** `where --json`; undefined for the "no beads directory" error shapes. */
export function parseWhere(json: unknown): WhereInfo | undefined {
  const value = unwrapEnvelope(json);
  if (!isRecord(value) || 'error' in value) return undefined;
  const path = text(value.path);
  if (!path) return undefined;
  return withoutUndefined({
    path,
    redirectedFrom: text(value.redirected_from),
    prefix: text(value.prefix),
    databasePath: text(value.database_path),
    jsonlPath: text(value.jsonl_path),
  });
}

/** `version --json`: bd `{version, build, commit?, branch?}`, br `{version, build, rust_version, …}`. */
export function parseVersion(json: unknown): VersionInfo | undefined {
  const value = unwrapEnvelope(json);
  if (!isRecord(value)) return undefined;
  const version = text(value.version);
  if (!version) return undefined;
  return withoutUndefined({ version, build: text(value.build) });
}

/**
 * One issue-shaped record; undefined when it has no id. `listed`: as lists show it (what the CLIs'
 * `list --json` gives, but the long texts left out: the description of open work only begun, the
 * rest not at all), for a reader that keeps every issue of a file. A kept part is a string of its own: a slice
 * would keep the whole text it was cut from alive.
 */
function parseIssue(value: unknown, listed = false): Issue | undefined {
  if (!isRecord(value)) return undefined;
  const id = idText(value.id);
  if (!id) return undefined;
  const createdAt = text(value.created_at) ?? '';
  const issue: Issue = {
    id,
    title: (listed ? ownCut(text(value.title), LISTED_TITLE_CHARS) : shownText(value.title)) ?? '',
    status: text(value.status) ?? 'open',
    priority: parsePriority(value.priority),
    issueType: text(value.issue_type) ?? DEFAULT_TYPE,
    createdAt,
    updatedAt: text(value.updated_at) ?? createdAt,
    labels: stringArray(value.labels),
  };
  if (listed) {
    // Lists show open work only: a closed issue's description is read with its details.
    const description = isTerminal(issue.status) ? undefined : ownCut(text(value.description), LISTED_DESCRIPTION_CHARS);
    if (description !== undefined) issue.description = description;
    return withPeople(issue, value);
  }
  const description = shownText(value.description);
  if (description !== undefined) issue.description = description;
  const acceptanceCriteria = shownText(value.acceptance_criteria);
  if (acceptanceCriteria !== undefined) issue.acceptanceCriteria = acceptanceCriteria;
  const notes = shownText(value.notes);
  if (notes !== undefined) issue.notes = notes;
  const design = shownText(value.design);
  if (design !== undefined) issue.design = design;
  const agentContext = shownText(value.agent_context);
  if (agentContext !== undefined) issue.agentContext = agentContext;
  return withPeople(issue, value);
}

/** Who and when: the issue's assignee, start and close, and whether it is ephemeral. */
function withPeople(issue: Issue, value: JsonRecord): Issue {
  const assignee = text(value.assignee);
  if (assignee !== undefined) issue.assignee = assignee;
  const startedAt = text(value.started_at);
  if (startedAt !== undefined) issue.startedAt = startedAt;
  const closedAt = text(value.closed_at);
  if (closedAt !== undefined) issue.closedAt = closedAt;
  if (value.ephemeral === true) issue.ephemeral = true;
  return issue;
}

/**
 * `bd memories --json`: the key -> value map, into which bd injects `schema_version` as it does
 * into every object (cmd/bd/memory.go printMemoriesResult through outputJSON), so a number under
 * that key is bd's and is left out. Sorted by key, as bd lists them; non-text values are skipped.
 */
export function parseMemories(json: unknown): Memory[] {
  const value = unwrapEnvelope(json);
  if (!isRecord(value)) return [];
  return Object.entries(value)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0].length > 0)
    .map(([key, text]) => ({ key, value: text }))
    .sort((a, b) => compareText(a.key, b.key));
}

/** Priorities are 0–4; both CLIs also accept "P0"–"P4" on input, so read either form. */
export function parsePriority(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string') {
    const match = /^\s*[Pp]?(\d+)\s*$/.exec(value);
    if (match) return Number(match[1]);
  }
  return DEFAULT_PRIORITY;
}

function parseComments(value: unknown): Comment[] {
  if (!Array.isArray(value)) return [];
  const comments: Comment[] = [];
  for (const element of value) {
    const comment = parseComment(element);
    if (comment) comments.push(comment);
  }
  return comments;
}

/** bd comment ids are UUIDv7 strings (integers before 1.0), br's are integers. */
export function parseComment(value: unknown): Comment | undefined {
  const unwrapped = unwrapEnvelope(value);
  if (!isRecord(unwrapped)) return undefined;
  const body = text(unwrapped.text) ?? text(unwrapped.body);
  if (body === undefined) return undefined;
  return {
    id: idText(unwrapped.id) ?? '',
    author: text(unwrapped.author) ?? '',
    text: body,
    createdAt: text(unwrapped.created_at) ?? '',
  };
}

// ---------------------------------------------------------------------------------------------
// `.beads/issues.jsonl`

/** What keeps an issue out of the ready queue besides its status and its blockers. */
export interface ScheduleFlags {
  deferUntil?: string;
  pinned?: boolean;
  ephemeral?: boolean;
  template?: boolean;
}

/** Where a line lies in its file, in bytes (its line end not counted): read again for an issue's details. */
export interface LineSpan {
  offset: number;
  bytes: number;
}

export interface JsonlLoad {
  /**
   * Every live issue (not a tombstone), in file order, with both directions of its dependencies.
   * An issue whose line was given with its span is listed only (see `ListedIssue`): its details
   * are read again from `spans`.
   */
  issues: IssueDetails[];
  /** The line of each issue read as listed only. */
  spans: Map<string, LineSpan>;
  /** Lines that are not JSON objects with an id (corrupt or foreign), not counting a partial last line. */
  skipped: number;
  /** The file ended in a line that does not parse and has no newline: a write caught mid-way. */
  partialLastLine: boolean;
  tombstones: number;
  /** Records whose `_type` is not `issue` (bd memories and the like). */
  otherRecords: number;
  /** Only the issues that have any of these flags set. */
  schedule: Map<string, ScheduleFlags>;
}

interface Edge {
  source: string;
  target: string;
  type: string;
}

/**
 * Reads a whole issues.jsonl (bd or br) held in memory; `JsonlReader` does the same a line at a
 * time, for a file read as a stream.
 */
export function parseJsonl(content: string): JsonlLoad {
  const reader = new JsonlReader();
  let start = 0;
  while (start < content.length) {
    const newline = content.indexOf('\n', start);
    const end = newline === -1 ? content.length : newline;
    reader.add(content.slice(start, end), newline !== -1);
    start = end + 1;
  }
  return reader.finish();
}

/**
 * Reads issues.jsonl (bd or br) in two linear passes: records as their lines come, then, in
 * `finish`, the dependency records resolved through an id index (both directions). A dependency
 * whose target is not in the file is kept, as an issue of unknown status, rather than dropped.
 * Only the parsed issues are kept, never the text, and each free-text field is cut to
 * MAX_TEXT_CHARS: memory follows what the views can show, not the size of the file.
 *
 * A line given with its span (a file read as a stream) keeps less: its issue as lists show it
 * (`parseIssue`'s `listed`) and where its line is, never its comments or long texts, and a tombstone only
 * its span. Memory then follows the number of issues, not their text: the details of the few
 * issues a view shows are read again from their lines (`issueFromLine`).
 */
export class JsonlReader {
  private readonly live = new Map<string, IssueDetails>();
  private readonly summaries = new Map<string, IssueSummary>();
  private readonly edgesBySource = new Map<string, Edge[]>();
  private readonly schedule = new Map<string, ScheduleFlags>();
  private readonly tombstoneLines = new Map<string, string>();
  private readonly tombstoneSpans = new Map<string, LineSpan>();
  private readonly spans = new Map<string, LineSpan>();
  private skipped = 0;
  private partialLastLine = false;
  private tombstones = 0;
  private otherRecords = 0;

  /**
   * One line, without its newline; `complete` is false for a last line that has none (a write
   * caught mid-way). With `at`, the issue is kept as listed only, its details left in the file.
   */
  add(text: string, complete: boolean, at?: LineSpan): void {
    const line = text.trim();
    if (!line) return;
    const tombstone = complete ? tombstoneId(line) : undefined;
    if (tombstone !== undefined) {
      this.tombstones++;
      this.forget(tombstone);
      if (at) this.tombstoneSpans.set(tombstone, at);
      else this.tombstoneLines.set(tombstone, line);
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      if (complete) this.skipped++;
      else this.partialLastLine = true;
      return;
    }
    if (!isRecord(record)) {
      this.skipped++;
      return;
    }
    if (record._type !== undefined && record._type !== 'issue') {
      this.otherRecords++;
      return;
    }
    const issue = parseIssue(record, at !== undefined);
    if (!issue) {
      this.skipped++;
      return;
    }
    // A live issue is named by its own fields; a removed one by what is kept of it here.
    if (issue.status === 'tombstone') this.summaries.set(issue.id, summarizeIssue(issue));
    else this.summaries.delete(issue.id);
    this.tombstoneLines.delete(issue.id);
    this.tombstoneSpans.delete(issue.id);
    // A later line for the same id wins: it is the newer state of a record written twice.
    this.live.delete(issue.id);
    this.spans.delete(issue.id);
    this.edgesBySource.delete(issue.id);
    this.schedule.delete(issue.id);
    if (issue.status === 'tombstone') {
      this.tombstones++;
      return;
    }
    const details = issue as IssueDetails;
    details.dependencies = [];
    details.dependents = [];
    details.comments = at ? [] : parseComments(record.comments);
    this.live.set(issue.id, details);
    if (at) this.spans.set(issue.id, at);
    const edges = dependencyEdges(record, issue.id);
    if (edges.length > 0) this.edgesBySource.set(issue.id, edges);
    const flags = scheduleFlags(record);
    if (flags) this.schedule.set(issue.id, flags);
  }

  /**
   * The tombstones kept by their span only that a live issue links to: `finish` names them by
   * their titles when their lines are given back through `addTombstoneLine`.
   */
  tombstonesToRead(): Map<string, LineSpan> {
    const wanted = new Map<string, LineSpan>();
    for (const edges of this.edgesBySource.values()) {
      for (const edge of edges) {
        const span = this.tombstoneSpans.get(edge.target);
        if (span && this.live.has(edge.source)) wanted.set(edge.target, span);
      }
    }
    return wanted;
  }

  /** A tombstone's line read again for `tombstonesToRead`. */
  addTombstoneLine(id: string, line: string): void {
    if (this.tombstoneSpans.has(id)) this.tombstoneLines.set(id, line);
  }

  /** The issues read, their dependencies linked both ways. */
  finish(): JsonlLoad {
    const { live, summaries, tombstoneLines } = this;
    const summaryOf = (id: string): IssueSummary => {
      const issue = live.get(id);
      if (issue) return summarizeIssue(issue);
      const known = summaries.get(id);
      if (known) return known;
      const line = tombstoneLines.get(id);
      const parsed = line === undefined ? undefined : parseTombstoneLine(line);
      if (parsed) summaries.set(id, parsed);
      return parsed ?? unknownIssue(id);
    };
    const seen = new Set<string>();
    for (const edges of this.edgesBySource.values()) {
      for (const edge of edges) {
        const source = live.get(edge.source);
        if (!source) continue;
        const key = `${edge.source}\u0000${edge.target}\u0000${edge.type}`;
        if (seen.has(key)) continue;
        seen.add(key);
        source.dependencies.push(linked(summaryOf(edge.target), edge.type));
        live.get(edge.target)?.dependents.push(linked(summarizeIssue(source), edge.type));
      }
    }
    return {
      issues: [...live.values()],
      spans: this.spans,
      skipped: this.skipped,
      partialLastLine: this.partialLastLine,
      tombstones: this.tombstones,
      otherRecords: this.otherRecords,
      schedule: this.schedule,
    };
  }

  private forget(id: string): void {
    this.summaries.delete(id);
    this.live.delete(id);
    this.spans.delete(id);
    this.edgesBySource.delete(id);
    this.schedule.delete(id);
  }
}

/**
 * Most lines of an old store are tombstones (3,319 of 5,722 in the beads repository's own), and
 * parsing them is most of the load time, so they are recognized without parsing and parsed only
 * if a live issue depends on one. Both CLIs write `id` first and `status` before any nested
 * object, so the first `"status":` of a compact line is the issue's own. Anything else takes the
 * full path, as does a line without its newline, which may be a partial write.
 */
function tombstoneId(line: string): string | undefined {
  const status = line.indexOf('"status":');
  if (status === -1 || !line.startsWith('"tombstone"', status + 9) || !line.endsWith('}')) return undefined;
  const match = LEADING_ID.exec(line);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1] as string) as string;
  } catch {
    return undefined;
  }
}

const LEADING_ID = /^\{"id":("(?:[^"\\]|\\.)+")/;

function parseTombstoneLine(line: string): IssueSummary | undefined {
  try {
    const issue = parseIssue(JSON.parse(line));
    return issue ? summarizeIssue(issue) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The issue on one line of issues.jsonl with its comments, its links left empty (the caller has
 * them from the whole file); undefined when the line is not a live issue record.
 */
export function issueFromLine(line: string): IssueDetails | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(record) || (record._type !== undefined && record._type !== 'issue')) return undefined;
  const issue = parseIssue(record);
  if (!issue || issue.status === 'tombstone') return undefined;
  return { ...issue, dependencies: [], dependents: [], comments: parseComments(record.comments) };
}

/**
 * The most characters of a description an issue keeps while it is only listed: the sidebar shows
 * a listed issue's first three lines, at most 400 characters (core/viewModel.ts).
 */
export const LISTED_DESCRIPTION_CHARS = 512;

/** Titles are one line; past this many characters a listed title is cut (details keep MAX_TEXT_CHARS). */
const LISTED_TITLE_CHARS = 1024;

/**
 * `whole` cut to `maxChars` as a string of its own: V8 keeps a long slice as a view of its parent,
 * which would keep the whole text alive. A text within the bound is returned as it is.
 */
function ownCut(whole: string | undefined, maxChars: number): string | undefined {
  if (whole === undefined || whole.length <= maxChars) return whole;
  return JSON.parse(JSON.stringify(cutText(whole, maxChars))) as string;
}

/** A dependency target that is not in the data: shown as unknown, never silently dropped. */
function unknownIssue(id: string): IssueSummary {
  return { id, title: '(unknown)', status: 'unknown', priority: DEFAULT_PRIORITY, issueType: 'unknown' };
}

function dependencyEdges(record: JsonRecord, ownerId: string): Edge[] {
  if (!Array.isArray(record.dependencies)) return [];
  const edges: Edge[] = [];
  for (const dependency of record.dependencies) {
    if (!isRecord(dependency)) continue;
    const target = idText(dependency.depends_on_id);
    if (!target) continue;
    edges.push({
      source: idText(dependency.issue_id) ?? ownerId,
      target,
      type: text(dependency.type) ?? text(dependency.dependency_type) ?? 'unknown',
    });
  }
  return edges;
}

function scheduleFlags(record: JsonRecord): ScheduleFlags | undefined {
  const flags: ScheduleFlags = {};
  const deferUntil = text(record.defer_until);
  if (deferUntil) flags.deferUntil = deferUntil;
  if (record.pinned === true) flags.pinned = true;
  if (record.ephemeral === true) flags.ephemeral = true;
  if (record.is_template === true) flags.template = true;
  return Object.keys(flags).length > 0 ? flags : undefined;
}

// ---------------------------------------------------------------------------------------------

/**
 * A linked issue inside `show` output. `direction` says which end of the record the element
 * describes; it matters only for raw dependency records (`{issue_id, depends_on_id, type}`),
 * which some bd versions emit instead of issue objects.
 */
function parseLinkedList(value: unknown, direction: 'target' | 'source'): LinkedIssue[] {
  if (!Array.isArray(value)) return [];
  const linkedIssues: LinkedIssue[] = [];
  for (const element of value) {
    if (!isRecord(element)) continue;
    const dependencyType = text(element.dependency_type) ?? text(element.type) ?? 'unknown';
    const id = idText(element.id);
    if (id) {
      linkedIssues.push({
        id,
        title: text(element.title) ?? '',
        status: text(element.status) ?? 'unknown',
        priority: parsePriority(element.priority),
        // br's summaries carry no type; an empty string says "not reported" without inventing one.
        issueType: text(element.issue_type) ?? '',
        dependencyType,
      });
      continue;
    }
    const rawId = idText(direction === 'target' ? element.depends_on_id : element.issue_id);
    if (rawId) linkedIssues.push(linked(unknownIssue(rawId), dependencyType));
  }
  return linkedIssues;
}

function linked(summary: IssueSummary, dependencyType: string): LinkedIssue {
  return { ...summary, dependencyType };
}

function summarizeIssue(issue: Issue): IssueSummary {
  return { id: issue.id, title: issue.title, status: issue.status, priority: issue.priority, issueType: issue.issueType };
}

function unwrapEnvelope(json: unknown): unknown {
  // bd's BD_JSON_ENVELOPE=1 form; `data` never appears at the top of a bare issue.
  if (isRecord(json) && 'data' in json && ('schema_version' in json || !('id' in json))) return json.data;
  return json;
}

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The most characters of an issue's title, description, acceptance criteria, notes or design that
 * are kept. Every view shows far less (the recovery context 1,200 bytes of a description), and a
 * megabytes-long field would otherwise be held, and walked, by each of them. Comments are kept
 * whole: a write is known to have landed by its comment's exact text.
 */
export const MAX_TEXT_CHARS = 64 * 1024;

/** A free-text field as the views get it: cut to MAX_TEXT_CHARS (never inside a surrogate pair), marked with "…". */
function shownText(value: unknown): string | undefined {
  const whole = text(value);
  return whole === undefined ? undefined : cutText(whole, MAX_TEXT_CHARS);
}

function cutText(whole: string, maxChars: number): string {
  if (whole.length <= maxChars) return whole;
  const end = isHighSurrogate(whole.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${whole.slice(0, end)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function idText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((element): element is string => typeof element === 'string') : [];
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

/**
 * The version in `bd version --json` (`{build, version, schema_version}`, or `{schema_version,
 * data: {…}}` with BD_JSON_ENVELOPE=1) or `br version --json` (`{version, build, rust_version,
 * target, features}`); undefined when it is missing or does not look like a version.
 */
export function parseCliVersion(answer: unknown): string | undefined {
  const record = isRecord(answer) && isRecord(answer.data) ? answer.data : answer;
  const version = isRecord(record) ? record.version : undefined;
  return typeof version === 'string' && /^v?\d[\w.+-]{0,39}$/.test(version) ? version : undefined;
}
