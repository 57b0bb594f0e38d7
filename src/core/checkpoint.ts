// The words of checkpoints: the summary offered when the user checkpoints, the comments the
// extension writes (`Checkpoint: …`, `Auto-checkpoint (…): …`, `Files modified: …`), and the
// reading back of comments and terminal commands that tell a checkpoint was made elsewhere.
// Pure: time comes in as a number, and nothing here knows where the activity came from (the
// ledger in VS Code, git on the command line).

import type { Comment } from './model';
import { oneLine, truncate } from './markdown';
import { fnv1a } from './hash';
import { compareText } from './compare';
import { parseTimestamp } from './time';
import { MAX_PENDING_COMMITS } from './ledger';
import { shortCommitHash } from './commitHash';

export interface CommitRef {
  hash: string;
  subject: string;
}

/** Work on one issue since its last checkpoint. */
export interface CheckpointActivity {
  issueId: string;
  /** Paths relative to the workspace folder: the most edited first, then the most recently touched. */
  files: readonly string[];
  /** Edits of each of `files`, index for index, when known (the ledger counts them; git does not). */
  fileEdits?: readonly number[];
  commits: readonly CommitRef[];
  /** Saves and file events; undefined when unknown (the command line only sees git). */
  edits?: number;
  /** Epoch ms of the last checkpoint (or, see recordingSince, of the start of the window); undefined when none is known. */
  lastCheckpointAt?: number;
  /**
   * Set when no checkpoint is known yet and the window runs from when the ledger started
   * recording: lastCheckpointAt then holds that start, which no surface may show as a checkpoint.
   */
  recordingSince?: number;
  /** Set when no checkpoint is known and the window runs from the claim (the command line knows it): a long span then says "since claimed …". */
  sinceClaim?: boolean;
  /** Set when no checkpoint is known and the window runs from the issue's last change (or its creation): a long span says "since the issue last changed …". */
  sinceIssueChange?: boolean;
  /** Files changed in the folder that this session's own events do not show (another session's, or by hand): named apart, never counted as its work. */
  alsoChanged?: readonly string[];
}

/** Why an automatic checkpoint is written; named in the comment so a reader knows what it was. */
export type AutoCheckpointTrigger = 'before-recovery' | 'before-close' | 'issue-switch' | 'shutdown' | 'pre-compaction' | 'agent-hook';

const TRIGGER_WORDS: Record<AutoCheckpointTrigger, string> = {
  'before-recovery': 'before recovery',
  'before-close': 'before close',
  'issue-switch': 'issue switch',
  shutdown: 'window closed',
  'pre-compaction': 'pre-compaction',
  'agent-hook': 'agent hook',
};

const CHECKPOINT_PREFIX = 'Checkpoint: ';
const AUTO_CHECKPOINT_PREFIX = 'Auto-checkpoint';
const FILES_MODIFIED_PREFIX = 'Files modified: ';

const FILES_IN_AUTO_CHECKPOINT = 20;
const FILES_IN_CLOSE_COMMENT = 200;
// Every commit waiting in the ledger: the checkpoint's comment is the only place they are written.
const COMMITS_IN_CHECKPOINT = MAX_PENDING_COMMITS;
const COMMITS_PREFIX = '- Commits: ';
const SUBJECT_CHARS = 72;
const PATH_CHARS = 160;
const SUMMARY_CHARS = 500;
const THREAD_LINES = 10;
// The newest request is kept whole (threadFacts' REQUEST_CHARS) with its label; other facts are shorter.
const THREAD_LINE_CHARS = 1300;

export function hasNewActivity(activity: CheckpointActivity): boolean {
  return activity.files.length > 0 || activity.commits.length > 0 || (activity.edits ?? 0) > 0;
}

/**
 * One line for the checkpoint input box, as a person would start it: "2 commits: add bracket
 * tokenizer; fix escapes. 14 edits to 3 files in 35 min, latest src/parser.ts". Commits by
 * subject; the files are not listed here, because the comment's `- Files:` line lists them
 * (most recent first) and a list should be said once. With nothing recorded it starts a progress
 * note from the last checkpoint's "Next:", which is usually what was being done.
 */
