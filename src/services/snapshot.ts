import type { BeadsBackend } from '../beads/backend';
import { indexDetails, parentOf } from '../core/graph';
import { chooseFocus } from '../core/checkpointDecision';
import type { Issue, IssueDetails } from '../core/model';
import type { Section } from '../core/recovery';
import { section } from './section';

/** What one refresh knows about a project: the raw material of the recovery context and the sidebar. */
export interface ProjectSnapshot {
  inProgress: Section<Issue[]>;
  ready: Section<Issue[]>;
  /** `show` output for the in-progress issues, the focused issue's dependents (and ancestors) and the top ready items. */
  details: Section<IssueDetails[]>;
  /** The focused issue: the requested one when it is still in progress, else the most recently updated. */
  focusedId: string | undefined;
  /**
   * The ids whose details the next refresh will want ahead of its lists: the focus, its
   * dependents and its ancestors as far as known, and the issues in view. Pass them back as `hints`.
   */
  contextIds: string[];
  /**
   * True when the view wanted details that the two steps could not reach: the focus was not known
   * before the lists came back, or its ancestor chain runs past what was known. A refresh with
   * `hints: contextIds` completes it.
   */
  incomplete: boolean;
}

export interface SnapshotOptions {
  /** The focus the caller expects (the ledger's, or the user's pick): its `show` starts with the lists. */
  focusedId?: string;
  /**
   * Chooses the focus once the in-progress list is known (the session's issue,
   * src/core/sessionIssue.ts); undefined means none of them. Without it: `focusedId` while it is
   * in progress, else the most recently updated.
   */
  choose?: (inProgress: readonly Issue[]) => string | undefined;
  /** Ids whose details a previous snapshot needed (its `contextIds`): shown alongside the lists too. */
  hints?: readonly string[];
  /** Load the ready queue even when something is in progress (the sidebar always shows it). */
  alwaysReady: boolean;
  /** How many ready items get `show` details (parent, unblocks). */
  readyDetails: number;
  /** Also load the focused issue's parent chain (its parent, and further ancestors as hints allow). */
  ancestors?: boolean;
  /**
   * A one-shot caller (a recovery context, which has no later refresh to complete it): at most
   * three processes in two steps, every time. Step 1 is the in-progress list with either the
   * expected focus's `show` (its hints) or, with no focus expected, the ready list; step 2 is one
   * process, whichever the answers call for.
   */
  oneShot?: boolean;
  signal?: AbortSignal;
}

/**
 * Loads a snapshot in at most two dependent steps, whatever the project's size:
 *
 * 1. the in-progress list, the ready list (when it can be needed) and one `show` of the expected
 *    focus and the hinted ids, all at once;
 * 2. one `show` of whatever the view needs that step 1 did not bring: the other issues in view,
 *    the focused issue's dependents (to tell which of them its close would unblock), its parent —
 *    or, for a one-shot caller whose expected focus is no longer in progress, the ready list.
 *
 * So a context with a current focus costs two or three processes, and a refresh whose hints are
 * current usually needs no second step. Never one process per issue, never a third step: what
 * the two steps could not reach is left out and `incomplete` says so.
 */
