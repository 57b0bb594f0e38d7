import type { BeadsBackend } from '../beads/backend';
import { buildRecoveryContext, type LedgerSummary, type RecoveryResult } from '../core/recovery';
import type { Dialect } from '../core/model';
import type { LastClose } from '../core/next';
import { gitStatus } from '../git/status';
import { section } from './section';
import { loadSnapshot, type ProjectSnapshot } from './snapshot';

export interface RecoveryRequest {
  /** null when the folder is not a beads project. */
  backend: BeadsBackend | null;
  /** Where `git status` runs: the workspace folder, which a `.beads/redirect` may place apart from `backend.root`. */
  workingFolder: string;
  /** The CLI whose syntax the context teaches (the read-only backend still names one). */
  cli: Dialect;
  focusedId?: string;
  /** Ids whose details the last context needed (ProjectSnapshot.contextIds): shown alongside the lists. */
  hints?: readonly string[];
  /** Told of the snapshot the context was made from, for the caller to remember its hints. */
  onSnapshot?: (snapshot: ProjectSnapshot) => void;
  ledger?: LedgerSummary;
  /** The last close not followed up yet (kept beside the ledger), for the one "next". */
  lastClose?: LastClose;
  budget: number;
  /** Leave the rules out: bd's own prime already gives them to the agent this is for. */
  omitRules?: boolean;
  now: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** How many ready items the "nothing in progress" state lists with their parent and unblocks. */
const READY_IN_CONTEXT = 5;

/**
 * Gathers everything the recovery context needs (beads queries and `git status` concurrently:
 * at most three CLI processes in two dependent steps, see loadSnapshot) and formats it. Every surface — clipboard, chat, tools, participant, command line, hooks —
 * goes through here, so they all print the same text.
 */
export async function produceRecoveryContext(request: RecoveryRequest): Promise<RecoveryResult> {
  const { backend, signal } = request;
  if (!backend) {
    return buildRecoveryContext({
      now: request.now,
      budget: request.budget,
      project: null,
      inProgress: { ok: true, value: [] },
      details: { ok: true, value: [] },
      ready: { ok: true, value: [] },
      uncommitted: { ok: true, value: [] },
    });
  }
  const uncommittedQuery = section(() => gitStatus(request.workingFolder, { timeoutMs: request.timeoutMs, signal }));
  const snapshot = await loadSnapshot(backend, {
    focusedId: request.focusedId,
    hints: request.hints,
    // A context is made once: three processes in two steps at most (a cold start leaves out what they cannot reach).
    oneShot: true,
    alwaysReady: false,
    readyDetails: READY_IN_CONTEXT,
    signal,
  });
  request.onSnapshot?.(snapshot);
  return buildRecoveryContext({
    now: request.now,
    budget: request.budget,
    project: { cli: request.cli, readOnly: backend.readOnly },
    omitRules: request.omitRules,
    focusedId: snapshot.focusedId,
    inProgress: snapshot.inProgress,
    details: snapshot.details,
    ready: snapshot.ready,
    ledger: request.ledger?.issueId === snapshot.focusedId ? request.ledger : undefined,
    uncommitted: await uncommittedQuery,
    ...(request.lastClose ? { lastClose: request.lastClose } : {}),
  });
}
