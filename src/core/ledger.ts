// The activity ledger: per in-progress issue, what happened since its last checkpoint — files
// touched, commits made, edits counted — plus the memory that keeps commit linking exactly-once.
// Pure: every transition takes the time as a number and returns a new state. The state is shared
// by every window on a folder (src/services/ledgerStore.ts), so it also knows how to merge two
// copies of itself without losing either side's updates (`mergeLedgerStates`).

import type { LedgerSummary } from './recovery';
import type { ReflogCursor } from './reflog';
import { isAgentConfigFile } from './agents';
import { entryOf, idRecord, withEntry } from './idRecord';
import { isBeadsFile } from './beadsFiles';
import { compareFileNames, compareText } from './compare';
import { oneLine, truncate } from './markdown';

export interface LedgerCommit {
  hash: string;
  subject: string;
  /** Epoch ms when the commit was recorded. */
  at: number;
}

export interface Ledger {
  issueId: string;
  /** Paths relative to the workspace folder touched since the last checkpoint, sorted; the most recently touched MAX_FILES. */
  files: string[];
  /** Files touched since the last checkpoint that the cap left out of `files`. */
  moreFiles: number;
  /**
   * When each file of `files` was last touched (epoch ms), index for index: the cap keeps the
   * newest, and edits of one file within EDIT_COALESCE_MS count once. Arrays rather than a map
   * keep the hot path to two array copies.
   */
  touched: number[];
  /**
   * How many edits each file of `files` had since the last checkpoint, index for index (repeats
   * within EDIT_COALESCE_MS count once, as in `edits`): checkpoint text names the files worked on
   * most first. A ledger written before the counts existed loads with 1 per file.
   */
  editCounts: number[];
  /** Commits linked since the last checkpoint, oldest first: the next checkpoint names them (`- Commits:`). */
  commits: LedgerCommit[];
  /** File changes and saves since the last checkpoint (repeats of one file within EDIT_COALESCE_MS count once). */
  edits: number;
  /** When this ledger was first written. */
  startedAt: number;
  lastCheckpointAt?: number;
  lastActivityAt?: number;
  /** The first change after the last checkpoint: "minutes with changes" count from here. */
  changesSince?: number;
}

/** A subject already linked to an issue: a rebased or amended commit with the same subject is not linked again. */
export interface LinkedSubject {
  issueId: string;
  subject: string;
}

export interface LedgerState {
  version: 1;
  /** The issue work is attributed to: the user's pick while it is in progress, else the most recently updated in-progress issue. */
  focusedId?: string;
  /** True when the user picked `focusedId` (Beads: Focus Issue…) rather than it being derived. */
  focusPinned?: boolean;
  /** When the focus last changed: between windows, the later choice wins. */
  focusedAt?: number;
  /** By issue id; without a prototype (core/idRecord.ts). */
  ledgers: Record<string, Ledger>;
  /** Full hashes of commits already handled (linked, or recognised as copies of linked work), oldest first, the newest MAX_LINKED_COMMITS. */
  linkedCommits: string[];
  linkedSubjects: LinkedSubject[];
  /** Where the reflog reader of this repository stopped. */
  reflog?: ReflogCursor;
}

export const MAX_FILES = 200;
/** Commits kept waiting for the next checkpoint; a checkpoint comment names them all. */
export const MAX_PENDING_COMMITS = 100;
const MAX_LEDGERS = 50;
export const MAX_LINKED_COMMITS = 500;
const MAX_LINKED_SUBJECTS = 200;
/** Repeated events for one file within this window are one edit: a save is also seen by the file watcher, and one write can raise several events. */
export const EDIT_COALESCE_MS = 1_000;
const SUBJECT_CHARS = 200;

export function emptyLedgerState(): LedgerState {
  return { version: 1, ledgers: idRecord(), linkedCommits: [], linkedSubjects: [] };
}

function emptyLedger(issueId: string, now: number): Ledger {
  return { issueId, files: [], moreFiles: 0, touched: [], editCounts: [], commits: [], edits: 0, startedAt: now };
}

