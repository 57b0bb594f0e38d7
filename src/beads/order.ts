import type { Issue } from '../core/model';
import { compareText } from '../core/compare';
import { parseTimestamp } from '../core/time';

// Orders over parsed timestamps: the CLIs print RFC3339 with any offset and fraction, so text
// comparison would misorder them.

/** Most recently updated first; an unreadable time sorts last, ties by id. */
export function byMostRecentlyUpdated<T extends Issue>(issues: readonly T[]): T[] {
  const updated = (issue: Issue) => parseTimestamp(issue.updatedAt) ?? Number.NEGATIVE_INFINITY;
  return [...issues].sort((a, b) => difference(updated(b), updated(a)) || compareText(a.id, b.id));
}

/** br's default ready order: P0 and P1 first, each group oldest first. */
export function byHybrid(a: Issue, b: Issue): number {
  const urgency = (issue: Issue) => (issue.priority <= 1 ? 0 : 1);
  return urgency(a) - urgency(b) || difference(created(a), created(b)) || compareText(a.id, b.id);
}

/** bd's default ready order: priority, then newest first, then id. */
export function byPriorityThenNewest(a: Issue, b: Issue): number {
  return a.priority - b.priority || difference(created(b), created(a)) || compareText(a.id, b.id);
}

function created(issue: Issue): number {
  return parseTimestamp(issue.createdAt) ?? Number.POSITIVE_INFINITY;
}

/** a - b, where two equal infinities count as equal rather than NaN. */
function difference(a: number, b: number): number {
  return a === b ? 0 : a - b;
}