export function summarizeActivity(activity: CheckpointActivity, now: number, lastNext?: string): string {
  const parts: string[] = [];
  // Counted, not named: the checkpoint's `- Commits:` line names them (checkpointComment), once.
  if (activity.commits.length > 0) parts.push(plural(activity.commits.length, 'commit'));
  const files = uniqueInOrder(activity.files);
  const edits = activity.edits !== undefined && activity.edits > 0 ? `${plural(activity.edits, 'edit')} to ` : parts.length > 0 ? 'changed ' : 'Changed ';
  const span = elapsedPhrase(activity, now);
  if (files.length > 0) {
    const lead = files.length > 1 ? `, ${leadingFileWord(activity)} ${cleanPath(files[0] as string)}` : ` (${cleanPath(files[0] as string)})`;
    parts.push(`${edits}${plural(files.length, 'file')}${span ? ` ${span}` : ''}${lead}`);
  } else if (activity.edits !== undefined && activity.edits > 0) {
    parts.push(`${plural(activity.edits, 'edit')}${span ? ` ${span}` : ''}`);
  }
  if (parts.length === 0) return truncate(`Progress: …${lastNext ? `; Next: ${oneLine(lastNext)}` : ''}`, SUMMARY_CHARS);
  return truncate(parts.join(' and '), SUMMARY_CHARS);
}

/**
 * How the summary names its first file: "most edits in" when it was edited more than some other
 * file, else "latest" (equal counts, or none known, leave recency to order the list).
 */
function leadingFileWord(activity: CheckpointActivity): string {
  const counts = activity.fileEdits?.slice(0, activity.files.length) ?? [];
  const first = counts[0];
  return first !== undefined && counts.some((count) => count < first) ? 'most edits in' : 'latest';
}

/**
 * What the newest comment that says "Next: …" gave as the next step (a checkpoint's usual ending),
 * or undefined. The sidebar shows it under the focused issue; the checkpoint input starts from it.
 */
export function lastNextStep(comments: readonly Comment[]): string | undefined {
  const dated = comments.map((comment, index) => ({ comment, index, at: parseTimestamp(comment.createdAt) ?? -Infinity }));
  dated.sort((a, b) => b.at - a.at || b.index - a.index);
  for (const { comment } of dated) {
    const match = /\bnext:\s*([^\n]+)/i.exec(String(comment.text ?? ''));
    const step = match?.[1]?.trim();
    if (step) return truncate(oneLine(step), SUMMARY_CHARS);
  }
  return undefined;
}

/**
 * `Checkpoint: <text>`; a prefix the user typed is not doubled, and the text stays on one line.
 * When the text does not name every file changed since the last checkpoint, a `- Files:` line
 * follows: the ledger forgets its files at each checkpoint, and the closing file list is
 * rebuilt from these lines. The commits linked since the last checkpoint follow in a
 * `- Commits:` line: this comment is where they are written (see `commitsLine`).
 */
export function checkpointComment(text: string, files: readonly string[] = [], commits: readonly CommitRef[] = []): string {
  const body = oneLine(text).replace(/^checkpoint:\s*/i, '');
  const list = uniqueInOrder(files).map(cleanPath);
  const unnamed = list.some((file) => !body.includes(file));
  const lines = [`${CHECKPOINT_PREFIX}${body}`];
  if (unnamed) lines.push(`- Files: ${listWithMore(list, FILES_IN_AUTO_CHECKPOINT)}`);
  if (commits.length > 0) lines.push(commitsLine(commits));
  return lines.join('\n');
}

/**
 * `- Commits: a1b2c3d feat: parser; d4e5f6a fix: escapes`: every commit linked since the last
 * checkpoint, by short hash and subject. Commits are not written one comment each (that changed
 * beads' tracked files after every commit); `commitHashesFromComments` reads them back.
 */
function commitsLine(commits: readonly CommitRef[]): string {
  return `${COMMITS_PREFIX}${listWithMore(commits.map(formatCommit), COMMITS_IN_CHECKPOINT, '; ')}`;
}

/**
 * ```
 * Auto-checkpoint (pre-compaction): 14 edits, 3 files, 2 commits in 35 min
 * - Request: make the parser accept nested keys          (the session's thread, when a hook read it)
 * - Failing: test_parser.py::test_nested_keys — KeyError: 'a' (…)
 * - Next: …
 * - Files: src/a.ts, src/b.ts, src/c.ts
 * - Commits: abc1234 feat: parser; def5678 fix: escapes
 * ```
 * The first line alone says what happened, because recovery trails show comments cut short.
 */
