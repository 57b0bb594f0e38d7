// The recovery context (ARCHITECTURE §5, seed V1): what an agent that lost its memory needs to
// pick its work up again, as markdown within a byte budget. A pure function of its input: the
// same input gives the same bytes, whatever order unordered data arrives in, so every surface
// (clipboard, chat, tools, command line, hooks) prints the same text.

import { fitToBudget, type DropStep, type Dropped, type Kept } from './budget';
import {
  compareIds,
  indexDetails,
  isStatusKnown,
  openBlockersOf,
  parentOf,
  readyItems,
  unblocksOf,
  type OpenBlocker,
  type ReadyItem,
  type Unblocked,
} from './graph';
import { inlineCode, inlineText, oneLine } from './markdown';
import type { Comment, Dialect, Issue, IssueDetails, IssueSummary, LinkedIssue } from './model';
import type { GitChange } from './porcelain';
import { formatAge, parseTimestamp } from './time';

/** One query's outcome: a failed query empties only its own section of the context. */
export type Section<T> = { ok: true; value: T } | { ok: false; error: string };

/** Activity recorded for one issue since its last checkpoint. Commits oldest first. */
export interface LedgerSummary {
  issueId: string;
  files: string[];
  /** Files touched beyond `files`, when the ledger caps its list. */
  moreFiles?: number;
  commits: { hash: string; subject: string }[];
  edits: number;
  lastCheckpointAt?: number;
}

export interface RecoveryInput {
  /** Epoch milliseconds. */
  now: number;
  /** Upper bound of the markdown in UTF-8 bytes. */
  budget: number;
  /** null when the folder is not a beads project. */
  project: { cli: Dialect; readOnly: boolean } | null;
  /** The user's focus; when it is not in progress, the most recently updated in-progress issue. */
  focusedId?: string;
  /** All in-progress issues (most recently updated first, though the order is re-derived). */
  inProgress: Section<Issue[]>;
  /** `show` output for the focused issue, its dependents and the top ready items (any subset). */
  details: Section<IssueDetails[]>;
  /** The ready queue in the CLI's order. */
  ready: Section<Issue[]>;
  /** Files and commits since the focused issue's last checkpoint, when activity is tracked. */
  ledger?: LedgerSummary;
  uncommitted: Section<GitChange[]>;
}

export type RecoveryState = 'resume' | 'several' | 'none' | 'not-beads';

export interface BoundedMarkdown {
  markdown: string;
  /** UTF-8 length of `markdown`; never more than the budget. */
  bytes: number;
  /** What the budget removed, in words ("description", "4 trail entries"). */
  dropped: string[];
}

export interface RecoveryResult extends BoundedMarkdown {
  state: RecoveryState;
  focusedId?: string;
}

export interface ContinueInput {
  closed: IssueSummary;
  /** Issues that closing it left without an open blocker. */
  unblocked: IssueSummary[];
  ready: ReadyItem[];
  cli: Dialect;
  /** Bytes; DEFAULT_BUDGET_BYTES when absent. */
  budget?: number;
}

export const DEFAULT_BUDGET_BYTES = 2048;
export const NOT_BEADS_LINE = 'Not a beads project: no .beads directory found here.';

/**
 * The order in which the budget removes content, least important first. Each step lowers one
 * part a unit at a time (oldest trail entry first, last list entry first) before the next
 * begins. The Resuming header and its status line are never dropped.
 */
export const RECOVERY_DROP_ORDER: readonly DropStep[] = [
  { part: 'description', downTo: 0 },
  { part: 'others', downTo: 0 },
  { part: 'trail', downTo: 1 },
  { part: 'ready', downTo: 3 },
  { part: 'uncommitted', downTo: 5 },
  { part: 'files', downTo: 5 },
  { part: 'commits', downTo: 2 },
  { part: 'commands', downTo: 0 },
  { part: 'rules', downTo: 0 },
  { part: 'ready', downTo: 1 },
  { part: 'uncommitted', downTo: 0 },
  { part: 'files', downTo: 0 },
  { part: 'commits', downTo: 0 },
  { part: 'unblocks', downTo: 0 },
  { part: 'hint', downTo: 0 },
  { part: 'trail', downTo: 0 },
  { part: 'parent', downTo: 0 },
  { part: 'blockers', downTo: 0 },
  { part: 'readOnly', downTo: 0 },
  { part: 'ready', downTo: 0 },
];

