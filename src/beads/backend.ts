import type { Dialect, Issue, IssueDetails } from '../core/model';

/** Which store answers: one of the CLIs, or the read-only `.beads/issues.jsonl` reader. */
export type BackendKind = Dialect | 'jsonl';

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
  /** In-progress issues, most recently updated first. */
  listInProgress(signal?: AbortSignal): Promise<Issue[]>;
  /** Ready issues in the CLI's own order. */
  listReady(signal?: AbortSignal): Promise<Issue[]>;
  /** Details for several issues in one call; unknown ids are left out, not errors. */
  show(ids: readonly string[], signal?: AbortSignal): Promise<IssueDetails[]>;
  addComment(id: string, text: string, signal?: AbortSignal): Promise<void>;
  claim(id: string, signal?: AbortSignal): Promise<void>;
  close(id: string, reason: string, signal?: AbortSignal): Promise<void>;
}