export async function loadSnapshot(backend: BeadsBackend, options: SnapshotOptions): Promise<ProjectSnapshot> {
  const { signal } = options;
  const oneShot = options.oneShot === true;
  // A one-shot caller with no focus to expect shows nothing speculatively: its one `show` comes once the lists have said what is in view.
  const speculative = oneShot && !options.focusedId ? [] : unique([...(options.focusedId ? [options.focusedId] : []), ...(options.hints ?? [])]);
  const inProgressQuery = section(() => backend.listInProgress(signal));
  // Without an expected focus, nothing in progress is as likely as something: ask for the queue now.
  const readyQuery = options.alwaysReady || !options.focusedId ? section(() => backend.listReady(signal)) : undefined;
  const earlyShow = speculative.length > 0 ? section(() => backend.show(speculative, signal)) : undefined;

  const inProgress = await inProgressQuery;
  const inProgressIssues = inProgress.ok ? inProgress.value : [];
  const focusedId = options.choose ? options.choose(inProgressIssues) : chooseFocus(inProgressIssues, options.focusedId);
  // The expected focus is no longer in progress and nothing else is: only now is the queue needed.
  const readyLate = !readyQuery && !focusedId;
  const ready: Section<Issue[]> = readyQuery ? await readyQuery : readyLate ? await section(() => backend.listReady(signal)) : { ok: true, value: [] };
  const early = earlyShow ? await earlyShow : undefined;
  const loaded: IssueDetails[] = early?.ok ? [...early.value] : [];

  const readyIds = ready.ok ? ready.value.slice(0, options.readyDetails).map((issue) => issue.id) : [];
  const inView = unique([...inProgressIssues.map((issue) => issue.id), ...readyIds]);
  const requested = new Set(early?.ok ? speculative : []);
  const missing = unique([...inView, ...contextIdsOf(loaded, focusedId, options.ancestors === true)]).filter((id) => !requested.has(id));
  let details: Section<IssueDetails[]> = early && !early.ok && missing.length === 0 ? early : { ok: true, value: loaded };
  // A one-shot caller that spent its second step on the ready list has no third.
  if (missing.length > 0 && !(oneShot && readyLate)) {
    const rest = await section(() => backend.show(missing, signal));
    if (rest.ok) loaded.push(...rest.value);
    // Without the speculative ids' details the view still stands on what it asked for in this step.
    details = rest.ok ? { ok: true, value: loaded } : rest;
    for (const id of missing) requested.add(id);
  }
  const contextIds = details.ok ? contextIdsOf(loaded, focusedId, options.ancestors === true) : speculative;
  const incomplete = details.ok && [...contextIds, ...inView].some((id) => !requested.has(id));
  // The next refresh wants the same issues in view (ready ones may change, but most stay).
  return { inProgress, ready, details, focusedId, contextIds: unique([...contextIds, ...inView]), incomplete };
}

/**
 * What a one-shot caller with nothing remembered can expect, read from the store's own file (a
 * read-only backend over `issues.jsonl`, which may be behind the CLI): the most recently updated
 * issue in progress and the ids around it. Only a guess to start `show` with the lists — the CLI's
 * answers decide — so an unreadable or missing file expects nothing.
 */
export async function expectFromFile(file: BeadsBackend, signal?: AbortSignal): Promise<{ focusedId?: string; hints: string[] }> {
  try {
    const focusedId = chooseFocus(await file.listInProgress(signal), undefined);
    if (!focusedId) return { hints: [] };
    return { focusedId, hints: contextIdsOf(await file.show([focusedId], signal), focusedId, false) };
  } catch {
    return { hints: [] };
  }
}

/**
 * The ids around the focus whose details the view wants: the focus itself, its dependents (each
 * one's own blockers tell whether the focus's close would unblock it), its parent (whose closed
 * children are the focus's siblings already done) and, for the sidebar, its ancestors as far as
 * `known` reaches plus the next one up.
 */
function contextIdsOf(known: readonly IssueDetails[], focusedId: string | undefined, ancestors: boolean): string[] {
  if (!focusedId) return [];
  const byId = indexDetails(known);
  const focused = byId.get(focusedId);
  if (!focused) return [focusedId];
  const parent = parentOf(focused);
  const ids = [focusedId, ...focused.dependents.map((issue) => issue.id), ...(parent ? [parent.id] : [])];
  if (!ancestors) return unique(ids);
  const visited = new Set<string>([focusedId]);
  for (let ancestor = parent; ancestor && !visited.has(ancestor.id); ) {
    ids.push(ancestor.id);
    visited.add(ancestor.id);
    const ancestorDetails = byId.get(ancestor.id);
    ancestor = ancestorDetails ? parentOf(ancestorDetails) : undefined;
  }
  return unique(ids);
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