/**
 * A file under `path` was created, changed, deleted or saved. This is the hot path of a burst of
 * file events: a repeat of a file within EDIT_COALESCE_MS only moves `lastActivityAt`.
 */
export function recordFileChange(state: LedgerState, issueId: string, path: string, now: number, options: { judged?: boolean } = {}): LedgerState {
  const ledger = entryOf(state.ledgers, issueId) ?? emptyLedger(issueId, now);
  const index = lowerBound(ledger.files, path);
  const listed = ledger.files[index] === path;
  const previous = listed ? ledger.touched[index] : undefined;
  let next: Ledger;
  // `judged`: a change already known to be one (an editor save whose text changed) counts, however soon after the last.
  const repeat = previous !== undefined && now - previous < EDIT_COALESCE_MS && options.judged !== true;
  if (repeat || (!listed && holdsListedFiles(ledger.files, index, path))) {
    // A repeat, or the event of a folder whose files are listed already (watchers report new folders too).
    next = { ...ledger, lastActivityAt: Math.max(ledger.lastActivityAt ?? now, now) };
  } else {
    const files = listed ? ledger.files : [...ledger.files.slice(0, index), path, ...ledger.files.slice(index)];
    const touched = listed ? ledger.touched.slice() : [...ledger.touched.slice(0, index), now, ...ledger.touched.slice(index)];
    // Judged changes may be recorded out of order (a save counted at once, the burst before it a moment later).
    touched[index] = Math.max(previous ?? now, now);
    const editCounts = listed ? ledger.editCounts.slice() : [...ledger.editCounts.slice(0, index), 0, ...ledger.editCounts.slice(index)];
    editCounts[index] = (editCounts[index] ?? 0) + 1;
    next = { ...ledger, files, touched, editCounts, edits: ledger.edits + 1, lastActivityAt: now, changesSince: ledger.changesSince ?? now };
    if (!listed) next = dropFolders(next, path);
    if (next.files.length > MAX_FILES) next = capFiles(next);
  }
  return { ...state, ledgers: withEntry(state.ledgers, issueId, next) };
}

/** True when `sorted` lists a path inside the folder `path` (which would sit at `index`). */
function holdsListedFiles(sorted: readonly string[], index: number, path: string): boolean {
  const candidate = sorted[index];
  return candidate !== undefined && candidate.startsWith(`${path}/`);
}

/** A path listed earlier that turns out to be a folder of `path` (its create event came first) leaves the list. */
function dropFolders(ledger: Ledger, path: string): Ledger {
  let result = ledger;
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    const folder = path.slice(0, slash);
    const index = lowerBound(result.files, folder);
    if (result.files[index] !== folder) continue;
    result = {
      ...result,
      files: result.files.filter((_, position) => position !== index),
      touched: result.touched.filter((_, position) => position !== index),
      editCounts: result.editCounts.filter((_, position) => position !== index),
    };
  }
  return result;
}

/**
 * A commit was linked to the issue. It waits here, durably, for the next checkpoint, whose comment
 * names it: one beads write per checkpoint rather than one per commit, which would leave beads'
 * tracked files changed right after every commit.
 */
export function recordCommit(state: LedgerState, issueId: string, commit: LedgerCommit, now: number): LedgerState {
  const ledger = entryOf(state.ledgers, issueId) ?? emptyLedger(issueId, now);
  const subject = cleanSubject(commit.subject);
  const commits = ledger.commits.some((known) => known.hash === commit.hash)
    ? ledger.commits
    : [...ledger.commits, { ...commit, subject }].slice(-MAX_PENDING_COMMITS);
  const next: Ledger = { ...ledger, commits, lastActivityAt: now };
  return {
    ...rememberLinked(state, commit.hash),
    ledgers: withEntry(state.ledgers, issueId, next),
    linkedSubjects: appendCapped(state.linkedSubjects, { issueId, subject }, MAX_LINKED_SUBJECTS, sameSubject),
  };
}

