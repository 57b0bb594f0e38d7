// The dependency words of docs/ARCHITECTURE.md §5, read from `show` output. A record {issue_id,
// depends_on_id, type} means issue_id depends on depends_on_id, so an issue's `dependencies`
// hold its parent and its blockers, and its `dependents` hold its children and what it unblocks.
// The data is untrusted and often partial: records can be duplicated, point at the issue itself,
// point at issues that were deleted, or form cycles. Nothing here walks the graph without a
// visited set, and every list comes out in a fixed order whatever the order of the input.

import { compareText } from './compare';
import {
  BLOCKING_TYPES,
  PARENT_CHILD,
  isTerminal,
  summarize,
  type Issue,
  type IssueDetails,
  type IssueSummary,
  type LinkedIssue,
} from './model';

export interface OpenBlocker extends LinkedIssue {
  /** False when the data does not say the blocker's status (deleted or unknown to this store). */
  statusKnown: boolean;
}

export interface Unblocked extends LinkedIssue {
  /**
   * True when closing the issue leaves this dependent with no other open blocker, false when
   * something else still blocks it, absent when the dependent's own details were not given.
   */
  wouldBecomeUnblocked?: boolean;
}

/** A ready issue with the context that helps choose it. */
export interface ReadyItem {
  issue: Issue;
  parent?: IssueSummary;
  unblocks: IssueSummary[];
}

/** The target of the issue's parent-child dependency (the lowest id if the data has several). */
export function parentOf(details: IssueDetails): LinkedIssue | undefined {
  return links(details, details.dependencies, (type) => type === PARENT_CHILD).sort(byId)[0];
}

/** Issues whose parent-child dependency points at this one, by id. */
export function childrenOf(details: IssueDetails): LinkedIssue[] {
  return links(details, details.dependents, (type) => type === PARENT_CHILD).sort(byId);
}

/**
 * Targets of its blocking dependencies that are not closed, by priority then id. A target
 * whose status the data does not give is kept and marked unknown: it may well still block.
 */
export function openBlockersOf(details: IssueDetails): OpenBlocker[] {
  return links(details, details.dependencies, isBlockingType)
    .filter((link) => !isTerminal(link.status))
    .map((link) => ({ ...link, statusKnown: isStatusKnown(link.status) }))
    .sort(byPriorityThenId);
}

/** What would make a CLI refuse to close an issue: its open blockers and its open children. */
export interface CloseObstacles {
  blockers: OpenBlocker[];
  children: LinkedIssue[];
}

/** The open blockers and open children of an issue; undefined when there are none. */
export function closeObstaclesOf(details: IssueDetails): CloseObstacles | undefined {
  const blockers = openBlockersOf(details);
  const children = childrenOf(details).filter((child) => !isTerminal(child.status));
  return blockers.length > 0 || children.length > 0 ? { blockers, children } : undefined;
}

/** "demo-1 is blocked by demo-2 (Parser) and has 1 open child: demo-3 (Lexer)". */
export function describeCloseObstacles(issueId: string, obstacles: CloseObstacles): string {
  const named = (issues: readonly IssueSummary[]) => {
    const shown = issues.slice(0, 3).map((issue) => (issue.title ? `${issue.id} (${issue.title})` : issue.id));
    return issues.length > 3 ? `${shown.join(', ')} and ${issues.length - 3} more` : shown.join(', ');
  };
  const parts: string[] = [];
  if (obstacles.blockers.length > 0) parts.push(`is blocked by ${named(obstacles.blockers)}`);
  const count = obstacles.children.length;
  if (count > 0) parts.push(`has ${count} open ${count === 1 ? 'child' : 'children'}: ${named(obstacles.children)}`);
  return `${issueId} ${parts.join(' and ')}`;
}

/**
 * Dependents through a blocking type that are not closed. With the dependents' own details,
 * each is marked with whether this issue is its last open blocker; those come first.
 */
export function unblocksOf(details: IssueDetails, dependentsDetails?: readonly IssueDetails[]): Unblocked[] {
  const known = dependentsDetails ? indexDetails(dependentsDetails) : undefined;
  const unblocked = links(details, details.dependents, isBlockingType)
    .filter((link) => !isTerminal(link.status))
    .map((link): Unblocked => {
      const dependent = known?.get(link.id);
      if (!dependent) return link;
      const others = openBlockersOf(dependent).filter((blocker) => blocker.id !== details.id);
      return { ...link, wouldBecomeUnblocked: others.length === 0 };
    });
  return unblocked.sort((a, b) => Number(b.wouldBecomeUnblocked === true) - Number(a.wouldBecomeUnblocked === true) || byPriorityThenId(a, b));
}

