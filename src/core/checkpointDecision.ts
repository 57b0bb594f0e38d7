// The decision of one checkpoint (docs/ARCHITECTURE.md §4, "Gather, decide, write"). The flow
// (src/services/checkpointFlow.ts) gathers every fact first — beads, git, the ledger, the agent
// sessions and what their transcripts show — then `decideCheckpoint` works out, from those facts
// alone, the issue, the comment and its key, the bindings that end and where the session's thread
// goes; then one step writes it. Pure: no I/O, and the time comes in as a number.

import { attributeWork, bindingsOf, othersWork, ownWork, sessionKey, type AgentSessionsState, type SessionIdentity } from './agentSessions';
import {
  activityFingerprint,
  autoCheckpointComment,
  checkpointComment,
  checkpointWindowStart,
  hasNewActivity,
  latestCheckpointAt,
  onOurClock,
  summarizeActivity,
  textFingerprint,
  type AutoCheckpointTrigger,
  type CheckpointActivity,
  type CommitRef,
} from './checkpoint';
import { filesByEdits, ledgerOf, type Ledger, type LedgerState } from './ledger';
import { oneLine } from './markdown';
import type { Issue, IssueDetails } from './model';
import { chooseSessionIssue, type Actor, type LiveSession } from './sessionIssue';
import type { ThreadDestination } from './threadDestination';

/**
 * What a checkpoint is asked for: the user's or agent's own words, an automatic checkpoint at a
 * trigger, or (the command line without either) a summary of the activity in the user's form.
 */
export type CheckpointRequest =
  | { message: string }
  /** `thread`: what the agent session was doing, from its transcript (threadFactLines), written below the first line. */
  | { trigger: AutoCheckpointTrigger; thread?: readonly string[] }
  | { summary: true };

/**
 * The one definition of a checkpoint's comment and idempotency key, for VS Code, the command line
 * and agent tools alike. Undefined when an automatic or summary checkpoint has nothing new to
 * record; words given by someone are always written.
 */
export interface PlannedCheckpoint {
  key: string;
  comment: string;
  /** For words someone gave: how long after landing the same words count as the same request (BeadsWrite.sameWithinMs). */
  sameWithinMs?: number;
}

/**
 * The same words on the same issue within this long are one checkpoint: an agent or a person
 * retrying after a timeout, or a second hook file, never gets two comments; later, they are new.
 */
export const SAME_WORDS_WINDOW_MS = 15 * 60_000;

export function checkpointWrite(activity: CheckpointActivity, request: { message: string }, now: number): PlannedCheckpoint;
export function checkpointWrite(activity: CheckpointActivity, request: CheckpointRequest, now: number): PlannedCheckpoint | undefined;
export function checkpointWrite(activity: CheckpointActivity, request: CheckpointRequest, now: number): PlannedCheckpoint | undefined {
  if ('message' in request) {
    return {
      key: manualCheckpointKey(activity.issueId, request.message),
      comment: checkpointComment(request.message, activity.files, activity.commits),
      sameWithinMs: SAME_WORDS_WINDOW_MS,
    };
  }
  // The session's own thread is new work too: a compaction loses it even when no file changed.
  const thread = 'trigger' in request ? (request.thread ?? []) : [];
  if (!hasNewActivity(activity) && thread.length === 0) return undefined;
  const comment = 'trigger' in request
    ? autoCheckpointComment(activity, request.trigger, now, thread)
    : checkpointComment(summarizeActivity(activity, now), activity.files, activity.commits);
  // The same activity with another thread is another checkpoint; the same thread again is not.
  return { key: thread.length > 0 ? `${autoCheckpointKey(activity)}:${textFingerprint(thread.join('\n'))}` : autoCheckpointKey(activity), comment };
}

/**
 * The idempotency keys of checkpoints, one definition for VS Code, the command line and agent
 * tools, built from stable facts and never from the time of the request, so concurrent processes
 * asked for the same checkpoint agree on its key and the outbox writes it once. Typed words: the
 * issue and the words alone — not the start of the window, which moves once the first copy has
 * landed — and the outbox takes the same key within SAME_WORDS_WINDOW_MS of landing for a retry.
 */
function manualCheckpointKey(issueId: string, text: string): string {
  return `checkpoint:${issueId}:${textFingerprint(oneLine(text))}`;
}

