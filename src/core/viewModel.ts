// The sidebar's view model: one refresh's data (beads snapshot, activity ledger, git status,
// outbox, the time) turned into the plain, bounded, serializable shape the webview renders.
// Every list is capped so that one state message stays small however large the project is, and
// every text is made one inert line (or a bounded block) here, once, for every surface.

import { lastNextStep, type CheckpointActivity } from './checkpoint';
import { compareFileNames } from './compare';
import { assigneeName, type Comment, type Issue, type IssueDetails, type IssueSummary, type LinkedIssue } from './model';
import { childrenOf, indexDetails, openBlockersOf, parentChain, readyItems, unblocksOf } from './graph';
import { oneLine, truncate } from './markdown';
import { nextFor, readyOrder, type LastClose } from './next';
import type { GitChange } from './porcelain';
import { formatAge, parseTimestamp } from './time';
import type {
  ActivityView,
  BlockerRef,
  Capped,
  CommitEntry,
  FileEntry,
  FileList,
  FocusedIssueView,
  FolderCount,
  IssueRef,
  NextView,
  ParkedWriteView,
  Part,
  ProjectInfo,
  ReadyItemView,
  SidebarModel,
  TrailEntry,
  TrailKind,
  UnblockRef,
  ViewState,
  SessionView,
} from '../shared/protocol';
import { folderOf } from '../shared/protocol';
import { COMMIT_HASH_CHARS, shortCommitHash } from './commitHash';

export interface SidebarInput {
  inProgress: Part<Issue[]>;
  ready: Part<Issue[]>;
  /** `show` output: the in-progress issues, the focused issue's ancestors and dependents, the top ready items. */
  details: Part<IssueDetails[]>;
  focusedId: string | undefined;
  /** The activity ledger; shown only when it belongs to the focused issue. */
  activity?: CheckpointActivity;
  /** Undefined outside a git repository. */
  uncommitted?: Part<GitChange[]>;
  pendingWrites?: number;
  /** The writes beads refused, parked in the outbox, in the order they were parked. */
  parkedWrites?: readonly ParkedWriteInput[];
  /** The last close the user has not dismissed: what it unblocked is offered first, until something is claimed. */
  lastClose?: LastClose;
  /** The agent sessions working in the folder (src/core/sessionRows.ts). */
  sessions?: SessionView[];
  now: number;
}

/** A write beads refused, as the outbox keeps it (src/services/outboxQueue.ts, FailedWrite). */
export interface ParkedWriteInput {
  key: string;
  issueId: string;
  kind: 'comment' | 'claim' | 'close';
  /** A comment's text or a close's reason. */
  words?: string;
  /** When beads refused it (epoch ms). */
  refusedAt: number;
  /** Beads' reason, as the outbox recorded it. */
  reason: string;
}

export interface Limits {
  ready: number;
  readyUnblocks: number;
  related: number;
  trail: number;
  files: number;
  uncommitted: number;
  parked: number;
}

export const DEFAULT_LIMITS: Limits = { ready: 50, readyUnblocks: 8, related: 50, trail: 12, files: 50, uncommitted: 100, parked: 20 };

const TITLE_CHARS = 300;
const DESCRIPTION_LINES = 3;
const DESCRIPTION_CHARS = 400;
const SUMMARY_CHARS = 200;
const COMMENT_CHARS = 2000;
const PATH_CHARS = 500;
const REASON_CHARS = 500;
/** Show's document gives the words whole (a typed checkpoint is rarely longer). */
const FULL_WORDS_CHARS = 100_000;