/**
 * Each ready issue, in the queue's order and without repeats, with its parent and what it
 * unblocks as far as `details` tells; an issue without details gets neither.
 */
export function readyItems(ready: readonly Issue[], details: readonly IssueDetails[]): ReadyItem[] {
  const byId = indexDetails(details);
  const seen = new Set<string>();
  const items: ReadyItem[] = [];
  for (const issue of ready) {
    if (seen.has(issue.id)) continue;
    seen.add(issue.id);
    const issueDetails = byId.get(issue.id);
    if (!issueDetails) {
      items.push({ issue, unblocks: [] });
      continue;
    }
    const parent = parentOf(issueDetails);
    const unblocks = unblocksOf(issueDetails, details).map(summarize);
    items.push(parent ? { issue, parent: summarize(parent), unblocks } : { issue, unblocks });
  }
  return items;
}

/** Parent, grandparent, … as far as `known` has details, stopping at the first repeat. */
export function parentChain(details: IssueDetails, known: readonly IssueDetails[]): LinkedIssue[] {
  const byId = indexDetails(known);
  const chain: LinkedIssue[] = [];
  const visited = new Set<string>([details.id]);
  let parent = parentOf(details);
  while (parent && !visited.has(parent.id)) {
    chain.push(parent);
    visited.add(parent.id);
    const parentDetails = byId.get(parent.id);
    parent = parentDetails ? parentOf(parentDetails) : undefined;
  }
  return chain;
}

/** Details by id; when the input repeats an id, the first record wins. */
export function indexDetails(details: readonly IssueDetails[]): Map<string, IssueDetails> {
  const byId = new Map<string, IssueDetails>();
  for (const record of details) {
    if (record && typeof record.id === 'string' && !byId.has(record.id)) byId.set(record.id, record);
  }
  return byId;
}

/** Whether a status says anything: parsers leave it empty when the data has none. */
export function isStatusKnown(status: string | undefined): boolean {
  return typeof status === 'string' && status.trim() !== '' && status.trim().toLowerCase() !== 'unknown';
}

function isBlockingType(type: string): boolean {
  return BLOCKING_TYPES.has(type);
}

/**
 * Orders ids the way people number things: "bd-5og.2" before "bd-5og.10". Digit runs compare
 * by value, everything else by UTF-16 code unit, so the order never depends on a locale.
 */
export function compareIds(a: string, b: string): number {
  const partsA = a.split(/(\d+)/);
  const partsB = b.split(/(\d+)/);
  for (let index = 0; index < Math.min(partsA.length, partsB.length); index++) {
    const partA = partsA[index] as string;
    const partB = partsB[index] as string;
    if (partA === partB) continue;
    // split() with a capture group puts the digit runs at odd indexes.
    if (index % 2 === 1) {
      const valueA = partA.replace(/^0+/, '');
      const valueB = partB.replace(/^0+/, '');
      if (valueA.length !== valueB.length) return valueA.length - valueB.length;
      if (valueA !== valueB) return valueA < valueB ? -1 : 1;
    }
    return partA < partB ? -1 : 1;
  }
  return partsA.length - partsB.length || compareText(a, b);
}

/** Priority as a sortable number: missing or odd values sort after P4. */
export function priorityRank(priority: number): number {
  return Number.isFinite(priority) ? priority : Number.MAX_SAFE_INTEGER;
}

function links(details: IssueDetails, records: readonly LinkedIssue[] | undefined, typeMatches: (type: string) => boolean): LinkedIssue[] {
  const chosen = new Map<string, LinkedIssue>();
  for (const record of records ?? []) {
    if (!record || typeof record.id !== 'string' || record.id === '' || record.id === details.id) continue;
    if (!typeMatches(record.dependencyType)) continue;
    // Duplicate records for one target keep the one that sorts first, so the input order never matters.
    const current = chosen.get(record.id);
    if (!current || compareRecords(record, current) < 0) chosen.set(record.id, record);
  }
  return [...chosen.values()];
}

function compareRecords(a: LinkedIssue, b: LinkedIssue): number {
  return (
    Number(isStatusKnown(b.status)) - Number(isStatusKnown(a.status)) ||
    compareText(a.dependencyType, b.dependencyType) ||
    compareText(a.status, b.status) ||
    priorityRank(a.priority) - priorityRank(b.priority) ||
    compareText(a.title, b.title) ||
    compareText(a.issueType, b.issueType)
  );
}

function byId(a: IssueSummary, b: IssueSummary): number {
  return compareIds(a.id, b.id);
}

function byPriorityThenId(a: IssueSummary, b: IssueSummary): number {
  return priorityRank(a.priority) - priorityRank(b.priority) || compareIds(a.id, b.id);
}