export function autoCheckpointComment(activity: CheckpointActivity, trigger: AutoCheckpointTrigger, now: number, threadLines: readonly string[] = []): string {
  const files = uniqueInOrder(activity.files);
  const counts: string[] = [];
  if (activity.edits !== undefined && activity.edits > 0) counts.push(plural(activity.edits, 'edit'));
  counts.push(plural(files.length, 'file'), plural(activity.commits.length, 'commit'));
  const span = elapsedPhrase(activity, now);
  const lines = [`${AUTO_CHECKPOINT_PREFIX} (${TRIGGER_WORDS[trigger]}): ${counts.join(', ')}${span ? ` ${span}` : ''}`];
  // The session's thread (request, activity, failing, open question, files, next), one bounded line each.
  lines.push(...threadLines.slice(0, THREAD_LINES).map((line) => truncate(oneLine(line), THREAD_LINE_CHARS)));
  if (files.length > 0) lines.push(`- Files: ${listWithMore(files.map(cleanPath), FILES_IN_AUTO_CHECKPOINT)}`);
  const alsoChanged = uniqueInOrder(activity.alsoChanged ?? []);
  if (alsoChanged.length > 0) lines.push(`${ALSO_CHANGED_PREFIX}${listWithMore(alsoChanged.map(cleanPath), FILES_IN_AUTO_CHECKPOINT)}`);
  if (activity.commits.length > 0) lines.push(commitsLine(activity.commits));
  return lines.join('\n');
}

/** The line of files a checkpoint names without claiming them: the session's events do not show who changed them. */
export const ALSO_CHANGED_PREFIX = '- Also changed here, by another session or by hand: ';

/**
 * `Files modified: a, b, c`, or undefined when there is nothing to list. `unnamed` files are known
 * only by their number (an earlier checkpoint's "+5 more", a ledger that kept the newest files):
 * they are counted with the files beyond the list's cap, so the comment never drops any silently.
 */
export function filesModifiedComment(files: readonly string[], unnamed = 0): string | undefined {
  const list = sortedUnique(files);
  if (list.length === 0) return undefined;
  const listed = list.slice(0, FILES_IN_CLOSE_COMMENT).map(cleanPath).join(', ');
  const more = Math.max(0, list.length - FILES_IN_CLOSE_COMMENT) + (Number.isInteger(unnamed) && unnamed > 0 ? unnamed : 0);
  return `${FILES_MODIFIED_PREFIX}${listed}${more > 0 ? `, and ${plural(more, 'more file')}` : ''}`;
}

/**
 * Names one state of activity. An automatic checkpoint is keyed by it, so the same state is never
 * written twice, even when the process died after queueing it and before the ledger noted it.
 */
export function activityFingerprint(activity: CheckpointActivity): string {
  const canonical = [
    activity.issueId,
    sortedUnique(activity.files).join('\n'),
    activity.commits.map((commit) => commit.hash).join(','),
    String(activity.edits ?? ''),
    String(activity.lastCheckpointAt ?? ''),
  ].join('\u0000');
  return `${fnv1a(canonical)}-${activity.files.length}.${activity.commits.length}.${activity.edits ?? 0}`;
}

/** A short stable name for a text: writes with the same content share an idempotency key. */
export function textFingerprint(text: string): string {
  return `${fnv1a(text)}-${text.length}`;
}

/** Comments that mark progress: checkpoints (manual or automatic), commit links, closing file lists. */
export function isCheckpointLike(text: string): boolean {
  return /^\s*(?:auto-)?checkpoint\b|^\s*commit:\s|^\s*files modified:/i.test(text);
}

/**
 * A comment time further ahead of our clock than this shows the CLI's clock (or another
 * machine's) is ahead: without a measured offset, such a time is not taken as the start of the
 * work since.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 60_000;
/** How far a CLI's stamp may fall outside the span of the call that made it before skew counts as evident (whole-second stamps, a slow start). */
const STAMP_SLACK_MS = 2_000;

/**
 * The CLI's clock minus ours, from a comment we wrote: the CLI stamped it `stampedAt` (its
 * clock) during a call that ran from `sentAt` to `landedAt` (ours). 0 when the stamp falls within
 * the call, give or take STAMP_SLACK_MS: no skew is evident. Otherwise the distance to the
 * middle of the call.
 */
export function cliClockOffset(stampedAt: number, sentAt: number, landedAt: number): number {
  if (stampedAt >= sentAt - STAMP_SLACK_MS && stampedAt <= landedAt + STAMP_SLACK_MS) return 0;
  return Math.round(stampedAt - (sentAt + landedAt) / 2);
}

/**
 * A time the CLI stamped, on our clock. With the CLI's offset known (cliClockOffset, measured on
 * our own writes) it is moved by it; without one, a time further ahead of `now` than
 * CLOCK_SKEW_TOLERANCE_MS is skew evident and unusable (undefined): taken as the start of a
 * window, it would make all later work "nothing new".
 */
