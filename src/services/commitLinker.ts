import { advanceReflog, cleanSubject, isLinked, isSubjectLinked, recordCommit, rememberLinked } from '../core/ledger';
import type { ReflogCursor } from '../core/reflog';
import { readReflogTail, type ReflogReadMode } from '../git/reflog';
import { describeCommits, headReflogPath, type CommitDescription, type GitRepository } from '../git/repo';
import type { GitOptions } from '../git/runGit';
import type { LedgerStore } from './ledgerStore';
import { errorMessage } from '../core/errors';
import { shortCommitHash } from '../core/commitHash';

/** Whom commits made now belong to. `known: false` while the in-progress issues have not been read yet. */
export type CommitFocus = { known: false } | { known: true; issueId: string | undefined };

export interface CommitLinkerOptions {
  store: LedgerStore;
  repository: GitRepository;
  focus: () => CommitFocus;
  now: () => number;
  git: GitOptions;
  log?: (message: string) => void;
}

export interface LinkOutcome {
  mode: ReflogReadMode | 'waiting';
  /** Commits this check recorded for the next checkpoint, e.g. "a1b2c3d feat: parser". */
  linked: string[];
  /** Commits recognised and left without a comment: rewrites of linked work, or made with nothing in progress. */
  passed: number;
  bytesRead: number;
  /** git processes started (one per check with new commits, none otherwise). */
  processes: number;
}

const WAITING: LinkOutcome = { mode: 'waiting', linked: [], passed: 0, bytesRead: 0, processes: 0 };

/**
 * Links new commits in the HEAD reflog to the focused in-progress issue, whatever made the commit:
 * each is recorded in the issue's ledger, and the next checkpoint (manual, automatic, before a
 * recovery context, on a focus change, before a close) names it in its `- Commits:` line. Nothing
 * is written to beads here, so a commit does not leave beads' tracked files changed behind it.
 * The reflog decides what is new; file watchers, terminal commands and the git extension only say
 * "look now". Exactly once: the check and the record (commit, linked hash, reflog cursor) are one
 * write under the ledger store's lock, against the hashes every window has linked; the
 * checkpoint's key covers its commits (see Checkpoints). Amends, rebase picks and cherry-picks are
 * linked only when their subject is not already linked to the issue (a rebase does not repeat its
 * commits); checkouts, resets and fast-forwards are moves, not commits, and say nothing.
 */
export class CommitLinker {
  private running: Promise<unknown> = Promise.resolve();
  private queued: Promise<LinkOutcome> | undefined;
  readonly reflogFile: string;

  constructor(private readonly options: CommitLinkerOptions) {
    this.reflogFile = headReflogPath(options.repository);
  }

  /**
   * Reads the reflog and links what is new. Calls that arrive while a check runs share one more
   * check after it, so a burst of hints costs at most two reads.
   */
  check(): Promise<LinkOutcome> {
    if (this.queued) return this.queued;
    const next = this.running.then(() => {
      this.queued = undefined;
      return this.checkOnce();
    });
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  private async checkOnce(): Promise<LinkOutcome> {
    const { store, repository } = this.options;
    const focus = this.options.focus();
    if (!focus.known) return WAITING;

    const before = store.state.reflog;
    const read = await readReflogTail(this.reflogFile, before);
    const commits = read.entries.filter((entry) => entry.effect !== 'moved' && !isLinked(store.state, entry.newHash));
    const outcome: LinkOutcome = { mode: read.mode, linked: [], passed: 0, bytesRead: read.bytesRead, processes: 0 };
    if (commits.length === 0) {
      if (!sameCursor(before, read.cursor)) await store.update((state) => advanceReflog(state, read.cursor));
      return outcome;
    }

    const issueId = focus.issueId;
    let described = new Map<string, CommitDescription>();
    if (issueId !== undefined) {
      outcome.processes += 1;
      try {
        described = await describeCommits(repository.root, unique(commits.map((entry) => entry.newHash)), this.options.git);
      } catch (error) {
        // A commit already gone (amended away, gc'd) or git failing: the reflog's own words will do.
        this.options.log?.(`git log could not describe new commits: ${errorMessage(error)}`);
      }
    }

    await store.update((fresh) => {
      let state = fresh;
      for (const entry of read.entries) {
        if (entry.effect === 'moved' || isLinked(state, entry.newHash)) continue;
        if (issueId === undefined) {
          outcome.passed += 1;
          continue;
        }
        const description = described.get(entry.newHash) ?? { subject: entry.subject };
        const subject = cleanSubject(description.subject) || '(no subject)';
        if (entry.effect === 'rewritten' && isSubjectLinked(state, issueId, subject)) {
          state = rememberLinked(state, entry.newHash);
          outcome.passed += 1;
        } else {
          state = recordCommit(state, issueId, { hash: entry.newHash, subject, at: this.options.now() }, this.options.now());
          outcome.linked.push(`${shortCommitHash(entry.newHash)} ${subject}`);
        }
      }
      return advanceReflog(state, read.cursor);
    });
    return outcome;
  }
}

function sameCursor(a: ReflogCursor | undefined, b: ReflogCursor): boolean {
  return a !== undefined && a.offset === b.offset && a.inode === b.inode && a.head === b.head && a.lastTimestamp === b.lastTimestamp && a.rewrites === b.rewrites;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