/** See manualCheckpointKey; the activity's fingerprint includes the start of its window. */
function autoCheckpointKey(activity: CheckpointActivity): string {
  return `auto:${activity.issueId}:${activityFingerprint(activity)}`;
}

export function activityOf(ledger: Ledger): CheckpointActivity {
  const files = filesByEdits(ledger);
  const counts = new Map(ledger.files.map((file, index) => [file, ledger.editCounts[index] ?? 1]));
  return {
    issueId: ledger.issueId,
    files,
    fileEdits: files.map((file) => counts.get(file) ?? 1),
    commits: ledger.commits.map(({ hash, subject }) => ({ hash, subject })),
    edits: ledger.edits,
    // Before the first checkpoint, the span runs from when the ledger started recording.
    lastCheckpointAt: ledger.lastCheckpointAt ?? ledger.startedAt,
    ...(ledger.lastCheckpointAt === undefined ? { recordingSince: ledger.startedAt } : {}),
  };
}

/** What git showed since the earliest window the decision may need: each commit and changed file with its time. */
export interface GitRecords {
  /** Commits on HEAD, oldest first, with their work files and commit time (epoch ms, whole seconds). */
  commits: readonly { hash: string; subject: string; committedAt: number; files: readonly string[] }[];
  /** Uncommitted work files and when each was modified (undefined: deleted, which always counts). */
  changed: readonly { path: string; modifiedAt?: number }[];
}

/** The commits after `since` with the files they changed, plus uncommitted files modified after it. */
export function gitWorkSince(records: GitRecords, since: number): { files: string[]; commits: CommitRef[] } {
  const files = new Set<string>();
  const commits: CommitRef[] = [];
  for (const commit of records.commits) {
    // git's --since has whole seconds: a commit from the second of the last checkpoint but before it is left out here.
    if (commit.committedAt <= since) continue;
    commits.push({ hash: commit.hash, subject: commit.subject });
    for (const file of commit.files) files.add(file);
  }
  for (const change of records.changed) if (change.modifiedAt === undefined || change.modifiedAt > since) files.add(change.path);
  return { files: [...files], commits };
}

/** Commits of both lists, once each: the ledger keeps short or full hashes, git gives full ones. */
export function uniqueCommits(commits: readonly CommitRef[]): CommitRef[] {
  const seen = new Set<string>();
  const unique: CommitRef[] = [];
  for (const commit of commits) {
    const known = [...seen].some((hash) => hash.startsWith(commit.hash) || commit.hash.startsWith(hash));
    if (known) continue;
    seen.add(commit.hash);
    unique.push(commit);
  }
  return unique;
}

/** Everything a checkpoint is decided from, gathered before anything is decided. */
export interface CheckpointFacts {
  now: number;
  ask: CheckpointRequest;
  /** The issue asked for, or the one the caller's view focuses; else the session's is chosen. */
  issueId?: string;
  /** The issues in progress, read when no issue was asked for. */
  inProgress?: readonly Issue[];
  ledger?: LedgerState;
  /**
   * Beads' details of the issue asked for, or of every issue in progress (one of which the
   * decision chooses). Undefined where they were not read: VS Code's own ledger counts its window.
   */
  details?: readonly IssueDetails[];
  /** What git showed since `gitReadFrom` (outside VS Code, in a repository). */
  git?: GitRecords;
  /** The CLI's clock minus ours, once measured. */
  cliOffsetMs?: number;
  /** Outside VS Code: which session asks, as what actor, what the sessions recorded, and which others are live. */
  session?: { identity?: SessionIdentity; actor?: Actor; state?: AgentSessionsState; live?: readonly LiveSession[] };
  /** Where the session's thread may go; into beads when not said. */
  threadDestination?: ThreadDestination;
}

/** Where the session's thread goes: with the comment into beads, nowhere, or kept on this machine as the full checkpoint. */
export type ThreadDecision = { destination: 'beads' } | { destination: 'off' } | { destination: 'local'; full: PlannedCheckpoint | undefined };

/** The comment to queue for beads (its text before the one redaction step). */
export interface CheckpointComment {
  key: string;
  kind: 'comment';
  issueId: string;
  text: string;
  checkpointAt: number;
  sameWithinMs?: number;
  /** An automatic checkpoint records everything since the last one that landed: a later one covers it. */
  cumulative?: boolean;
}