const CONTINUE_DROP_ORDER: readonly DropStep[] = [
  { part: 'ready', downTo: 3 },
  { part: 'unblocked', downTo: 1 },
  { part: 'ready', downTo: 1 },
  { part: 'hint', downTo: 0 },
  { part: 'unblocked', downTo: 0 },
  { part: 'ready', downTo: 0 },
];

/** How each part is named in the trim notice and in `dropped`: a fixed word, or a counted noun. */
const PART_NAMES: Record<string, string | [singular: string, plural: string]> = {
  description: 'description',
  others: 'other in-progress list',
  trail: ['trail entry', 'trail entries'],
  ready: ['ready item', 'ready items'],
  uncommitted: ['uncommitted entry', 'uncommitted entries'],
  files: ['touched file', 'touched files'],
  commits: ['commit', 'commits'],
  commands: 'essential commands',
  rules: 'core rules',
  unblocks: 'unblocks',
  unblocked: ['unblocked issue', 'unblocked issues'],
  hint: 'next-step hint',
  parent: 'parent',
  blockers: 'open blockers',
  readOnly: 'read-only note',
};

// Caps applied before the budget: they bound the work and keep one section from crowding out the rest.
const TRAIL_ENTRIES = 5;
const COMMENT_CHARS = 200;
const UNCOMMITTED_ENTRIES = 15;
const READY_ENTRIES = 5;
const OTHERS_NAMED = 5;
const LINKS_NAMED = 5;
const READY_LINKS_NAMED = 3;
const LEDGER_FILES = 10;
const LEDGER_COMMITS = 5;
const HEADER_TITLE_CHARS = 120;
const TITLE_CHARS = 60;
const LINK_TITLE_CHARS = 50;
const DESCRIPTION_CHARS = 300;
const ERROR_CHARS = 160;
const PATH_CHARS = 120;
const ID_CHARS = 60;
const WORD_CHARS = 30;
const UNKNOWN_TITLE = '(unknown)';

export function buildRecoveryContext(input: RecoveryInput): RecoveryResult {
  const budget = sanitizeBudget(input.budget);
  if (!input.project) {
    return { ...fitLines([NOT_BEADS_LINE], budget), state: 'not-beads' };
  }
  const project = input.project;
  const inProgress = input.inProgress.ok ? byMostRecentlyUpdated(input.inProgress.value) : [];
  const focused = inProgress.find((issue) => issue.id === input.focusedId) ?? inProgress[0];
  const common = commonPart(project.cli, project.readOnly, focused?.id);
  if (!focused) {
    const plan = noneState(input, common);
    return { ...fitPlan(plan, budget), state: 'none' };
  }
  const plan = resumeState(input, common, focused, inProgress);
  return { ...fitPlan(plan, budget), state: inProgress.length > 1 ? 'several' : 'resume', focusedId: focused.id };
}

