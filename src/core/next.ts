// One answer to "what should I work on next?". The close notification, the sidebar (its offer and
// the Ready list's tag and order), the continue prompt and the recovery context all ask `nextFor`,
// so they can never name different issues.
// It prefers what the last close just unblocked (the work that close was for), then the ready
// queue by priority, keeping the CLI's order among equals. It never offers a container (an epic):
// an epic is finished through its children, so claiming one records work against the wrong issue.

import { priorityRank } from './graph';
import { isTerminal, type IssueSummary } from './model';

/** Issue types that group work rather than being worked on. */
const CONTAINER_TYPES: ReadonlySet<string> = new Set(['epic']);

export interface NextInput<T extends IssueSummary> {
  /** The ready queue, in the CLI's order. */
  ready: readonly T[];
  /** Ids the last close left with no open blocker; preferred while they are ready. */
  justUnblocked?: readonly string[];
  /** Ids never offered: the issue just closed, say. */
  exclude?: readonly string[];
}

export interface NextPick<T extends IssueSummary> {
  issue: T;
  /** 'unblocked': the last close made it ready; 'ready': the best of the ready queue. */
  reason: 'unblocked' | 'ready';
}

/** An issue that holds other work (an epic): shown as a container, never offered for claiming. */
export function isContainer(issue: Pick<IssueSummary, 'issueType'>): boolean {
  return CONTAINER_TYPES.has(String(issue.issueType ?? '').trim().toLowerCase());
}

/** Whether "claim this" makes sense: not a container, not finished, not already in progress. */
export function isClaimable(issue: Pick<IssueSummary, 'issueType' | 'status'>): boolean {
  return !isContainer(issue) && !isTerminal(issue.status) && issue.status !== 'in_progress';
}

/** The next work to claim, or undefined when nothing claimable is ready. */
export function pickNext<T extends IssueSummary>(input: NextInput<T>): NextPick<T> | undefined {
  const excluded = new Set(input.exclude ?? []);
  const candidates = input.ready.filter((issue) => isClaimable(issue) && !excluded.has(issue.id));
  const unblocked = new Set(input.justUnblocked ?? []);
  const fromClose = best(candidates.filter((issue) => unblocked.has(issue.id)));
  if (fromClose) return { issue: fromClose, reason: 'unblocked' };
  const fromQueue = best(candidates);
  return fromQueue ? { issue: fromQueue, reason: 'ready' } : undefined;
}

/** The highest priority; the earliest in the queue among equals (the CLI's own tie-break). */
function best<T extends IssueSummary>(issues: readonly T[]): T | undefined {
  let chosen: T | undefined;
  for (const issue of issues) {
    if (!chosen || priorityRank(issue.priority) < priorityRank(chosen.priority)) chosen = issue;
  }
  return chosen;
}

/** What to offer after closing `closedId`: the same pick for the notification, the view and the continue prompt. */
export function nextAfterClose<T extends IssueSummary>(closedId: string, unblockedIds: readonly string[], ready: readonly T[]): NextPick<T> | undefined {
  return pickNext({ ready, justUnblocked: unblockedIds, exclude: [closedId] });
}

/**
 * The last close made here and not yet followed up: remembered beside the ledger (so the command
 * line's recovery context reads it too) until the user dismisses the offer or claims something.
 */
export interface LastClose {
  closed: IssueSummary;
  /** Ids the close left with no open blocker. */
  unblocked: string[];
  /** Ids in progress right after the close: an issue in progress that is not among them was claimed since. */
  inProgressAfter: string[];
}

/**
 * Whether the offer after `lastClose` still holds: nothing has been claimed since (from VS Code or
 * a terminal). Once the next issue is claimed it is in progress, not "next".
 */
export function lastCloseHolds(lastClose: LastClose | undefined, inProgressIds: readonly string[]): lastClose is LastClose {
  if (!lastClose) return false;
  const before = new Set(lastClose.inProgressAfter);
  return inProgressIds.every((id) => before.has(id));
}

export interface NextForInput<T extends IssueSummary> {
  ready: readonly T[];
  /** The ids in progress now. */
  inProgress: readonly string[];
  lastClose?: LastClose;
}

/** The one next issue, for every surface: what the last close unblocked while its offer holds, else the best of the queue. */
export function nextFor<T extends IssueSummary>(input: NextForInput<T>): (NextPick<T> & { afterClose?: LastClose }) | undefined {
  const { lastClose } = input;
  if (lastCloseHolds(lastClose, input.inProgress)) {
    const pick = nextAfterClose(lastClose.closed.id, lastClose.unblocked, input.ready);
    return pick ? { ...pick, afterClose: lastClose } : undefined;
  }
  return pickNext({ ready: input.ready });
}

/**
 * The Ready list, as every surface shows it (the view, the recovery context, the continue prompt,
 * the Claim picker): each issue once, no container (an epic is finished through its children),
 * the next issue first and the rest in the queue's order.
 */
export function readyOrder<T extends IssueSummary>(ready: readonly T[], next: IssueSummary | undefined): T[] {
  const seen = new Set<string>();
  const listed = ready.filter((issue) => !isContainer(issue) && !seen.has(issue.id) && seen.add(issue.id));
  const chosen = next ? listed.find((issue) => issue.id === next.id) : undefined;
  return chosen ? [chosen, ...listed.filter((issue) => issue !== chosen)] : listed;
}