/** Remembers a commit as handled without writing anything for it (a rebased copy of linked work). */
export function rememberLinked(state: LedgerState, hash: string): LedgerState {
  if (state.linkedCommits.includes(hash)) return state;
  return { ...state, linkedCommits: [...state.linkedCommits, hash].slice(-MAX_LINKED_COMMITS) };
}

/**
 * Moves the reflog cursor forward; a cursor behind the stored one (another window read further)
 * is ignored. One as far as the stored one replaces it: it may know the file's new inode.
 */
export function advanceReflog(state: LedgerState, cursor: ReflogCursor): LedgerState {
  if (state.reflog && compareCursors(cursor, state.reflog) < 0) return state;
  return { ...state, reflog: cursor };
}

export function isLinked(state: LedgerState, hash: string): boolean {
  return state.linkedCommits.includes(hash);
}

export function isSubjectLinked(state: LedgerState, issueId: string, subject: string): boolean {
  const wanted = { issueId, subject: cleanSubject(subject) };
  return state.linkedSubjects.some((known) => sameSubject(known, wanted));
}

/**
 * A checkpoint taken at `at` landed: the counters of the issue start again from there. It may land
 * well after it was taken (queued while beads was busy or down), so what was recorded after `at`
 * is not in it and stays for the next one: files touched and commits recorded since, each file
 * counted as one edit (the count cannot be split by time).
 */
export function markCheckpoint(state: LedgerState, issueId: string, at: number): LedgerState {
  const ledger = entryOf(state.ledgers, issueId) ?? emptyLedger(issueId, at);
  const reset: Ledger = {
    issueId,
    files: [],
    moreFiles: 0,
    touched: [],
    editCounts: [],
    commits: [],
    edits: 0,
    startedAt: ledger.startedAt,
    lastCheckpointAt: Math.max(at, ledger.lastCheckpointAt ?? at),
    lastActivityAt: ledger.lastActivityAt,
  };
  const next = absorbLater(reset, ledger);
  const counted: Ledger = { ...next, editCounts: next.files.map(() => 1), edits: next.files.length };
  return capLedgers({ ...state, ledgers: withEntry(state.ledgers, issueId, counted) });
}

/**
 * A checkpoint older than this ledger (made in an earlier session, on another machine) became
 * known: the ledger learns when it was, so the status bar, the sidebar and the recovery context
 * all say "last checkpoint <then>", and keeps its counters (what it recorded came after it).
 * An issue with no ledger yet (nothing recorded since it was focused, as on a first open) gets an
 * empty one started at `now`, when given: without it the status bar would say "no checkpoint yet"
 * beside a view that lists them. Returns the same object when the ledger knew as much already.
 */
export function noteEarlierCheckpoint(state: LedgerState, issueId: string, at: number, now?: number): LedgerState {
  const ledger = entryOf(state.ledgers, issueId) ?? (now === undefined ? undefined : emptyLedger(issueId, Math.max(now, at)));
  if (!ledger || (ledger.lastCheckpointAt !== undefined && ledger.lastCheckpointAt >= at)) return state;
  return capLedgers({ ...state, ledgers: withEntry<Ledger>(state.ledgers, issueId, { ...ledger, lastCheckpointAt: at }) });
}

/** The user (pinned) or the extension (derived) chose the issue work is attributed to. */
export function setFocus(state: LedgerState, issueId: string | undefined, now: number, pinned = true): LedgerState {
  return { ...state, focusedId: issueId, focusPinned: issueId !== undefined && pinned, focusedAt: now };
}

/**
 * Brings the focus in line with the in-progress issues (most recently updated first): a pinned
 * focus stays while its issue is in progress; otherwise the most recently updated one is focused.
 * Returns the same object when nothing changes, so callers can skip a write.
 */
export function reconcileFocus(state: LedgerState, inProgressIds: readonly string[], now: number): LedgerState {
  const keepPin = state.focusPinned === true && state.focusedId !== undefined && inProgressIds.includes(state.focusedId);
  const focusedId = keepPin ? state.focusedId : inProgressIds[0];
  if (focusedId === state.focusedId && (keepPin || !state.focusPinned)) return state;
  return setFocus(state, focusedId, now, keepPin);
}