export function onOurClock(stamp: string | undefined, now: number, cliOffsetMs: number | undefined): number | undefined {
  const at = parseTimestamp(stamp);
  if (at === undefined) return undefined;
  if (cliOffsetMs !== undefined) return at - cliOffsetMs;
  return at > now + CLOCK_SKEW_TOLERANCE_MS ? undefined : at;
}

/**
 * Whether the issue already holds this checkpoint, for a write that goes to beads directly (no
 * outbox to remember its key): a comment whose first line (the `Checkpoint: <words>` line) is the
 * same, within `withinMs` of now for words someone gave; any time for the rest (the same text).
 */
export function alreadyOnIssue(comments: readonly Comment[], comment: string, now: number, withinMs: number | undefined): boolean {
  const firstLine = (text: string) => text.split('\n', 1)[0]!.trim();
  return comments.some((existing) => {
    if (withinMs === undefined) return existing.text.trim() === comment.trim();
    if (firstLine(existing.text) !== firstLine(comment)) return false;
    const at = onOurClock(existing.createdAt, now, undefined);
    return at !== undefined && now - at <= withinMs;
  });
}

/** Epoch ms (our clock, see onOurClock) of the newest checkpoint-like comment, if any. */
export function latestCheckpointAt(comments: readonly Comment[], now: number, cliOffsetMs?: number): number | undefined {
  let latest: number | undefined;
  for (const comment of comments) {
    if (!isCheckpointLike(comment.text)) continue;
    const at = onOurClock(comment.createdAt, now, cliOffsetMs);
    if (at === undefined) continue;
    if (latest === undefined || at > latest) latest = at;
  }
  return latest;
}

/** What is known about an issue's work, from stable facts every process reads alike. */
export interface WindowFacts {
  /** The ledger's last landed checkpoint (our clock). */
  ledgerCheckpointAt?: number;
  /** When the ledger started recording this issue (VS Code's focus on it). */
  ledgerStartedAt?: number;
  comments: readonly Comment[];
  /** The issue's claim (bd `started_at`), its last update, its creation: RFC3339 from the CLI. */
  claimedAt?: string;
  updatedAt?: string;
  createdAt?: string;
  /** The CLI's clock minus ours, when measured (cliClockOffset): the CLI's times are read through it. */
  cliOffsetMs?: number;
}

/**
 * Where the work of a checkpoint starts: the last checkpoint (the ledger's or a checkpoint
 * comment's, whichever is later), else the claim of the issue, else when the ledger started on it,
 * else the issue's last update or creation. Never `now`, and never the same instant give or take
 * per process: concurrent processes must agree on it, since the idempotency key is built from it.
 * Undefined only when nothing at all is known.
 */
export function checkpointWindowStart(facts: WindowFacts, now: number): number | undefined {
  const offset = facts.cliOffsetMs;
  const checkpoints = [facts.ledgerCheckpointAt, latestCheckpointAt(facts.comments, now, offset)].filter((at): at is number => at !== undefined);
  if (checkpoints.length > 0) return Math.max(...checkpoints);
  for (const candidate of [onOurClock(facts.claimedAt, now, offset), facts.ledgerStartedAt, onOurClock(facts.updatedAt, now, offset), onOurClock(facts.createdAt, now, offset)]) {
    if (candidate !== undefined) return candidate;
  }
  return undefined;
}

/**
 * The newest comment written after `after` (our clock, like every time here: see onOurClock) that
 * is not one of ours: someone checkpointed in a terminal or another tool. Our own comments are
 * recognised by the caller (it knows what it sent), since a user may well type "Checkpoint: …" by hand.
 */
export function newestForeignComment(
  comments: readonly Comment[],
  after: number | undefined,
  isOwn: (text: string) => boolean,
  now: number,
  cliOffsetMs?: number,
): { at: number; comment: Comment } | undefined {
  let newest: { at: number; comment: Comment } | undefined;
  for (const comment of comments) {
    const at = onOurClock(comment.createdAt, now, cliOffsetMs);
    if (at === undefined || (after !== undefined && at <= after) || isOwn(comment.text)) continue;
    if (!newest || at > newest.at) newest = { at, comment };
  }
  return newest;
}

/**
 * Files named by the file lines of earlier comments (`- Files: …`, `Files modified: …`): what the
 * issue touched before its last checkpoint, which the ledger no longer holds.
 */
