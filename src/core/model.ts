// The normalized beads domain. Both CLIs (bd, br) and the JSONL file are parsed into these
// shapes at the edge (src/core/parse.ts), so nothing past the parsers knows which dialect
// produced the data. Statuses and types stay open-ended strings: both CLIs accept custom ones.

export type Dialect = 'bd' | 'br';

/** The fields every surface needs to name an issue. */
export interface IssueSummary {
  id: string;
  title: string;
  status: string;
  priority: number;
  issueType: string;
}

/** An issue seen from another issue through a dependency record. */
export interface LinkedIssue extends IssueSummary {
  /** The record's type: blocks, parent-child, conditional-blocks, waits-for, related, … */
  dependencyType: string;
}

export interface Comment {
  /** bd uses UUIDv7 strings (integers before 1.0), br integers: kept as a string. */
  id: string;
  author: string;
  text: string;
  /** RFC3339 as the CLI printed it; compare with Date.parse, never as strings. */
  createdAt: string;
}

export interface Issue extends IssueSummary {
  description?: string;
  acceptanceCriteria?: string;
  notes?: string;
  design?: string;
  /** br's `agent_context` (beads_rust#297): the issue's instructions for agents working on it. */
  agentContext?: string;
  assignee?: string;
  /** When it was claimed (bd's `started_at`; br does not record it). */
  startedAt?: string;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  labels: string[];
  /** bd's wisps (and br's ephemeral issues): short-lived agent bookkeeping, never exported. */
  ephemeral?: boolean;
}

/** What `show` returns: the issue with both directions of its dependency records and its comments. */
export interface IssueDetails extends Issue {
  /** Issues this one depends on (record issue_id = this): its parent and its blockers. */
  dependencies: LinkedIssue[];
  /** Issues that depend on this one (record depends_on_id = this): its children and what it unblocks. */
  dependents: LinkedIssue[];
  comments: Comment[];
}

/** A raw dependency record: `issueId` depends on `dependsOnId`. */
/** Dependency types that keep an issue from being ready (docs/ARCHITECTURE.md §5, docs/BEADS_CONTRACT.md §2). */
export const BLOCKING_TYPES: ReadonlySet<string> = new Set(['blocks', 'conditional-blocks', 'waits-for']);
export const PARENT_CHILD = 'parent-child';

/**
 * The assignee as a person's or agent's name, or undefined. bd and br write "unknown" when a claim
 * had no actor to name (no --actor, actor config, BD_ACTOR or $USER, and for bd no BEADS_ACTOR or
 * git user.name): that names nobody, so it is shown as no assignee.
 */
export function assigneeName(assignee: string | undefined): string | undefined {
  const name = assignee?.trim();
  return name && name !== UNNAMED_ACTOR ? name : undefined;
}

/** What both CLIs record as the actor when nothing names one. */
const UNNAMED_ACTOR = 'unknown';

/** Statuses after which an issue no longer blocks anything. */
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['closed', 'tombstone']);

export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
}

/**
 * Statuses that mean someone is working on the issue (docs/BEADS_CONTRACT.md C2): `in_progress`, and bd's
 * `hooked` (work an agent has picked up through a hook). br has no `hooked`; asking for it costs
 * nothing there.
 */
export const IN_PROGRESS_STATUSES: readonly string[] = ['in_progress', 'hooked'];

/**
 * Whether an issue counts as the user's work. Wisps do not (docs/BEADS_CONTRACT.md C3): they are ephemeral
 * bookkeeping an agent framework creates and burns by the dozen, bd leaves them out of its
 * export and br out of its JSONL, and bd merges them into `list --json` only by accident of its
 * text-only filter. Leaving them out keeps the CLI and the read-only JSONL reader in agreement.
 */
function isOwnWork(issue: Pick<Issue, 'id' | 'ephemeral'>): boolean {
  return issue.ephemeral !== true && !issue.id.includes('-wisp-');
}

/** An in-progress issue that is the user's work: what the sidebar, the ledger and the context follow. */
export function isWorkInProgress(issue: Pick<Issue, 'id' | 'status' | 'ephemeral'>): boolean {
  return IN_PROGRESS_STATUSES.includes(issue.status) && isOwnWork(issue);
}

export function summarize(issue: IssueSummary): IssueSummary {
  return { id: issue.id, title: issue.title, status: issue.status, priority: issue.priority, issueType: issue.issueType };
}

/** A persistent memory of bd's (`bd remember`): what bd's prime injects into every session. */
export interface Memory {
  key: string;
  value: string;
}