/** The ledger of `issueId`, if any (whatever the id: ids are data). */
export function ledgerOf(state: LedgerState, issueId: string): Ledger | undefined {
  return entryOf(state.ledgers, issueId);
}

export function focusedLedger(state: LedgerState): Ledger | undefined {
  return state.focusedId === undefined ? undefined : entryOf(state.ledgers, state.focusedId);
}

export function toLedgerSummary(ledger: Ledger): LedgerSummary {
  return {
    issueId: ledger.issueId,
    files: ledger.files,
    touched: ledger.touched,
    fileEdits: ledger.editCounts,
    moreFiles: ledger.moreFiles,
    commits: ledger.commits.map(({ hash, subject }) => ({ hash, subject })),
    edits: ledger.edits,
    lastCheckpointAt: ledger.lastCheckpointAt,
  };
}

/** One line of a commit subject: newlines, controls and runs of spaces collapsed, length capped. */
export function cleanSubject(subject: string): string {
  return truncate(oneLine(subject), SUBJECT_CHARS);
}

/**
 * Two copies of the state (this window's and the file's, written by another window or the
 * command line) as one, losing neither side's updates. Within one checkpoint period, file sets
 * are united and counters take the larger value (every window watches the same disk, so both
 * counted the same events); a later checkpoint wins over what was recorded before it. Commutative
 * and idempotent, so windows may merge in any order, any number of times.
 */
export function mergeLedgerStates(a: LedgerState, b: LedgerState): LedgerState {
  const ledgers = idRecord(Object.entries(a.ledgers));
  for (const [id, ledger] of Object.entries(b.ledgers)) {
    const mine = entryOf(ledgers, id);
    ledgers[id] = mine ? mergeLedgers(mine, ledger) : ledger;
  }
  const focus = (b.focusedAt ?? -Infinity) > (a.focusedAt ?? -Infinity) ? b : a;
  return capLedgers({
    version: 1,
    focusedId: focus.focusedId,
    focusPinned: focus.focusPinned,
    focusedAt: focus.focusedAt,
    ledgers,
    linkedCommits: unite(a.linkedCommits, b.linkedCommits, (x, y) => x === y).slice(-MAX_LINKED_COMMITS),
    linkedSubjects: unite(a.linkedSubjects, b.linkedSubjects, sameSubject).slice(-MAX_LINKED_SUBJECTS),
    reflog: laterCursor(a.reflog, b.reflog),
  });
}

function mergeLedgers(a: Ledger, b: Ledger): Ledger {
  const epochA = a.lastCheckpointAt ?? -Infinity;
  const epochB = b.lastCheckpointAt ?? -Infinity;
  if (epochA !== epochB) {
    const [newer, older] = epochA > epochB ? [a, b] : [b, a];
    return absorbLater(newer, older);
  }
  return capFiles({
    issueId: a.issueId,
    ...uniteFiles(a, b, -Infinity),
    moreFiles: Math.max(a.moreFiles, b.moreFiles),
    commits: uniteCommits(a.commits, b.commits),
    edits: Math.max(a.edits, b.edits),
    startedAt: Math.min(a.startedAt, b.startedAt),
    lastCheckpointAt: a.lastCheckpointAt,
    lastActivityAt: maxDefined(a.lastActivityAt, b.lastActivityAt),
    changesSince: minDefined(a.changesSince, b.changesSince),
  });
}

/**
 * `newer` saw a checkpoint that `older` did not: keep what `older` recorded after that checkpoint.
 * Its edit count cannot be split by time, so `newer`'s stands (it watched the same events).
 */
function absorbLater(newer: Ledger, older: Ledger): Ledger {
  const epoch = newer.lastCheckpointAt ?? -Infinity;
  const { files, touched, editCounts } = uniteFiles(newer, older, epoch);
  const laterCommits = older.commits.filter((commit) => commit.at > epoch);
  return capFiles({
    ...newer,
    files,
    touched,
    editCounts,
    commits: uniteCommits(newer.commits, laterCommits),
    startedAt: Math.min(newer.startedAt, older.startedAt),
    lastActivityAt: maxDefined(newer.lastActivityAt, older.lastActivityAt),
    changesSince: newer.changesSince ?? (touched.length > 0 ? Math.min(...touched) : undefined),
  });
}

