// Reconciling the ledger with `git status`: a file watcher can miss an event (seen once in about a
// hundred writes from outside the editor), so on refresh the uncommitted files are compared with
// what the focused issue's ledger recorded. Only work done while that issue was focused counts:
// a file already dirty before the claim (or before the last checkpoint) is not this work.

import { withEntry } from './idRecord';
import { ledgerOf, recordFileChange, type Ledger, type LedgerState } from './ledger';

/** An uncommitted file, relative to the workspace folder; no modification time when it is gone. */
export interface DirtyFile {
  path: string;
  modifiedMs?: number;
}

/** The uncommitted files seen by the last reconciliation of one focus (the issue and since when it is focused). */
export interface DirtyBaseline {
  issueId: string;
  focusedAt: number | undefined;
  paths: ReadonlySet<string>;
}

export interface MissedFilesInput {
  issueId: string;
  ledger: Ledger | undefined;
  /** When the focus moved to `issueId` (the claim, or the user's pick). */
  focusedAt: number | undefined;
  dirty: readonly DirtyFile[];
  /** The last reconciliation's view, if it was of this same focus. */
  baseline: DirtyBaseline | undefined;
  now: number;
}

/**
 * The uncommitted files the ledger should hold and does not, with when they changed:
 * - a file modified after the focus moved to the issue and after its last checkpoint (a file
 *   modified before was someone else's work, or is in that checkpoint already);
 * - a deleted file (no time to compare), or any file when the focus has no time, only when it was not missing at the last reconciliation
 *   of this same focus: its deletion happened since, while the issue was focused.
 */
export function missedFiles(input: MissedFilesInput): { path: string; at: number }[] {
  const { ledger, now } = input;
  // Without the time of the focus (a ledger written before it was kept) only newly dirty files count.
  const floor = input.focusedAt === undefined ? undefined : Math.max(input.focusedAt, ledger?.lastCheckpointAt ?? 0);
  const listed = new Set(ledger?.files ?? []);
  // A capped ledger forgot its oldest files: one not modified since them was probably recorded.
  const cappedBefore = ledger && ledger.moreFiles > 0 ? Math.min(...ledger.touched) : undefined;
  const sameFocus = input.baseline !== undefined && input.baseline.issueId === input.issueId && input.baseline.focusedAt === input.focusedAt;
  const missed: { path: string; at: number }[] = [];
  for (const file of input.dirty) {
    if (listed.has(file.path)) continue;
    if (file.modifiedMs === undefined || floor === undefined) {
      if (sameFocus && !input.baseline!.paths.has(file.path)) missed.push({ path: file.path, at: now });
      continue;
    }
    if (file.modifiedMs <= floor || (cappedBefore !== undefined && file.modifiedMs <= cappedBefore)) continue;
    missed.push({ path: file.path, at: Math.min(file.modifiedMs, now) });
  }
  return missed;
}

/**
 * Records the missed files on the issue at the times they changed, oldest first so the ledger's
 * order of recency holds; the last sign of life never moves back to an older file's time.
 */
export function recordMissedFiles(state: LedgerState, issueId: string, missed: readonly { path: string; at: number }[]): LedgerState {
  if (missed.length === 0) return state;
  const before = ledgerOf(state, issueId)?.lastActivityAt;
  const next = [...missed].sort((a, b) => a.at - b.at).reduce((current, file) => recordFileChange(current, issueId, file.path, file.at), state);
  const ledger = ledgerOf(next, issueId) as Ledger;
  const lastActivityAt = Math.max(before ?? -Infinity, ledger.lastActivityAt ?? -Infinity);
  return { ...next, ledgers: withEntry<Ledger>(next.ledgers, issueId, { ...ledger, lastActivityAt }) };
}