export function buildSidebarModel(input: SidebarInput, limits: Limits = DEFAULT_LIMITS): SidebarModel {
  const problems: string[] = [];
  const inProgress = input.inProgress.ok ? dedupe(input.inProgress.value) : [];
  const details = input.details.ok ? input.details.value : [];
  if (!input.details.ok) problems.push(`Issue details are unavailable: ${oneLine(input.details.error)}`);
  const known = indexDetails(details);

  const focusedListing = inProgress.find((issue) => issue.id === input.focusedId);
  const focusedDetails = input.focusedId ? known.get(input.focusedId) : undefined;
  const focused = focusedListing ?? focusedDetails;
  const ready = input.ready.ok ? dedupe(input.ready.value) : [];
  // The next one goes first in Ready: the list's tag and its order say the same as the offer.
  const pick = input.ready.ok ? nextFor({ ready, inProgress: inProgress.map((issue) => issue.id), lastClose: input.lastClose }) : undefined;
  const model: SidebarModel = {
    otherInProgress: cap(inProgress.filter((issue) => issue.id !== focused?.id), limits.related, issueRef),
    trail: focusedDetails ? trailOf(focusedDetails.comments, input.now, limits.trail) : { items: [], more: 0 },
    ready: input.ready.ok ? { ok: true, value: readyView(readyOrder(ready, pick?.issue), known, limits) } : { ok: false, error: oneLine(input.ready.error) },
    problems,
  };
  const next = pick ? nextView(pick, known, limits) : undefined;
  if (next) model.next = next;
  if (focused) model.focused = focusedView(focused, focusedDetails, known, input.now, limits);
  if (focused && input.activity?.issueId === focused.id) model.activity = activityView(input.activity, focusedDetails ? newestCommentAt(focusedDetails) : undefined, input.now, limits.files);
  if (input.uncommitted) {
    model.uncommitted = input.uncommitted.ok
      ? { ok: true, value: fileList(input.uncommitted.value.map(changeEntry).sort((a, b) => compareFileNames(a.path, b.path)), limits.uncommitted) }
      : { ok: false, error: oneLine(input.uncommitted.error) };
  }
  if (input.pendingWrites !== undefined) model.pendingWrites = input.pendingWrites;
  if (input.parkedWrites && input.parkedWrites.length > 0) {
    const titles = new Map<string, string>([...ready, ...inProgress, ...details].map((issue) => [issue.id, issue.title ?? '']));
    model.parkedWrites = parkedView(input.parkedWrites, titles, input.now, limits.parked);
  }
  if (input.sessions && input.sessions.length > 0) model.sessions = input.sessions;
  return model;
}

/** What one refresh produced, for `nextViewState`. */
export type RefreshOutcome =
  | { kind: 'not-beads'; folderName?: string }
  | { kind: 'loaded'; project: ProjectInfo; input: SidebarInput }
  /** The refresh failed as a whole (the in-progress listing, or the refresh itself). */
  | { kind: 'failed'; project?: ProjectInfo; message: string };

/**
 * The state after a refresh. A refresh whose in-progress listing fails keeps the last good view
 * and says why, rather than replacing what the user was reading with an empty page.
 */
export function nextViewState(previous: ViewState, outcome: RefreshOutcome, limits: Limits = DEFAULT_LIMITS): ViewState {
  switch (outcome.kind) {
    case 'not-beads':
      return outcome.folderName === undefined ? { kind: 'not-beads' } : { kind: 'not-beads', folderName: outcome.folderName };
    case 'loaded':
      if (!outcome.input.inProgress.ok) return failed(previous, outcome.input.inProgress.error, outcome.project);
      return { kind: 'project', project: outcome.project, model: buildSidebarModel(outcome.input, limits), refreshing: false };
    case 'failed':
      return failed(previous, outcome.message, outcome.project);
  }
}

/** The same state marked as refreshing (the webview shows a progress bar, nothing else changes). */
export function markRefreshing(state: ViewState): ViewState {
  return state.kind === 'project' ? { ...state, refreshing: true } : state;
}

function failed(previous: ViewState, rawMessage: string, project: ProjectInfo | undefined): ViewState {
  const message = oneLine(rawMessage) || 'The beads CLI failed without a message.';
  if (previous.kind === 'project' && (!project || project.name === previous.project.name)) {
    return { ...previous, project: project ?? previous.project, refreshError: message, refreshing: false };
  }
  return project ? { kind: 'error', message, project } : { kind: 'error', message };
}