/** What to tell an agent that just closed an issue: what that unblocked, and the next ready work. */
export function buildContinuePrompt(input: ContinueInput): BoundedMarkdown {
  const budget = sanitizeBudget(input.budget ?? DEFAULT_BUDGET_BYTES);
  const ready = uniqueReady(input.ready);
  const readyList = readyListLines(ready);
  const unblocked = uniqueById(input.unblocked);
  const unblockedNames = unblocked.slice(0, LINKS_NAMED).map((issue) => issueName(issue, LINK_TITLE_CHARS));
  const closedLine = `## Closed: ${issueName(input.closed, HEADER_TITLE_CHARS)}`;
  const hint =
    ready.length > 0
      ? `Claim the next one with ${inlineCode(`${input.cli} update <id> --claim`, 80)} and checkpoint with comments as you go.`
      : 'Nothing is ready: summarize what was accomplished and ask the user what is next.';
  const full: Kept = { ready: readyList.entries.length, unblocked: unblockedNames.length, hint: 1 };
  const render = (kept: Kept): string => {
    const lines = [closedLine];
    if (unblocked.length === 0) lines.push('Closing it unblocked nothing.');
    else lines.push(`**Unblocked:** ${withMore(unblockedNames.slice(0, kept.unblocked), unblocked.length)}`);
    lines.push('', '## Next Ready Work', ...readyList.render(kept.ready ?? 0));
    if (kept.hint) lines.push('', hint);
    return lines.join('\n');
  };
  return fitPlan({ full, steps: CONTINUE_DROP_ORDER, render }, budget);
}

// ---------------------------------------------------------------------------------------------
// States. Each formats every line once, up front; `render` only assembles the lines the budget
// keeps, since the fitter calls it once per dropped unit.

interface Plan {
  full: Kept;
  steps: readonly DropStep[];
  render(kept: Kept): string;
}

interface Common {
  full: Record<string, number>;
  render(kept: Kept): string[];
}

function commonPart(cli: Dialect, readOnly: boolean, focusedId: string | undefined): Common {
  const commands = essentialCommands(cli, focusedId);
  const readOnlyLine = `**Read-only here:** this was read from ${inlineCode('.beads/issues.jsonl', 40)}, which may lag behind the store; run writes with ${inlineCode(cli, 4)} where it is installed.`;
  return {
    full: { readOnly: readOnly ? 1 : 0, rules: 1, commands: 1 },
    render: (kept) => {
      const lines = ['# Beads Workflow Context'];
      if (kept.readOnly) lines.push('', readOnlyLine);
      if (kept.rules) lines.push('', '## Core Rules', ...CORE_RULES);
      if (kept.commands) lines.push('', '## Essential Commands', ...commands);
      return lines;
    },
  };
}