/**
 * The files of both ledgers (of `other`, only those touched after `after`), each with its latest
 * time and the larger edit count (both windows watched the same disk), sorted.
 */
function uniteFiles(base: Ledger, other: Ledger, after: number): { files: string[]; touched: number[]; editCounts: number[] } {
  const times = new Map<string, number>();
  const counts = new Map<string, number>();
  base.files.forEach((path, index) => {
    times.set(path, base.touched[index] ?? 0);
    counts.set(path, base.editCounts[index] ?? 1);
  });
  other.files.forEach((path, index) => {
    const time = other.touched[index] ?? 0;
    if (time <= after) return;
    times.set(path, Math.max(time, times.get(path) ?? time));
    counts.set(path, Math.max(other.editCounts[index] ?? 1, counts.get(path) ?? 0));
  });
  const files = [...times.keys()].sort(compareText);
  return { files, touched: files.map((path) => times.get(path) ?? 0), editCounts: files.map((path) => counts.get(path) ?? 1) };
}

/**
 * The ledger's files as checkpoint text lists them: the most edited first, then the most
 * recently touched, then by path, so every window and the command line say the same.
 */
export function filesByEdits(ledger: Pick<Ledger, 'files' | 'touched' | 'editCounts'>): string[] {
  return ledger.files
    .map((file, index) => ({ file, edits: ledger.editCounts[index] ?? 1, at: ledger.touched[index] ?? 0 }))
    .sort((a, b) => b.edits - a.edits || b.at - a.at || compareFileNames(a.file, b.file))
    .map(({ file }) => file);
}

/**
 * Keeps the MAX_FILES most recently touched files; the rest are counted in `moreFiles`. Ties go
 * by path, so every window drops the same files. One file over the cap (a new file in a full
 * ledger, the usual case) costs one pass, not a sort.
 */
function capFiles(ledger: Ledger): Ledger {
  const excess = ledger.files.length - MAX_FILES;
  if (excess <= 0) return ledger;
  const { files, touched } = ledger;
  const older = (x: number, y: number) => (touched[x] ?? 0) - (touched[y] ?? 0) || compareText(files[y] as string, files[x] as string);
  let dropped: Set<number>;
  if (excess === 1) {
    let oldest = 0;
    for (let index = 1; index < files.length; index += 1) if (older(index, oldest) < 0) oldest = index;
    dropped = new Set([oldest]);
  } else {
    dropped = new Set(files.map((_, index) => index).sort(older).slice(0, excess));
  }
  return {
    ...ledger,
    files: files.filter((_, index) => !dropped.has(index)),
    touched: touched.filter((_, index) => !dropped.has(index)),
    editCounts: ledger.editCounts.filter((_, index) => !dropped.has(index)),
    moreFiles: ledger.moreFiles + excess,
  };
}

/** Keeps the MAX_LEDGERS most recently active ledgers, and always the focused one. */
function capLedgers(state: LedgerState): LedgerState {
  const ids = Object.keys(state.ledgers);
  if (ids.length <= MAX_LEDGERS) return state;
  const activity = (id: string) => {
    const ledger = entryOf(state.ledgers, id);
    return Math.max(ledger?.lastActivityAt ?? 0, ledger?.lastCheckpointAt ?? 0, ledger?.startedAt ?? 0);
  };
  const keep = new Set(ids.sort((x, y) => activity(y) - activity(x)).slice(0, MAX_LEDGERS));
  if (state.focusedId !== undefined) keep.add(state.focusedId);
  const ledgers = idRecord<Ledger>();
  for (const id of keep) {
    const ledger = entryOf(state.ledgers, id);
    if (ledger) ledgers[id] = ledger;
  }
  return { ...state, ledgers };
}