function focusedView(issue: Issue, details: IssueDetails | undefined, known: Map<string, IssueDetails>, now: number, limits: Limits): FocusedIssueView {
  const updatedAt = parseTimestamp(issue.updatedAt);
  const view: FocusedIssueView = {
    issue: issueRef(issue),
    updatedAge: updatedAt === undefined ? 'time unknown' : formatAge(updatedAt, now),
    ancestors: [],
    ancestorsCut: false,
    children: [],
    openBlockers: [],
    unblocks: [],
  };
  const assignee = assigneeName(issue.assignee);
  if (assignee) view.assignee = text(assignee, TITLE_CHARS);
  const description = firstLines(issue.description ?? details?.description ?? '', DESCRIPTION_LINES, DESCRIPTION_CHARS);
  if (description) view.description = description;
  if (!details) return view;
  const nextStep = lastNextStep(details.comments);
  if (nextStep) view.nextStep = text(nextStep, SUMMARY_CHARS);
  const ancestors = ancestorsOf(details, known);
  // A dependency record may not carry the type (br's do not): the ancestor's own details do.
  view.ancestors = ancestors.chain.map((ancestor) => issueRef(known.get(ancestor.id) ?? ancestor)).reverse();
  view.ancestorsCut = ancestors.cut;
  view.children = childrenOf(details).slice(0, limits.related).map(issueRef);
  view.openBlockers = openBlockersOf(details).slice(0, limits.related).map(
    (blocker): BlockerRef => ({ ...issueRef(blocker), statusKnown: blocker.statusKnown }),
  );
  const dependents = details.dependents.map((dependent) => known.get(dependent.id)).filter((found) => found !== undefined);
  view.unblocks = unblocksOf(details, dependents).slice(0, limits.related).map((dependent): UnblockRef => {
    const ref: UnblockRef = issueRef(dependent);
    // Only an open issue becomes ready: one already in progress (or deferred) is not waiting for this close.
    if (dependent.wouldBecomeUnblocked === false || (dependent.wouldBecomeUnblocked === true && dependent.status === 'open')) {
      ref.wouldBecomeReady = dependent.wouldBecomeUnblocked;
    }
    return ref;
  });
  return view;
}

/**
 * Parent, grandparent, … as far as the loaded details reach, nearest first; `cut` when the
 * topmost one has a parent of its own that was not loaded. A repeat (a cycle) ends the chain.
 */
function ancestorsOf(details: IssueDetails, known: Map<string, IssueDetails>): { chain: LinkedIssue[]; cut: boolean } {
  const chain = parentChain(details, [...known.values()]);
  const top = chain.at(-1);
  return { chain, cut: top !== undefined && !known.has(top.id) };
}

function readyView(ready: readonly Issue[], known: Map<string, IssueDetails>, limits: Limits): Capped<ReadyItemView> {
  // In the caller's order (readyOrder): an epic has no row, it is finished through its children.
  const unique = dedupe(ready);
  const shown = unique.slice(0, limits.ready);
  // readyItems indexes the details it is given for every item: give it only the few that matter.
  const relevant: IssueDetails[] = [];
  for (const issue of shown) {
    const details = known.get(issue.id);
    if (!details) continue;
    relevant.push(details);
    for (const dependent of details.dependents) {
      const dependentDetails = known.get(dependent.id);
      if (dependentDetails) relevant.push(dependentDetails);
    }
  }
  const items = readyItems(shown, relevant).map((item): ReadyItemView => {
    const view: ReadyItemView = {
      issue: issueRef(item.issue),
      unblocks: item.unblocks.slice(0, limits.readyUnblocks).map(issueRef),
      contextKnown: known.has(item.issue.id),
    };
    if (item.parent) view.parent = issueRef(item.parent);
    return view;
  });
  return { items, more: unique.length - shown.length };
}

function nextView(pick: NonNullable<ReturnType<typeof nextFor<Issue>>>, known: Map<string, IssueDetails>, limits: Limits): NextView | undefined {
  const item = readyView([pick.issue], known, limits).items[0];
  if (!item) return undefined;
  const view: NextView = { item, reason: pick.reason };
  if (pick.afterClose) view.afterClose = issueRef(pick.afterClose.closed);
  return view;
}

function trailOf(comments: readonly Comment[], now: number, limit: number): Capped<TrailEntry> {
  const dated = comments.map((comment, index) => ({ comment, index, at: parseTimestamp(comment.createdAt) }));
  // Newest first; undated comments last, in their original order, so the result never depends on the input order's accidents.
  dated.sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity) || a.index - b.index);
  const items = dated.slice(0, limit).map(({ comment, at }) => trailEntry(comment, at, now));
  return { items, more: Math.max(0, comments.length - limit) };
}

const TRAIL_PREFIXES: readonly [RegExp, TrailKind][] = [
  [/^commit\b:?\s*/i, 'commit'],
  [/^auto-checkpoint\b(?:\s*\([^)\n]*\))?:?\s*/i, 'auto-checkpoint'],
  [/^checkpoint\b:?\s*/i, 'checkpoint'],
  [/^files modified\b:?\s*/i, 'files'],
];

/** The kind of a comment by the prefix the extension (and the command line) write. */
export function trailKind(commentText: string): { kind: TrailKind; rest: string } {
  const trimmed = commentText.trimStart();
  for (const [prefix, kind] of TRAIL_PREFIXES) {
    const match = prefix.exec(trimmed);
    if (match) return { kind, rest: trimmed.slice(match[0].length) };
  }
  return { kind: 'note', rest: trimmed };
}