export function filesFromComments(comments: readonly Comment[]): string[] {
  const files: string[] = [];
  for (const comment of comments) {
    for (const line of comment.text.split(/\r?\n/)) {
      const match = /^\s*(?:-\s*)?files(?: modified)?:\s*(.+)$/i.exec(line);
      if (!match?.[1]) continue;
      for (const name of match[1].split(', ')) {
        const trimmed = name.trim();
        if (trimmed && !MORE_FILES.test(trimmed)) files.push(trimmed);
      }
    }
  }
  return sortedUnique(files);
}

/** "+5 more" (a checkpoint's Files line) or "and 5 more files" (a close's file list): files named only by their number. */
const MORE_FILES = /^(?:and )?\(?\+?(\d+) more(?: files?)?\)?$/;

/** How many files the file lines of `comments` counted without naming them (each line's "+N more", summed). */
export function unnamedFilesInComments(comments: readonly Comment[]): number {
  let unnamed = 0;
  for (const comment of comments) {
    for (const line of comment.text.split(/\r?\n/)) {
      const match = /^\s*(?:-\s*)?files(?: modified)?:\s*(.+)$/i.exec(line);
      const last = match?.[1]?.split(', ').at(-1)?.trim();
      const count = last ? MORE_FILES.exec(last)?.[1] : undefined;
      if (count) unnamed += Number(count);
    }
  }
  return unnamed;
}

/**
 * Hashes of the commits an issue's comments name, oldest comment first: the `- Commits:` lines of
 * checkpoints, and the one-per-commit `commit: <hash> <subject>` comments of earlier versions.
 */
export function commitHashesFromComments(comments: readonly Comment[]): string[] {
  const hashes: string[] = [];
  for (const comment of comments) {
    const single = /^\s*commit:\s+([0-9a-f]{7,40})\b/i.exec(comment.text)?.[1];
    if (single) hashes.push(single.toLowerCase());
    for (const line of comment.text.split(/\r?\n/)) {
      const list = /^\s*-\s*commits:\s*(.+)$/i.exec(line)?.[1];
      if (!list) continue;
      // Each entry starts with its short hash; entries are separated by "; ".
      for (const match of list.matchAll(/(?:^|;\s)([0-9a-f]{7,40})\b/gi)) hashes.push((match[1] as string).toLowerCase());
    }
  }
  return [...new Set(hashes)];
}

function formatCommit(commit: CommitRef): string {
  const subject = truncate(oneLine(commit.subject), SUBJECT_CHARS);
  return subject ? `${shortCommitHash(commit.hash)} ${subject}` : shortCommitHash(commit.hash);
}

function cleanPath(path: string): string {
  return truncate(oneLine(path), PATH_CHARS);
}

function listWithMore(items: readonly string[], limit: number, separator = ', '): string {
  const shown = items.slice(0, limit).join(separator);
  return items.length > limit ? `${shown}${separator}+${items.length - limit} more` : shown;
}

/**
 * How long the window ran: "in under a minute", "in 35 min", "in 2 h 5 min"; a window of a day or
 * more says when it started instead ("since claimed 24 weeks ago"), which a reader can place.
 */
function elapsedPhrase(activity: Pick<CheckpointActivity, 'lastCheckpointAt' | 'recordingSince' | 'sinceClaim' | 'sinceIssueChange'>, now: number): string | undefined {
  const since = activity.lastCheckpointAt;
  if (since === undefined || !Number.isFinite(since)) return undefined;
  const minutes = Math.max(0, Math.round((now - since) / 60_000));
  if (minutes < 1) return 'in under a minute';
  if (minutes < 60) return `in ${minutes} min`;
  if (minutes < 24 * 60) {
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return rest === 0 ? `in ${hours} h` : `in ${hours} h ${rest} min`;
  }
  const start = activity.sinceClaim ? 'claimed' : activity.sinceIssueChange ? 'the issue last changed' : activity.recordingSince !== undefined ? 'recording started' : 'the last checkpoint';
  return `since ${start} ${agoInWords(minutes)}`;
}

/** A long span in words: "3 days ago", "24 weeks ago", "2 years ago". */
function agoInWords(minutes: number): string {
  const days = Math.floor(minutes / (24 * 60));
  if (days < 14) return `${plural(days, 'day')} ago`;
  if (days < 365) return `${plural(Math.floor(days / 7), 'week')} ago`;
  return `${plural(Math.floor(days / 365), 'year')} ago`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function uniqueInOrder(items: readonly string[]): string[] {
  return [...new Set(items.filter((item) => item.trim() !== ''))];
}

function sortedUnique(items: readonly string[]): string[] {
  return [...new Set(items.filter((item) => item.trim() !== ''))].sort(compareText);
}