/** The cursor that has read further: after more rewrites, then newer entries, then more bytes. */
function laterCursor(a: ReflogCursor | undefined, b: ReflogCursor | undefined): ReflogCursor | undefined {
  if (!a || !b) return a ?? b;
  return compareCursors(b, a) > 0 ? b : a;
}

function compareCursors(a: ReflogCursor, b: ReflogCursor): number {
  return a.rewrites - b.rewrites || a.lastTimestamp - b.lastTimestamp || a.offset - b.offset;
}

function uniteCommits(a: readonly LedgerCommit[], b: readonly LedgerCommit[]): LedgerCommit[] {
  return unite(a, b, (x, y) => x.hash === y.hash)
    .sort((x, y) => x.at - y.at)
    .slice(-MAX_PENDING_COMMITS);
}

/** `a` in its order, then what only `b` has, in `b`'s order. */
function unite<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): T[] {
  const result = [...a];
  for (const item of b) if (!result.some((known) => same(known, item))) result.push(item);
  return result;
}

function appendCapped<T>(list: readonly T[], item: T, cap: number, same: (x: T, y: T) => boolean): T[] {
  return [...list.filter((known) => !same(known, item)), item].slice(-cap);
}

function sameSubject(x: LinkedSubject, y: LinkedSubject): boolean {
  return x.issueId === y.issueId && x.subject === y.subject;
}

/** The first index whose value is not below `value`. */
function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareText(sorted[middle] as string, value) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function maxDefined(x: number | undefined, y: number | undefined): number | undefined {
  if (x === undefined) return y;
  return y === undefined ? x : Math.max(x, y);
}

function minDefined(x: number | undefined, y: number | undefined): number | undefined {
  if (x === undefined) return y;
  return y === undefined ? x : Math.min(x, y);
}

/**
 * The state as read from disk: anything that is not the expected shape (a hand-edited or
 * half-written file, a future version) is dropped field by field rather than trusted.
 */
export function normalizeLedgerState(value: unknown): LedgerState {
  const state = emptyLedgerState();
  if (!isRecord(value) || value.version !== 1) return state;
  if (typeof value.focusedId === 'string') state.focusedId = value.focusedId;
  if (value.focusPinned === true) state.focusPinned = true;
  if (isTime(value.focusedAt)) state.focusedAt = value.focusedAt;
  if (isRecord(value.ledgers)) {
    for (const [id, raw] of Object.entries(value.ledgers)) {
      const ledger = normalizeLedger(id, raw);
      if (ledger) state.ledgers[id] = ledger;
    }
  }
  if (Array.isArray(value.linkedCommits)) {
    state.linkedCommits = value.linkedCommits.filter((hash): hash is string => typeof hash === 'string').slice(-MAX_LINKED_COMMITS);
  }
  if (Array.isArray(value.linkedSubjects)) {
    state.linkedSubjects = value.linkedSubjects
      .filter((item): item is LinkedSubject => isRecord(item) && typeof item.issueId === 'string' && typeof item.subject === 'string')
      .map(({ issueId, subject }) => ({ issueId, subject }))
      .slice(-MAX_LINKED_SUBJECTS);
  }
  const cursor = value.reflog;
  if (isRecord(cursor) && isCount(cursor.offset) && isCount(cursor.inode) && typeof cursor.head === 'string' && isCount(cursor.lastTimestamp)) {
    const rewrites = isCount(cursor.rewrites) ? cursor.rewrites : 0;
    state.reflog = { offset: cursor.offset, inode: cursor.inode, head: cursor.head, lastTimestamp: cursor.lastTimestamp, rewrites };
  }
  return state;
}

