import type { BeadsBackend } from '../beads/backend';
import { parentOf } from '../core/graph';
import type { Issue, IssueDetails } from '../core/model';
import type { Section } from '../core/recovery';
import { section } from './section';

/** What one refresh knows about a project: the raw material of the recovery context and the sidebar. */
export interface ProjectSnapshot {
  inProgress: Section<Issue[]>;
  ready: Section<Issue[]>;
  /** `show` output for the in-progress issues, the focused issue's dependents and the top ready items. */
  details: Section<IssueDetails[]>;
  /** The focused issue: the requested one when it is still in progress, else the most recently updated. */
  focusedId: string | undefined;
}

export interface SnapshotOptions {
  focusedId?: string;
  /** Load the ready queue even when something is in progress (the sidebar always shows it). */
  alwaysReady: boolean;
  /** How many ready items get `show` details (parent, unblocks). */
  readyDetails: number;
  /**
   * Also load the focused issue's parent chain: the parent joins the dependents' `show`, and one
   * more `show` reaches the grandparent (whose own details name the next ancestor).
   */
  ancestors?: boolean;
  signal?: AbortSignal;
}

/**
 * Loads a snapshot with a constant number of CLI processes, whatever the project's size:
 * the in-progress list and (when needed) the ready list concurrently, one `show` for every issue
 * in view, one `show` for the focused issue's dependents (to tell which of them its close
 * would unblock) and its parent, and, when asked for the ancestors, one `show` for the
 * grandparent. At most five processes; never one per issue.
 */
export async function loadSnapshot(backend: BeadsBackend, options: SnapshotOptions): Promise<ProjectSnapshot> {
  const { signal } = options;
  const inProgressQuery = section(() => backend.listInProgress(signal));
  const readyQuery = options.alwaysReady ? section(() => backend.listReady(signal)) : undefined;
  const inProgress = await inProgressQuery;
  const inProgressIssues = inProgress.ok ? inProgress.value : [];
  const focusedId = chooseFocus(inProgressIssues, options.focusedId);
  const ready: Section<Issue[]> = readyQuery
    ? await readyQuery
    : focusedId
      ? { ok: true, value: [] }
      : await section(() => backend.listReady(signal));

  const readyIds = ready.ok ? ready.value.slice(0, options.readyDetails).map((issue) => issue.id) : [];
  const inView = unique([...inProgressIssues.map((issue) => issue.id), ...readyIds]);
  const details = await section(() => (inView.length > 0 ? backend.show(inView, signal) : Promise.resolve([])));

  const focused = details.ok ? details.value.find((issue) => issue.id === focusedId) : undefined;
  const known = new Set(inView);
  const parentId = options.ancestors && focused ? parentOf(focused)?.id : undefined;
  const contextIds = unique([...(focused?.dependents ?? []).map((issue) => issue.id), ...(parentId ? [parentId] : [])]).filter(
    (id) => !known.has(id),
  );
  if (details.ok && contextIds.length > 0) {
    const context = await section(() => backend.show(contextIds, signal));
    // Without the dependents' own blockers the context still lists what the focused issue unblocks;
    // it only cannot say which of them would become ready, so a failure here is not surfaced.
    if (context.ok) details.value.push(...context.value);
  }
  const grandparentId = parentId && details.ok ? grandparentToLoad(details.value, parentId, focusedId) : undefined;
  if (details.ok && grandparentId) {
    // The chain is context, not the task: without it the view shows the nearer ancestors only.
    const grandparent = await section(() => backend.show([grandparentId], signal));
    if (grandparent.ok) details.value.push(...grandparent.value);
  }
  return { inProgress, ready, details, focusedId };
}

function grandparentToLoad(details: readonly IssueDetails[], parentId: string, focusedId: string | undefined): string | undefined {
  const parent = details.find((issue) => issue.id === parentId);
  const grandparentId = parent ? parentOf(parent)?.id : undefined;
  if (!grandparentId || grandparentId === focusedId || details.some((issue) => issue.id === grandparentId)) return undefined;
  return grandparentId;
}

export function chooseFocus(inProgress: readonly Issue[], requested: string | undefined): string | undefined {
  if (requested && inProgress.some((issue) => issue.id === requested)) return requested;
  return inProgress[0]?.id;
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