function resumeState(input: RecoveryInput, common: Common, focused: Issue, inProgress: Issue[]): Plan {
  const detailsById = input.details.ok ? indexDetails(input.details.value) : new Map<string, IssueDetails>();
  const details = detailsById.get(focused.id);
  const detailsError = !input.details.ok ? input.details.error : details ? undefined : `no details for ${focused.id}`;
  const issue: Issue = details ?? focused;
  const cli = input.project?.cli ?? 'bd';

  const header = [
    `## Resuming: ${issueName(issue, HEADER_TITLE_CHARS)}`,
    `**Status:** ${word(issue.status)} | **Type:** ${word(issue.issueType)} | **Priority:** ${priorityLabel(issue.priority)}`,
    ...(detailsError === undefined ? [] : [`**Dependencies:** ${unavailable(detailsError)}`]),
  ];
  const parent = details ? parentOf(details) : undefined;
  const blockers = details ? openBlockersOf(details) : [];
  const unblocks = details && input.details.ok ? unblocksOf(details, input.details.value) : [];
  const others = inProgress.filter((other) => other.id !== focused.id);
  const description = oneLine(issue.description ?? '');
  const optional = {
    parent: parent ? `**Parent:** ${linkName(parent)}` : undefined,
    blockers: blockers.length > 0 ? `**Blocked by (open):** ${withMore(blockers.slice(0, LINKS_NAMED).map(blockerName), blockers.length)}` : undefined,
    unblocks: unblocks.length > 0 ? `**Unblocks:** ${withMore(unblocks.slice(0, LINKS_NAMED).map(unblockedName), unblocks.length)}` : undefined,
    others: others.length > 0 ? `**Also in progress:** ${withMore(others.slice(0, OTHERS_NAMED).map((other) => issueName(other, LINK_TITLE_CHARS)), others.length)}` : undefined,
    description: description ? `**Description:** ${inlineText(description, DESCRIPTION_CHARS)}` : undefined,
  };

  const trail = detailsError === undefined ? trailPart(chronological(details?.comments), input.now, cli, focused.id) : undefined;
  const ledger = input.ledger && input.ledger.issueId === focused.id ? ledgerPart(input.ledger, input.now) : undefined;
  const allChanges = input.uncommitted.ok ? sortedChanges(input.uncommitted.value) : [];
  const changes = allChanges.slice(0, UNCOMMITTED_ENTRIES).map(changeLine);

  const full: Kept = {
    ...common.full,
    ...Object.fromEntries(Object.entries(optional).map(([part, line]) => [part, line ? 1 : 0])),
    trail: trail?.entries.length ?? 0,
    files: ledger?.files.length ?? 0,
    commits: ledger?.commits.length ?? 0,
    uncommitted: changes.length,
  };

  const render = (kept: Kept): string => {
    const lines = common.render(kept);
    lines.push('', ...header);
    for (const part of ['parent', 'blockers', 'unblocks', 'others', 'description'] as const) {
      const line = optional[part];
      if (line && kept[part]) lines.push(line);
    }
    lines.push('', '### Checkpoint Trail', ...(trail ? trail.render(kept.trail ?? 0) : [unavailable(detailsError ?? '')]));
    if (ledger) lines.push('', ...ledger.render(kept.files ?? 0, kept.commits ?? 0));
    lines.push('', '### Uncommitted Changes');
    if (!input.uncommitted.ok) lines.push(unavailable(input.uncommitted.error));
    else if (allChanges.length === 0) lines.push('- none: the working tree is clean');
    else lines.push(...changes.slice(0, kept.uncommitted), ...moreLine(allChanges.length - (kept.uncommitted ?? 0)));
    return lines.join('\n');
  };
  return { full, steps: RECOVERY_DROP_ORDER, render };
}

function noneState(input: RecoveryInput, common: Common): Plan {
  const cli = input.project?.cli ?? 'bd';
  const queue = input.ready.ok ? uniqueById(input.ready.value) : [];
  // Only the listed items need their parent and unblocks; the rest are counted.
  const listed = readyItems(queue.slice(0, READY_ENTRIES), input.details.ok ? input.details.value : []);
  const readyList = readyListLines(listed, queue.length);
  const hint = `Claim one with ${inlineCode(`${cli} update <id> --claim`, 80)}, then checkpoint with comments as you go.`;
  const full: Kept = { ...common.full, ready: readyList.entries.length, hint: queue.length > 0 ? 1 : 0 };
  const render = (kept: Kept): string => {
    const lines = common.render(kept);
    if (!input.inProgress.ok) lines.push('', `**In progress:** ${unavailable(input.inProgress.error)}`);
    lines.push('', '## Next Ready Work');
    if (!input.ready.ok) lines.push(unavailable(input.ready.error));
    else {
      lines.push(...readyList.render(kept.ready ?? 0));
      if (!input.details.ok && queue.length > 0) lines.push(`Parents and unblocks ${unavailable(input.details.error)}`);
    }
    if (kept.hint) lines.push('', hint);
    return lines.join('\n');
  };
  return { full, steps: RECOVERY_DROP_ORDER, render };
}

// ---------------------------------------------------------------------------------------------
// Fixed text

const CORE_RULES = [
  '- Use beads for ALL task tracking; no TodoWrite, TaskCreate or markdown task lists.',
  '- Create an issue BEFORE writing code; mark it in_progress when you start.',
  '- Checkpoint with comments as you go: what is done, the approach, what is next.',
  '- Close an issue only once the work is verified, with a reason.',
];

