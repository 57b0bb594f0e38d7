import { join } from 'node:path';
import type { Dialect, Issue, IssueDetails, Memory } from '../core/model';

/** Which store answers: one of the CLIs, or the read-only `.beads/issues.jsonl` reader. */
export type BackendKind = Dialect | 'jsonl';

/** What a close may ask beyond the reason. */
export interface CloseOptions {
  /** Close despite open blockers or open children (both CLIs' `--force`). */
  force?: boolean;
}

/**
 * One beads project seen through one backend. Every method costs at most one CLI process, so
 * callers can count processes per refresh. Methods reject with a `CliError` (src/beads/errors.ts)
 * or, for the read-only backend's writes, a `ReadOnlyError`.
 */
export interface BeadsBackend {
  readonly kind: BackendKind;
  readonly readOnly: boolean;
  /** The folder that holds `.beads` (what `where --json` reports, less the `.beads` part). */
  readonly root: string;
  /** The store folder detection found (`.beads`, br's `_beads`, or where a `redirect` leads); `<root>/.beads` when absent. */
  readonly beadsDir?: string;
  /** The user's in-progress issues (`isWorkInProgress`: in_progress or hooked, no wisps), most recently updated first. */
  listInProgress(signal?: AbortSignal): Promise<Issue[]>;
  /** Ready issues in the CLI's own order. */
  listReady(signal?: AbortSignal): Promise<Issue[]>;
  /** Details for several issues in one call; unknown ids are left out, not errors. */
  show(ids: readonly string[], signal?: AbortSignal): Promise<IssueDetails[]>;
  /** Writes reject with a `refused` CliError, carrying the CLI's reason, when the CLI declines them. */
  addComment(id: string, text: string, signal?: AbortSignal): Promise<AddedComment | void>;
  claim(id: string, signal?: AbortSignal): Promise<void>;
  close(id: string, reason: string, signal?: AbortSignal, options?: CloseOptions): Promise<void>;
  /** bd's persistent memories (`bd memories --json`), sorted by key; absent where there are none to ask for (br, the file). */
  memories?(signal?: AbortSignal): Promise<Memory[]>;
  /**
   * The CLI's version as it reports it; undefined when it does not say. Absent on the read-only
   * reader. Asked once per backend (one process, `version --json` in both CLIs), then remembered.
   */
  version?(): Promise<string | undefined>;
  /**
   * When the ready list next changes by the clock alone, after `now`: the earliest deferral still
   * ahead (`{}` when none is). Only a backend that computes the list itself (the file reader)
   * knows it; absent where the CLI computes it, and undefined when the next read would not come
   * from the file. The start block's cache (services/startBlockCache.ts) expires there.
   */
  readyChangesAfter?(now: number, signal?: AbortSignal): Promise<{ at?: number } | undefined>;
}

/** What a CLI printed of a comment it added: its stamp (the CLI's clock), when it gave one. */
export interface AddedComment {
  createdAt?: string;
}

/**
 * Where a backend's store is: the folder detection (findBeadsDir, src/beads/detect.ts) found. The
 * one way, after detection, to know where `.beads` is: never join `.beads` to a root by hand.
 */
export function storeFolderOf(backend: Pick<BeadsBackend, 'root' | 'beadsDir'>): string {
  return backend.beadsDir ?? join(backend.root, '.beads');
}