function trailEntry(comment: Comment, at: number | undefined, now: number): TrailEntry {
  const { kind, rest } = trailKind(String(comment.text ?? ''));
  const firstLine = rest.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  return {
    id: String(comment.id),
    kind,
    summary: text(firstLine, SUMMARY_CHARS),
    text: block(String(comment.text ?? ''), COMMENT_CHARS),
    author: text(comment.author ?? '', TITLE_CHARS),
    age: at === undefined ? 'time unknown' : formatAge(at, now),
    at: text(comment.createdAt ?? '', 64),
  };
}

/** Any comment on the issue counts as a checkpoint (one written elsewhere resets the counters too). */
export function newestCommentAt(issue: Pick<IssueDetails, 'comments'>): number | undefined {
  const times = issue.comments.map((comment) => parseTimestamp(comment.createdAt)).filter((at): at is number => at !== undefined);
  return times.length > 0 ? Math.max(...times) : undefined;
}

function activityView(activity: CheckpointActivity, newestComment: number | undefined, now: number, limit: number): ActivityView {
  // The ledger's order (most edited first, then most recent), as the checkpoint text lists them.
  const files = [...new Set(activity.files)].map((path): FileEntry => ({ path: text(path, PATH_CHARS) }));
  const commits = activity.commits.map((commit): CommitEntry => ({ hash: text(shortCommitHash(commit.hash), COMMIT_HASH_CHARS), subject: text(commit.subject, SUMMARY_CHARS) }));
  const view: ActivityView = { files: fileList(files, limit), commits: cap(commits, limit), edits: count(activity.edits ?? 0) };
  // The ledger's last checkpoint, as the status bar says it; the start of its recording is not one.
  const checkpointedAt = activity.recordingSince === undefined ? activity.lastCheckpointAt : undefined;
  const lastCheckpoint = Math.max(checkpointedAt ?? -Infinity, newestComment ?? -Infinity);
  if (Number.isFinite(lastCheckpoint)) {
    view.lastCheckpointAge = formatAge(lastCheckpoint, now);
    view.lastCheckpointAt = lastCheckpoint;
  }
  return view;
}

/** A comment's kind in words, as the refused-writes list names it. */
const COMMENT_WORDS: Readonly<Record<TrailKind, string>> = {
  checkpoint: 'Checkpoint',
  'auto-checkpoint': 'Automatic checkpoint',
  commit: 'Commit comment',
  files: 'Files modified comment',
  note: 'Comment',
};

/** The refused writes, newest first, each made plain text: the words and beads' reason are data. */
export function parkedView(parked: readonly ParkedWriteInput[], titles: ReadonlyMap<string, string>, now: number, limit: number): Capped<ParkedWriteView> {
  const newestFirst = [...parked].reverse().sort((a, b) => finiteOr(b.refusedAt) - finiteOr(a.refusedAt));
  return cap(newestFirst, limit, (write): ParkedWriteView => {
    const words = typeof write.words === 'string' ? write.words : undefined;
    const view: ParkedWriteView = {
      // As the outbox keeps it: Retry, Show and Discard name the write by it (the view never renders it).
      key: write.key,
      issueId: text(write.issueId, TITLE_CHARS),
      what: write.kind === 'claim' ? 'Claim' : write.kind === 'close' ? 'Close' : COMMENT_WORDS[trailKind(words ?? '').kind],
      refusedAge: Number.isFinite(write.refusedAt) ? formatAge(write.refusedAt, now) : 'time unknown',
      refusedAt: Number.isFinite(write.refusedAt) ? new Date(write.refusedAt).toISOString() : '',
      reason: text(typeof write.reason === 'string' && write.reason.trim() !== '' ? write.reason : 'beads gave no reason', REASON_CHARS),
    };
    const title = titles.get(write.issueId);
    if (title) view.issueTitle = text(title, TITLE_CHARS);
    if (words !== undefined && words.trim() !== '') view.words = block(words, COMMENT_CHARS);
    return view;
  });
}

/**
 * "Show Writes Beads Refused": each refused write in full, as plain text for a read-only editor —
 * the issue, what it was, when and why beads refused it, and its words, so nothing typed is lost
 * even when it is discarded.
 */
