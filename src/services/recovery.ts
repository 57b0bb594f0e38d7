import { withLocalThreads, type LocalThread } from '../core/threadDestination';
import type { BeadsBackend } from '../beads/backend';
import { buildIssueCorrection, buildRecoveryContext, type LedgerSummary, type UnsentComment, type RecoveryInput, type RecoveryResult, type Section } from '../core/recovery';
import type { Dialect } from '../core/model';
import type { LastClose } from '../core/next';
import type { GitChange } from '../core/porcelain';
import type { SessionThread } from '../core/transcriptThread';
import { chooseSessionIssue, describeSessionIssueChoice, type Actor, type IssueRule, type LiveSession, type SessionIssueChoice } from '../core/sessionIssue';
import { gitStatus } from '../git/status';
import { utf8Length } from '../core/budget';
import type { MaskedCounts } from '../core/redact';
import { pathPlaces, redactText } from './redaction';
import { section } from './section';
import { loadSnapshot, type ProjectSnapshot } from './snapshot';

export interface RecoveryRequest {
  /** null when the folder is not a beads project. */
  backend: BeadsBackend | null;
  /** Where `git status` runs: the workspace folder, which a `.beads/redirect` may place apart from `backend.root`. */
  workingFolder: string;
  /** The CLI whose syntax the context teaches (the read-only backend still names one). */
  cli: Dialect;
  /** VS Code's focus for the folder (the ledger's), or the caller's pick. */
  focusedId?: string;
  /** The issue expected to be chosen, when the focus does not say (what the last context found): its `show` starts with the lists. */
  expectedId?: string;
  /**
   * Whose context this is: the issues the session's own events bound it to (most binding first)
   * and the actor. With it, the issue is chosen by chooseSessionIssue (src/core/sessionIssue.ts)
   * and the context says which rule chose it; without it, `focusedId` else the newest.
   */
  session?: { bindings: readonly string[]; actor?: Actor; handedBy?: (issueId: string) => IssueRule | undefined; liveSessions?: readonly LiveSession[] };
  /** Ids whose details the last context needed (ProjectSnapshot.contextIds): shown alongside the lists. */
  hints?: readonly string[];
  /** Told of the snapshot the context was made from, for the caller to remember its hints. */
  onSnapshot?: (snapshot: ProjectSnapshot) => void;
  ledger?: LedgerSummary;
  /** The last close not followed up yet (kept beside the ledger), for the one "next". */
  lastClose?: LastClose;
  /** The ledger of whichever issue is chosen, when the caller keeps several (the session's issue may not be the folder's focus). */
  ledgerFor?: (issueId: string) => LedgerSummary | undefined;
  budget: number;
  /** Leave the rules out: bd's own prime already gives them to the agent this is for. */
  omitRules?: boolean;
  /**
   * Add bd's persistent memories (`bd memories --json`, one process beside git status): for an
   * agent bd's prime does not reach, which would otherwise never see them. Never with `omitRules`,
   * whose prime injects them already.
   */
  withMemories?: boolean;
  /** What the agent session this context is for was doing, from its transcript (agent hooks only). */
  thread?: SessionThread;
  /** Threads this machine kept instead of writing them to beads (`beadsRecovery.thread.destination: local`): shown in their checkpoints. */
  localThreads?: readonly LocalThread[];
  /** Comments beads refused or that are still queued (the outbox's record): the context says so, with their words. */
  unsent?: readonly UnsentComment[];
  /** `git status` of `workingFolder`, when the caller started it already (beside its own first steps). */
  uncommitted?: Promise<Section<GitChange[]>>;
  /**
   * The conversation already holds a block, which named this issue (undefined: none): the answer
   * is then a short correction where the session's issue is another now, else nothing (`holdsAlready`).
   */
  conversationHolds?: { issueId: string | undefined };
  now: number;
  /** Also say until when the same inputs give the same block (`sameUntil`): the start block's cache asks. */
  probeSameUntil?: boolean;
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
export interface SessionRecoveryResult extends RecoveryResult {
  /** How the session's issue was chosen (with `request.session`). */
  choice?: SessionIssueChoice;
  /** How many values of each kind the context had masked (never the values). */
  masked?: MaskedCounts;
  /** With `conversationHolds`: the block held names the session's issue still; the markdown is empty. */
  holdsAlready?: boolean;
  /** With `probeSameUntil`: until when (epoch ms) the clock alone leaves this block as it is (sameBlockUntil). */
  sameUntil?: number;
}

/** How far ahead the start block's cache may trust a block, longest first (sameBlockUntil). */
const SAME_BLOCK_PROBES_MS = [15 * 60_000, 5 * 60_000, 60_000, 15_000, 3_000];

/**
 * Until when the block `render` makes at `now` stays the same text as the clock moves on, the
 * other inputs held. Every part of the block that reads the clock (an age, "3m ago"; a threshold,
 * a stale checkpoint, an old trail entry) moves one way only as time passes, so a block that is
 * the same at a later time is the same at every time between: the longest probe that gives the
 * same text is the bound; `now` when none does.
 */
function sameBlockUntil(render: (at: number) => string, now: number): number {
  const block = render(now);
  for (const ahead of SAME_BLOCK_PROBES_MS) if (render(now + ahead) === block) return now + ahead;
  return now;
}

export async function produceRecoveryContext(request: RecoveryRequest): Promise<SessionRecoveryResult> {
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
  const uncommittedQuery = request.uncommitted ?? section(() => gitStatus(request.workingFolder, { timeoutMs: request.timeoutMs, signal }));
  // Memories are an extra: a CLI that cannot list them costs the context nothing but them.
  const memoriesQuery = request.withMemories && !request.omitRules && backend.memories ? backend.memories(signal).catch(() => undefined) : undefined;
  const session = request.session;
  let choice: SessionIssueChoice | undefined;
  const choose = session
    ? (inProgress: Parameters<typeof chooseSessionIssue>[0]['inProgress']) => {
        // The first binding still in progress wins; the rest of the order is the resolver's.
        const binding = session.bindings.find((id) => inProgress.some((issue) => issue.id === id)) ?? session.bindings[0];
        choice = chooseSessionIssue({
          inProgress,
          binding,
          bindingHandedBy: binding === undefined ? undefined : session.handedBy?.(binding),
          actor: session.actor,
          focusedId: request.focusedId,
          liveSessions: session.liveSessions,
        });
        return choice.issueId;
      }
    : undefined;
  const snapshot = await loadSnapshot(backend, {
    // Expected ahead of the lists: the session's own issue, else the folder's focus.
    focusedId: session?.bindings[0] ?? request.focusedId ?? request.expectedId,
    choose,
    hints: request.hints,
    // A context is made once: three processes in two steps at most (a cold start leaves out what they cannot reach).
    oneShot: true,
    alwaysReady: false,
    readyDetails: READY_IN_CONTEXT,
    signal,
  });
  request.onSnapshot?.(snapshot);
  if (request.conversationHolds) return correctionOf(request, request.conversationHolds.issueId, snapshot, choice);
  // Every in-progress issue is another actor's: this one has none to resume, and gets the ready work.
  const inProgress = choice && !choice.issueId && choice.heldByOthers > 0 ? { ok: true as const, value: [] } : snapshot.inProgress;
  const memories = await memoriesQuery;
  const uncommitted = await uncommittedQuery;
  const build = (budget: number, now = request.now) => buildRecoveryContext({
    now,
    budget,
    project: { cli: request.cli, readOnly: backend.readOnly },
    omitRules: request.omitRules,
    memories,
    focusedId: snapshot.focusedId,
    inProgress,
    details: snapshot.details.ok && request.localThreads?.length ? { ok: true, value: withLocalThreads(snapshot.details.value, request.localThreads) } : snapshot.details,
    ready: snapshot.ready,
    ledger: snapshot.focusedId === undefined ? undefined : request.ledger?.issueId === snapshot.focusedId ? request.ledger : request.ledgerFor?.(snapshot.focusedId),
    chosenBy: choice ? describeSessionIssueChoice(choice) : undefined,
    heldByLive: heldWithIssues(choice, snapshot),
    uncommitted,
    ...(request.lastClose ? { lastClose: request.lastClose } : {}),
    ...(request.thread ? { thread: request.thread } : {}),
    ...(request.unsent ? { unsent: request.unsent } : {}),
  });
  // Every room the budget's loop tried: the same texts there take the loop to the same block.
  const rooms: number[] = [];
  const redacted = await redactedWithin((room) => (rooms.push(room), build(room)), request.budget, request.workingFolder);
  return { ...redacted, choice, ...(request.probeSameUntil ? { sameUntil: sameBlockUntil((at) => rooms.map((room) => build(room, at).markdown).join('\0'), request.now) } : {}) };
}

/** A resumed conversation's answer: nothing while the block it holds names the session's issue, else the correction. */
async function correctionOf(request: RecoveryRequest, previousId: string | undefined, snapshot: ProjectSnapshot, choice: SessionIssueChoice | undefined): Promise<SessionRecoveryResult> {
  const issueId = choice ? choice.issueId : snapshot.focusedId;
  const state = issueId === undefined ? 'none' : 'resume';
  if (issueId === previousId) return { markdown: '', bytes: 0, dropped: [], state, focusedId: issueId, choice, holdsAlready: true };
  const issue = issueId === undefined || !snapshot.inProgress.ok ? undefined : (snapshot.inProgress.value.find((candidate) => candidate.id === issueId) ?? { id: issueId, title: '' });
  const build = (budget: number): RecoveryResult => ({
    ...buildIssueCorrection({ cli: request.cli, previousId, issue, chosenBy: choice ? describeSessionIssueChoice(choice) : undefined, budget }),
    state,
    ...(issueId === undefined ? {} : { focusedId: issueId }),
  });
  return { ...(await redactedWithin(build, request.budget, request.workingFolder)), choice };
}

/**
 * The context as it may be shown (src/services/redaction.ts): every secret masked, personal paths
 * made relative. A mask can be longer than what it hides (`PASSWORD=[redacted: password]`), so a
 * context that outgrows its budget is built again smaller by as much, until it fits.
 */
async function redactedWithin(build: (budget: number) => RecoveryResult, budget: number, folder: string): Promise<RecoveryResult & { masked?: MaskedCounts }> {
  const places = pathPlaces(folder);
  let room = budget;
  for (;;) {
    const result = build(room);
    const { text, masked } = await redactText(result.markdown, places);
    const bytes = utf8Length(text);
    const counted = Object.keys(masked).length > 0 ? { masked } : {};
    if (bytes <= budget || room <= 0) return { ...result, markdown: text, bytes, ...counted };
    room = Math.max(0, room - (bytes - budget));
  }
}

/** The issues other live sessions hold, with what the in-progress list says of them. */
function heldWithIssues(choice: SessionIssueChoice | undefined, snapshot: ProjectSnapshot): RecoveryInput['heldByLive'] {
  if (!choice || choice.heldByLive.length === 0 || !snapshot.inProgress.ok) return undefined;
  const issues = new Map(snapshot.inProgress.value.map((issue) => [issue.id, issue]));
  return choice.heldByLive.flatMap((entry) => {
    const issue = issues.get(entry.issueId);
    return issue ? [{ ...entry, issue }] : [];
  });
}