export type CheckpointDecision =
  | { kind: 'no-issue'; reason: string; endBindings?: readonly string[] }
  | { kind: 'nothing-new'; issueId: string; lastCheckpointAt?: number; thread: ThreadDecision; endBindings?: readonly string[] }
  | { kind: 'write'; issueId: string; enqueue: CheckpointComment; thread: ThreadDecision; endBindings?: readonly string[] };

/**
 * From the gathered facts: the issue (the one asked for, else the session's: src/core/sessionIssue.ts),
 * the bindings that end (`endBindings`: every binding of the session to an issue not among these,
 * the issues in progress), the activity this session's checkpoint may name, the comment and its
 * key, and where the thread goes.
 */
export function decideCheckpoint(facts: CheckpointFacts): CheckpointDecision {
  const { now, ask, session } = facts;
  let issueId = facts.issueId;
  /** The issue unclaimed work follows: the folder's focus while in progress, else the newest. */
  let folderFocus = issueId;
  let ended: { endBindings?: readonly string[] } = {};
  if (!issueId) {
    const inProgress = facts.inProgress ?? [];
    const focusedId = facts.ledger?.focusedId;
    folderFocus = chooseFocus(inProgress, focusedId);
    const bindings = session?.identity ? bindingsOf(session.state?.sessions[sessionKey(session.identity)]) : [];
    const choice = chooseSessionIssue({
      inProgress,
      binding: bindings.find((id) => inProgress.some((issue) => issue.id === id)) ?? bindings[0],
      actor: session?.actor,
      focusedId,
      // Another live session's issue is never this session's checkpoint's.
      liveSessions: session?.identity ? session.live : undefined,
    });
    issueId = choice.issueId;
    if (choice.bindingEnded && session?.identity) ended = { endBindings: inProgress.map((issue) => issue.id) };
    if (!issueId && choice.heldByLive.length > 0) {
      const held = choice.heldByLive.map((entry) => `${entry.issueId} (${entry.agent})`).join(', ');
      return { kind: 'no-issue', reason: `every in-progress issue this session could take is held by another live session: ${held}; no checkpoint written.`, ...ended };
    }
    if (!issueId && choice.heldByOthers > 0) return { kind: 'no-issue', reason: `every in-progress issue is held by an actor other than ${session?.actor?.name ?? 'this one'}; no checkpoint written.`, ...ended };
  }
  if (!issueId) return { kind: 'no-issue', reason: 'no issue is in progress; no checkpoint written.', ...ended };

  const activity = activityFor(facts, issueId, folderFocus);
  // The session's thread goes into the comment only where the user lets it (README, "Where the thread goes").
  const withThread = 'trigger' in ask && (ask.thread?.length ?? 0) > 0;
  const destination = withThread ? (facts.threadDestination ?? 'beads') : 'beads';
  const planned = checkpointWrite(activity, destination === 'beads' || !('trigger' in ask) ? ask : { trigger: ask.trigger }, now);
  const thread: ThreadDecision = destination === 'local' ? { destination, full: checkpointWrite(activity, ask, now) } : { destination };
  if (!planned) return { kind: 'nothing-new', issueId, lastCheckpointAt: activity.lastCheckpointAt, thread, ...ended };
  const enqueue: CheckpointComment = {
    key: planned.key,
    kind: 'comment',
    issueId,
    text: planned.comment,
    checkpointAt: now,
    ...(planned.sameWithinMs === undefined ? {} : { sameWithinMs: planned.sameWithinMs }),
    ...('trigger' in ask ? { cumulative: true } : {}),
  };
  return { kind: 'write', issueId, enqueue, thread, ...ended };
}

/**
 * How far back git is read: the earliest window among the issues the decision may choose (the
 * one asked for, else every one in progress). Undefined when no window is known: git is not read.
 */
export function gitReadFrom(facts: Pick<CheckpointFacts, 'now' | 'issueId' | 'inProgress' | 'ledger' | 'details' | 'cliOffsetMs'>): number | undefined {
  const candidates = facts.issueId !== undefined ? [facts.issueId] : (facts.inProgress ?? []).map((issue) => issue.id);
  const windows = candidates.map((id) => windowOf(facts, id)).filter((at): at is number => at !== undefined);
  return windows.length > 0 ? Math.min(...windows) : undefined;
}