function normalizeLedger(id: string, raw: unknown): Ledger | undefined {
  if (!isRecord(raw) || !isTime(raw.startedAt)) return undefined;
  const times = new Map<string, number>();
  const counts = new Map<string, number>();
  // Ledgers written before per-file counts existed have no `editCounts`: each file counts once.
  const rawCounts: unknown[] = Array.isArray(raw.editCounts) ? raw.editCounts : [];
  if (Array.isArray(raw.files) && Array.isArray(raw.touched)) {
    raw.files.forEach((path: unknown, index: number) => {
      const time = (raw.touched as unknown[])[index];
      if (typeof path !== 'string' || path === '' || !isTime(time)) return;
      times.set(path, Math.max(time, times.get(path) ?? time));
      const count = rawCounts[index];
      counts.set(path, Math.max(isCount(count) && count > 0 ? count : 1, counts.get(path) ?? 0));
    });
  }
  const files = [...times.keys()].sort(compareText);
  const commits = Array.isArray(raw.commits)
    ? raw.commits
        .filter((c): c is LedgerCommit => isRecord(c) && typeof c.hash === 'string' && typeof c.subject === 'string' && isTime(c.at))
        .map(({ hash, subject, at }) => ({ hash, subject: cleanSubject(subject), at }))
    : [];
  return capFiles({
    issueId: id,
    files,
    moreFiles: isCount(raw.moreFiles) ? raw.moreFiles : 0,
    touched: files.map((path) => times.get(path) ?? 0),
    editCounts: files.map((path) => counts.get(path) ?? 1),
    commits: commits.slice(-MAX_PENDING_COMMITS),
    edits: isCount(raw.edits) ? raw.edits : 0,
    startedAt: raw.startedAt,
    lastCheckpointAt: isTime(raw.lastCheckpointAt) ? raw.lastCheckpointAt : undefined,
    lastActivityAt: isTime(raw.lastActivityAt) ? raw.lastActivityAt : undefined,
    changesSince: isTime(raw.changesSince) ? raw.changesSince : undefined,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

// Which paths are work. The ledger records files a person or an agent changed, not the
// repository's machinery, the tracker's own files (in and beside .beads: core/beadsFiles.ts) or
// installed dependencies.
const ALWAYS_IGNORED = /(?:^|\/)(?:\.git|node_modules)(?:\/|$)/;

/**
 * A test for paths relative to the workspace folder (with `/` separators): false for `.git/`,
 * beads' own files (`.beads/`, `.beads.gate.lock`), `node_modules/`, an agent's own configuration
 * (its hook and MCP files, from its profile: configuring an agent is not work on an issue), and anything matching one of `excludes`
 * (the `files.watcherExclude` globs, which VS Code does not apply to every watcher).
 */
export function trackedPathFilter(excludes: readonly string[]): (relativePath: string) => boolean {
  const patterns = excludes.map(globToRegExp);
  return (relativePath) =>
    relativePath !== '' && !ALWAYS_IGNORED.test(relativePath) && !isBeadsFile(relativePath) && !isAgentConfigFile(relativePath) && !patterns.some((pattern) => pattern.test(relativePath));
}

/** A VS Code glob (`**`, `*`, `?`, `{a,b}`, `[abc]`) as an anchored regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let index = 0;
  let inBraces = false;
  const pattern = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  while (index < pattern.length) {
    const char = pattern[index] as string;
    if (pattern.startsWith('**/', index)) {
      source += '(?:[^/]*/)*';
      index += 3;
    } else if (pattern.startsWith('/**', index) && index + 3 === pattern.length) {
      source += '(?:/.*)?';
      index += 3;
    } else if (pattern.startsWith('**', index)) {
      source += '.*';
      index += 2;
    } else if (char === '*') {
      source += '[^/]*';
      index += 1;
    } else if (char === '?') {
      source += '[^/]';
      index += 1;
    } else if (char === '{' && !inBraces) {
      source += '(?:';
      inBraces = true;
      index += 1;
    } else if (char === '}' && inBraces) {
      source += ')';
      inBraces = false;
      index += 1;
    } else if (char === ',' && inBraces) {
      source += '|';
      index += 1;
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 1);
      if (close === -1) {
        source += '\\[';
        index += 1;
      } else {
        const body = pattern.slice(index + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = close + 1;
      }
    } else {
      source += char.replace(/[.+^${}()|\\]/g, '\\$&');
      index += 1;
    }
  }
  if (inBraces) source += ')';
  return new RegExp(`^${source}$`);
}