function essentialCommands(cli: Dialect, focusedId: string | undefined): string[] {
  const id = focusedId ?? '<id>';
  const commands: [string, string][] =
    cli === 'bd'
      ? [
          ['bd ready', 'unblocked work'],
          ['bd list --status in_progress --json', 'work in progress'],
          ['bd show <id> --include-comments', 'details and trail'],
          ['bd create "Title" -t task -p 2', 'new issue'],
          ['bd update <id> --claim', 'start work'],
          [`bd comments add ${id} "Done: …; Next: …"`, 'checkpoint'],
          [`bd close ${id} --reason "Verified: …"`, 'finish'],
        ]
      : [
          ['br ready', 'unblocked work'],
          ['br list -s in_progress --json', 'work in progress'],
          ['br show <id>', 'details and trail'],
          ['br create "Title" -t task -p 2', 'new issue'],
          ['br update <id> --claim', 'start work'],
          [`br comments add ${id} "Done: …; Next: …"`, 'checkpoint'],
          [`br close ${id} --reason "Verified: …"`, 'finish'],
        ];
  return commands.map(([command, purpose]) => `- ${inlineCode(command, 120)} — ${purpose}`);
}

// ---------------------------------------------------------------------------------------------
// Sections

/** The newest comments, at most TRAIL_ENTRIES of them; the budget removes the oldest first. */
function trailPart(comments: Comment[], now: number, cli: Dialect, id: string): { entries: string[]; render(kept: number): string[] } {
  const entries = comments.slice(-TRAIL_ENTRIES).map((comment) => {
    const at = parseTimestamp(comment.createdAt);
    const text = inlineText(comment.text ?? '', COMMENT_CHARS);
    return `- [${at === undefined ? 'time unknown' : formatAge(at, now)}] ${text === '' ? '(empty)' : text}`;
  });
  const empty = `- none yet: checkpoint with ${inlineCode(`${cli} comments add ${id} "…"`, 120)}`;
  return {
    entries,
    render: (kept) => {
      if (comments.length === 0) return [empty];
      const shown = kept > 0 ? entries.slice(-kept) : [];
      const hidden = comments.length - shown.length;
      const earlier = shown.length > 0 ? ' earlier' : '';
      return [...(hidden > 0 ? [`- (${hidden}${earlier} ${hidden === 1 ? 'entry' : 'entries'} not shown)`] : []), ...shown];
    },
  };
}

interface LedgerPart {
  files: string[];
  commits: string[];
  render(keptFiles: number, keptCommits: number): string[];
}

function ledgerPart(ledger: LedgerSummary, now: number): LedgerPart {
  const since = ledger.lastCheckpointAt === undefined ? 'no checkpoint yet' : formatAge(ledger.lastCheckpointAt, now);
  const heading = `### Since Last Checkpoint (${since})`;
  const allFiles = [...new Set((ledger.files ?? []).map(String))].sort(compareText);
  const allCommits = ledger.commits ?? [];
  const files = allFiles.slice(0, LEDGER_FILES).map((file) => inlineCode(file, PATH_CHARS));
  // The newest commits matter most: the cap and the budget remove the oldest first.
  const commits = allCommits.slice(-LEDGER_COMMITS).map((commit) => `- commit ${commitHash(commit.hash)} ${inlineText(commit.subject ?? '', TITLE_CHARS)}`);
  const edits = wholeNumber(ledger.edits);
  const fileCount = allFiles.length + wholeNumber(ledger.moreFiles);
  const activity = `- ${edits === 1 ? '1 edit' : `${edits} edits`}, ${fileCount === 1 ? '1 file' : `${fileCount} files`}`;
  return {
    files,
    commits,
    render: (keptFiles, keptCommits) => {
      if (edits === 0 && fileCount === 0 && allCommits.length === 0) return [heading, '- nothing recorded yet'];
      const lines = [heading, keptFiles > 0 ? `${activity}: ${withMore(files.slice(0, keptFiles), fileCount, ', ')}` : activity];
      const shown = keptCommits > 0 ? commits.slice(-keptCommits) : [];
      const hidden = allCommits.length - shown.length;
      if (hidden > 0) lines.push(`- ${hidden} earlier ${hidden === 1 ? 'commit' : 'commits'}`);
      return [...lines, ...shown];
    },
  };
}