export function chooseFocus(inProgress: readonly Issue[], requested: string | undefined): string | undefined {
  if (requested && inProgress.some((issue) => issue.id === requested)) return requested;
  return inProgress[0]?.id;
}

function windowOf(facts: Pick<CheckpointFacts, 'now' | 'ledger' | 'details' | 'cliOffsetMs'>, issueId: string): number | undefined {
  const recorded = facts.ledger ? ledgerOf(facts.ledger, issueId) : undefined;
  const details = facts.details?.find((entry) => entry.id === issueId);
  return checkpointWindowStart(
    {
      ledgerCheckpointAt: recorded?.lastCheckpointAt,
      ledgerStartedAt: recorded?.startedAt,
      comments: details?.comments ?? [],
      claimedAt: details?.startedAt,
      updatedAt: details?.updatedAt,
      createdAt: details?.createdAt,
      cliOffsetMs: facts.cliOffsetMs,
    },
    facts.now,
  );
}

/** The issue's activity since its window: the ledger's, plus (where beads' details were read) what git showed, as this session may name it. */
function activityFor(facts: CheckpointFacts, issueId: string, folderFocus: string | undefined): CheckpointActivity {
  const { now, cliOffsetMs } = facts;
  const recorded = facts.ledger ? ledgerOf(facts.ledger, issueId) : undefined;
  const fromLedger = recorded ? activityOf(recorded) : undefined;
  if (!facts.details) return fromLedger ?? { issueId, files: [], commits: [], edits: 0 };
  const details = facts.details.find((entry) => entry.id === issueId);
  const since = windowOf(facts, issueId);
  const fromGit = facts.git && since !== undefined ? gitWorkSince(facts.git, since) : { files: [], commits: [] };
  const activity: CheckpointActivity = {
    issueId,
    // The ledger's files first: they come most recently touched first.
    files: [...new Set([...(fromLedger?.files ?? []), ...fromGit.files])],
    commits: uniqueCommits([...(fromLedger?.commits ?? []), ...fromGit.commits]),
    // Index for index with the ledger's files, which lead the list.
    fileEdits: fromLedger?.fileEdits,
    edits: fromLedger?.edits,
    lastCheckpointAt: since,
    // No checkpoint yet: the window opened at the claim ("since claimed …") or at the issue's own last change, never "the last checkpoint".
    ...(since !== undefined && recorded?.lastCheckpointAt === undefined && latestCheckpointAt(details?.comments ?? [], now, cliOffsetMs) === undefined
      ? since === onOurClock(details?.startedAt, now, cliOffsetMs)
        ? { sinceClaim: true }
        : since === recorded?.startedAt
          ? { recordingSince: since }
          : { sinceIssueChange: true }
      : {}),
  };
  const state = facts.session?.state;
  return state ? attributed(activity, state, facts.session?.identity, issueId === folderFocus, since) : activity;
}

/**
 * The activity as this session's checkpoint may name it: the session's own files and commits
 * since the last checkpoint, and what the folder recorded that no other session claims when the
 * issue is the folder's focus. Without a session (a person at a terminal), every session's claimed
 * work is still not this checkpoint's to name.
 */
function attributed(activity: CheckpointActivity, state: AgentSessionsState, identity: SessionIdentity | undefined, onFolderFocus: boolean, since: number | undefined): CheckpointActivity {
  const own = ownWork(identity ? state.sessions[sessionKey(identity)] : undefined, since);
  // A session whose transcript was read knows its own files: what else changed is named apart, never as its work.
  const unclaimedApart = identity?.transcript !== undefined;
  const work = attributeWork({ own, folder: { files: activity.files, commits: activity.commits }, others: othersWork(state, identity, since), includeUnclaimed: onFolderFocus, unclaimedApart });
  const counts = new Map(activity.files.map((file, index) => [file, activity.fileEdits?.[index] ?? 1]));
  const fileEdits = work.files.map((file) => counts.get(file) ?? 1);
  const edits = activity.edits === undefined ? undefined : fileEdits.reduce((sum, count) => sum + count, 0);
  return { ...activity, files: work.files, commits: work.commits, fileEdits, edits, ...(work.alsoChanged.length > 0 ? { alsoChanged: work.alsoChanged } : {}) };
}
