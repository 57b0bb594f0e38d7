// Where a session's thread (its request, failing test, question and next step, read from its
// transcript) goes, as the user chose with `beadsRecovery.thread.destination` (README, "Where the
// thread goes"): into the pre-compaction checkpoint's beads comment, shared with everyone the
// store reaches (`beads`, the default); kept on this machine only, beside the ledger, and shown in
// this machine's contexts (`local`); or nowhere, the transcript not read for it at all (`off`).
// Pure: the choice is read from the settings VS Code writes beside the sessions, or the
// environment, by src/services/agentSessions.ts.

import type { Comment, IssueDetails } from './model';

export const THREAD_DESTINATIONS = ['beads', 'local', 'off'] as const;
export type ThreadDestination = (typeof THREAD_DESTINATIONS)[number];
export const DEFAULT_THREAD_DESTINATION: ThreadDestination = 'beads';

/** A destination as written by a person (a setting, `BEADS_RECOVERY_THREAD`); undefined for anything else. */
export function parseThreadDestination(value: unknown): ThreadDestination | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return (THREAD_DESTINATIONS as readonly string[]).includes(word) ? (word as ThreadDestination) : undefined;
}

/**
 * A pre-compaction checkpoint whose thread stayed on this machine (`local`): the comment as it
 * went to beads (`shared`, without the thread; absent when nothing but the thread was new) and as
 * it reads with the thread (`full`). Both are redacted like every checkpoint.
 */
export interface LocalThread {
  issueId: string;
  /** Epoch ms of the checkpoint. */
  at: number;
  shared?: string;
  full: string;
}

/** The author a kept thread shows under when no comment of beads carries it. */
export const LOCAL_THREAD_AUTHOR = 'this machine only';

/**
 * The issues' comments as this machine's contexts show them: the comment that went to beads
 * without its thread reads with it again; a thread with no such comment (nothing else was new,
 * or its write is still queued) is shown as a comment of its own, at its time.
 */
export function withLocalThreads(details: readonly IssueDetails[], kept: readonly LocalThread[]): IssueDetails[] {
  if (kept.length === 0) return [...details];
  return details.map((issue) => {
    const mine = kept.filter((thread) => thread.issueId === issue.id);
    if (mine.length === 0) return issue;
    const shared = new Map(mine.flatMap((thread) => (thread.shared === undefined ? [] : [[thread.shared.trim(), thread.full] as const])));
    const comments: Comment[] = issue.comments.map((comment) => {
      const full = shared.get(comment.text.trim());
      return full === undefined ? comment : { ...comment, text: full };
    });
    const shown = new Set(comments.map((comment) => comment.text));
    for (const thread of mine) {
      if (!shown.has(thread.full)) comments.push({ id: `local-thread-${thread.at}`, author: LOCAL_THREAD_AUTHOR, text: thread.full, createdAt: new Date(thread.at).toISOString() });
    }
    return { ...issue, comments };
  });
}

/** The threads kept on this machine (`<git-dir>/beads-recovery/threads.json`). */
export interface LocalThreadsState {
  version: 1;
  threads: LocalThread[];
}

/** Kept per work tree: the newest this many; an older thread is already in its issue's later ones. */
const KEPT_THREADS = 50;

export function emptyLocalThreads(): LocalThreadsState {
  return { version: 1, threads: [] };
}

/** The state as read from disk: every entry that reads is kept, anything else dropped. */
export function normalizeLocalThreads(value: unknown, problems: string[] = []): LocalThreadsState {
  const state = emptyLocalThreads();
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== 1 || !Array.isArray((value as { threads?: unknown }).threads)) {
    if (value !== undefined) problems.push('it is not a threads file of this version; it starts again');
    return state;
  }
  for (const raw of (value as { threads: unknown[] }).threads) {
    const entry = raw as Partial<Record<keyof LocalThread, unknown>> | null;
    if (entry && typeof entry.issueId === 'string' && entry.issueId !== '' && typeof entry.at === 'number' && Number.isFinite(entry.at) && typeof entry.full === 'string') {
      state.threads.push({ issueId: entry.issueId, at: entry.at, full: entry.full, ...(typeof entry.shared === 'string' ? { shared: entry.shared } : {}) });
    } else problems.push('a kept thread could not be read; it was dropped');
  }
  return state;
}

/** The state with `thread` kept, newest last; the same checkpoint again replaces its entry. */
export function keepLocalThread(state: LocalThreadsState, thread: LocalThread): LocalThreadsState {
  const others = state.threads.filter((kept) => !(kept.issueId === thread.issueId && kept.full === thread.full));
  return { version: 1, threads: [...others, thread].slice(-KEPT_THREADS) };
}