/** The first READY_ENTRIES items as lines, and a count of the rest of the queue (`total` items). */
function readyListLines(items: readonly ReadyItem[], total = items.length): { entries: string[]; render(kept: number): string[] } {
  const entries = items.slice(0, READY_ENTRIES).map(readyLine);
  return {
    entries,
    render: (kept) => (total === 0 ? ['- nothing is ready right now'] : [...entries.slice(0, kept), ...moreLine(total - Math.min(kept, entries.length), 'ready')]),
  };
}

function readyLine(item: ReadyItem): string {
  const { issue } = item;
  const type = knownWord(issue.issueType);
  let line = `- ${issueName(issue, TITLE_CHARS)} (${priorityLabel(issue.priority)}${type ? `, ${type}` : ''})`;
  if (item.parent) line += ` · parent: ${issueName(item.parent, LINK_TITLE_CHARS)}`;
  if (item.unblocks.length > 0) {
    const named = item.unblocks.slice(0, READY_LINKS_NAMED).map((unblocked) => issueName(unblocked, LINK_TITLE_CHARS));
    line += ` · unblocks: ${withMore(named, item.unblocks.length)}`;
  }
  return line;
}

function changeLine(change: GitChange): string {
  const status = inlineText(String(change.status ?? '').trim() || '?', 4);
  const path = inlineCode(change.path, PATH_CHARS);
  return change.from ? `- ${inlineCode(change.from, PATH_CHARS)} → ${path} (${status})` : `- ${path} (${status})`;
}

// ---------------------------------------------------------------------------------------------
// Budget

function fitPlan(plan: Plan, budget: number): BoundedMarkdown {
  const fitted = fitToBudget({
    budget,
    full: plan.full,
    steps: plan.steps,
    render: plan.render,
    notice: (dropped) => `_…trimmed to fit ${budget} bytes: dropped ${dropped.map(partName).join(', ')}._`,
    cutNotice: `_…cut to fit ${budget} bytes._`,
  });
  const dropped = fitted.dropped.map(partName);
  if (fitted.cut) dropped.push('the end of the text (cut at the byte limit)');
  return { markdown: fitted.text, bytes: fitted.bytes, dropped };
}

function fitLines(lines: string[], budget: number): BoundedMarkdown {
  return fitPlan({ full: {}, steps: [], render: () => lines.join('\n') }, budget);
}

function partName({ part, count }: Dropped): string {
  const name = PART_NAMES[part] ?? part;
  if (typeof name === 'string') return name;
  return `${count} ${count === 1 ? name[0] : name[1]}`;
}

function sanitizeBudget(budget: number): number {
  if (Number.isNaN(budget)) return DEFAULT_BUDGET_BYTES;
  return Math.max(0, Math.floor(budget));
}

// ---------------------------------------------------------------------------------------------
// Ordering: unordered input comes out in one fixed order

function byMostRecentlyUpdated(issues: readonly Issue[]): Issue[] {
  const unique = new Map<string, Issue>();
  for (const issue of issues) if (issue && !unique.has(issue.id)) unique.set(issue.id, issue);
  const updated = (issue: Issue) => parseTimestamp(issue.updatedAt) ?? Number.NEGATIVE_INFINITY;
  return [...unique.values()].sort((a, b) => compareNumbers(updated(b), updated(a)) || compareIds(a.id, b.id));
}