export function refusedWritesText(parked: readonly ParkedWriteInput[], titles: ReadonlyMap<string, string>, now: number): string {
  const views = parkedView(parked, titles, now, parked.length).items;
  if (views.length === 0) return 'Beads refused no write: nothing is waiting for you.\n';
  const them = views.length === 1 ? 'it' : 'them';
  const heading = [
    `Beads refused ${views.length === 1 ? 'this write' : `these ${views.length} writes`}.`,
    `Retry sends ${them} again, Discard forgets ${them}: in the Beads view, or Beads: Retry Pending Writes.`,
  ].join('\n');
  const entries = views.map((view, index) => {
    const full = parked.find((write) => write.key === view.key);
    const words = full?.words !== undefined && full.words.trim() !== '' ? block(full.words, FULL_WORDS_CHARS) : undefined;
    return [
      `${view.what} on ${view.issueId}${view.issueTitle ? ` (${view.issueTitle})` : ''}`,
      `  refused ${view.refusedAge}${view.refusedAt ? `, at ${view.refusedAt}` : ''}`,
      `  beads said: ${view.reason}`,
      ...(words === undefined ? [] : ['  words:', ...words.split('\n').map((line) => `    ${line}`)]),
    ].join('\n') + (index < views.length - 1 ? '\n' : '');
  });
  return `${heading}\n\n${entries.join('\n')}\n`;
}

/** A damaged time sorts as the oldest. */
function finiteOr(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

const CHANGE_WORDS: Readonly<Record<string, string>> = {
  M: 'modified',
  T: 'type changed',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
};
const CONFLICTS: ReadonlySet<string> = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

/** A porcelain v1 XY code in words, the staged side first. */
export function describeChange(status: string): string {
  if (status === '??') return 'untracked';
  if (status === '!!') return 'ignored';
  if (CONFLICTS.has(status)) return 'conflict';
  const staged = CHANGE_WORDS[status[0] ?? ''];
  const unstaged = CHANGE_WORDS[status[1] ?? ''];
  if (staged && unstaged && staged !== unstaged) return `${staged} (staged), ${unstaged}`;
  if (staged) return unstaged ? staged : `${staged} (staged)`;
  return unstaged ?? 'changed';
}

function changeEntry(change: GitChange): FileEntry {
  const entry: FileEntry = { path: text(change.path, PATH_CHARS), change: describeChange(change.status) };
  if (change.from) entry.from = text(change.from, PATH_CHARS);
  return entry;
}

function issueRef(issue: IssueSummary): IssueRef {
  return {
    id: text(issue.id, TITLE_CHARS),
    title: text(issue.title ?? '', TITLE_CHARS),
    status: text(issue.status ?? '', 40) || 'unknown',
    priority: Number.isFinite(issue.priority) ? issue.priority : Number.NaN,
    issueType: text(issue.issueType ?? '', 40) || 'unknown',
  };
}

function fileList(files: readonly FileEntry[], limit: number): FileList {
  return { ...cap(files, limit), folders: folderCounts(files.map((file) => file.path)) };
}

/** Files per folder (the top two levels of each path), biggest folder first, then by name. */
export function folderCounts(paths: readonly string[]): FolderCount[] {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const folder = folderOf(path);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts]
    .map(([folder, count]) => ({ folder, count }))
    .sort((a, b) => b.count - a.count || compareFileNames(a.folder, b.folder));
}

function cap<T, U = T>(items: readonly T[], limit: number, map?: (item: T) => U): Capped<U> {
  const shown = items.slice(0, limit);
  return { items: map ? shown.map(map) : (shown as unknown as U[]), more: Math.max(0, items.length - limit) };
}

function dedupe<T extends { id: string }>(issues: readonly T[]): T[] {
  const seen = new Set<string>();
  const unique: T[] = [];
  for (const issue of issues) {
    if (seen.has(issue.id)) continue;
    seen.add(issue.id);
    unique.push(issue);
  }
  return unique;
}

function count(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function text(value: string, maxChars: number): string {
  return truncate(oneLine(String(value)), maxChars);
}

/** The first non-empty lines of a text, each made inert, cut to a bound. */
function firstLines(value: string, lines: number, maxChars: number): string {
  const kept = String(value).split(/\r?\n/).map(oneLine).filter((line) => line.trim() !== '').slice(0, lines);
  return truncate(kept.join('\n'), maxChars);
}

/** Multi-line text kept as lines (each made inert), cut to a bound. */
function block(value: string, maxChars: number): string {
  const lines = value.split(/\r?\n/).map(oneLine);
  return truncate(lines.join('\n').replace(/\n{3,}/g, '\n\n').trim(), maxChars);
}