/** Oldest first; a comment without a readable time sorts before the dated ones. */
function chronological(comments: readonly Comment[] | undefined): Comment[] {
  const at = (comment: Comment) => parseTimestamp(comment.createdAt) ?? Number.NEGATIVE_INFINITY;
  const sorted = [...(comments ?? [])].filter(Boolean).sort(
    (a, b) =>
      compareNumbers(at(a), at(b)) ||
      compareIds(String(a.id), String(b.id)) ||
      compareText(a.text, b.text) ||
      compareText(a.author, b.author) ||
      compareText(a.createdAt, b.createdAt),
  );
  return sorted.filter((comment, index) => index === 0 || !sameComment(comment, sorted[index - 1] as Comment));
}

function sameComment(a: Comment, b: Comment): boolean {
  return a.id === b.id && a.text === b.text && a.author === b.author && a.createdAt === b.createdAt;
}

function sortedChanges(changes: readonly GitChange[]): GitChange[] {
  const sorted = [...changes]
    .filter((change) => change && typeof change.path === 'string')
    .sort((a, b) => compareText(a.path, b.path) || compareText(a.status, b.status) || compareText(a.from, b.from));
  return sorted.filter((change, index) => {
    const previous = sorted[index - 1];
    return !previous || previous.path !== change.path || previous.status !== change.status || previous.from !== change.from;
  });
}

function uniqueReady(items: readonly ReadyItem[]): ReadyItem[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.issue.id) && seen.add(item.issue.id));
}

function uniqueById<T extends IssueSummary>(issues: readonly T[]): T[] {
  const seen = new Set<string>();
  return issues.filter((issue) => !seen.has(issue.id) && seen.add(issue.id));
}

function compareText(a: string | undefined, b: string | undefined): number {
  const left = a ?? '';
  const right = b ?? '';
  return left < right ? -1 : left > right ? 1 : 0;
}

function wholeNumber(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0;
}

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Inline pieces: every value from the data goes through inlineText or inlineCode

/** "id — title"; just the id when the data has no title (the parsers write "(unknown)" for an issue missing from the data). */
function issueName(issue: IssueSummary, titleChars: number): string {
  const id = inlineText(issue.id, ID_CHARS);
  const title = oneLine(issue.title ?? '');
  return title === '' || title === UNKNOWN_TITLE ? id : `${id} — ${inlineText(title, titleChars)}`;
}

function linkName(link: LinkedIssue): string {
  const type = knownWord(link.issueType);
  return `${issueName(link, LINK_TITLE_CHARS)}${type ? ` (${type})` : ''}`;
}

function blockerName(blocker: OpenBlocker): string {
  return `${issueName(blocker, LINK_TITLE_CHARS)} (${blocker.statusKnown ? word(blocker.status) : 'status unknown'})`;
}

function unblockedName(unblocked: Unblocked): string {
  return `${issueName(unblocked, LINK_TITLE_CHARS)}${unblocked.wouldBecomeUnblocked ? ' (ready once this closes)' : ''}`;
}

function word(value: string | undefined): string {
  return knownWord(value) || 'unknown';
}

function knownWord(value: string | undefined): string {
  return isStatusKnown(value) ? inlineText(value as string, WORD_CHARS) : '';
}

function priorityLabel(priority: number): string {
  return Number.isInteger(priority) && priority >= 0 ? `P${priority}` : 'P?';
}

function commitHash(hash: string): string {
  const text = String(hash ?? '');
  return /^[0-9a-f]{7,64}$/i.test(text) ? inlineCode(text.slice(0, 7), 7) : inlineCode(text, 12);
}

function withMore(named: string[], total: number, separator = '; '): string {
  const hidden = total - named.length;
  if (hidden <= 0) return named.join(separator);
  return [...named, `…and ${hidden} more`].join(separator);
}

function moreLine(hidden: number, what = ''): string[] {
  return hidden > 0 ? [`- …and ${hidden} more${what ? ` ${what}` : ''}`] : [];
}

function unavailable(error: string): string {
  const reason = inlineText(String(error ?? ''), ERROR_CHARS);
  return `(unavailable: ${reason || 'unknown error'})`;
}
