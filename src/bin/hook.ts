// `beads-recovery hook <agent> <event>`: the one command every installed agent hook runs. It reads
// the agent's JSON from stdin, does what the event calls for (checkpoint before a compaction, hand
// the recovery context over after one) and answers in that agent's shape. It never fails the
// agent: under the hook guard's deadline, a hung CLI gives way to the read-only reading of
// .beads/issues.jsonl, and anything else to `{}`, which every agent takes as "go on".
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { findBeadsDir } from '../beads/detect';
import { blockDigest, heldBlockDigest, withBlockMark } from '../core/blockMark';
import { markerDir, markerFile } from './hookMarker';
import { blockBudget, claimDelivery, claimStart, deliveryFor, forgetDeliveries, handOver, hookSession, lastDelivery, prepareMarkers, readMarker, rememberDelivery, SAME_CONVERSATION_WINDOW_MS, writeMarker, type HeldIssue, type Produced } from './hookDelivery';
import { claimCompressionCheckpoint, compressionCheckpointFile, readGeminiHistory } from './hookGemini';
import { fnv1a } from '../core/hash';
import { isAgentId, type AgentId } from '../core/hookConfig';
import { AFTER_COMPACTION_PREFIX, hookPlan, hookResponse, TRANSCRIPT_BOUNDARIES, type HookInput, type HookPlan } from '../core/hookProtocol';
import { runCheckpoint, type CheckpointFlowResult } from '../services/checkpointFlow';
import { folderSettings } from '../services/folderSettings';
import { pathPlaces, redactText } from '../services/redaction';
import { errorMessage } from '../core/errors';
import { transcriptRecords } from '../core/transcriptLines';
import { compactedInThisRun } from '../core/transcriptCopilot';
import { readTranscriptTail } from '../services/transcriptTail';
import { compactionInstructions, threadFactLines } from '../core/threadFacts';
import type { SessionThread } from '../core/transcriptThread';
import { keepCompactSummary } from '../services/transcripts/compactSummaries';
import type { SessionIdentity } from '../core/agentSessions';
import { AgentSessionsStore, endObservedSession, locateSessions, threadDestinationIn } from '../services/agentSessions';
import { readSessionThread, transcriptAgentOf } from '../services/transcripts/sessionThread';
import { checkpointLine } from './checkpoint';
import { recoveryContextFor } from './context';
import { guardHook, hookDeadlineMs } from './hookGuard';
import { hookFolder, readHookInput } from './hookInput';

export interface HookIo {
  readInput?: () => Promise<HookInput | undefined>;
  env?: NodeJS.ProcessEnv;
  /** Notes for the agent's log (stderr), never its stdout. */
  note?: (line: string) => void;
  budget?: number;
  /** This run's id, when its entry gave it one already (hookStart.ts claims under it). */
  runId?: string;
  /** When the hook process began (epoch ms): the deadline counts from then. */
  startedAt?: number;
}

/** Runs one hook and returns what goes to stdout; never throws, never outlives the hook deadline. */
export async function runHook(agentArg: string | undefined, event: string | undefined, io: HookIo = {}): Promise<string> {
  const note = io.note ?? ((line: string) => process.stderr.write(`beads-recovery: ${line}\n`));
  if (!isAgentId(agentArg) || !event) {
    note(`hook takes an agent (claude, copilot, codex, cursor, gemini, opencode) and an event; got '${agentArg ?? ''}' '${event ?? ''}'.`);
    return '{}';
  }
  const agent = agentArg;
  const env = io.env ?? process.env;
  const started = io.startedAt ?? Date.now();
  // Names this run's claim on a delivery, so its own fallback (after a slow first try) is not
  // taken for a second hook.
  const runId = io.runId ?? `${process.pid}-${randomUUID()}`;
  const plan = hookPlan(agent, event);
  const input = await (io.readInput ?? readHookInput)();
  const cwd = hookFolder(input, env);
  // Outside a beads project a hook says nothing at all: no context, no checkpoint, no note.
  const found = await findBeadsDir(cwd).catch(() => undefined);
  if (found === undefined) return hookResponse(agent, event, undefined);
  const { root, holder } = found;
  const session = hookSession(agent, input, env);
  // What this session was doing, from its own transcript: read once, for the checkpoint and the context.
  // With `beadsRecovery.thread.destination: off` the transcript is not read for it at all.
  let thread: Promise<SessionThread | undefined> | undefined;
  const threadOf = () =>
    (thread ??= threadDestinationIn(cwd, env, { timeoutMs: folderSettings(env).timeoutMs, note })
      .then((destination) => {
        if (destination !== 'off') return readSessionThread({ transcript: input?.transcript, agent: transcriptAgentOf(agent), conversation: input?.session ?? input?.transcript, session: input?.session, folder: cwd, project: holder, note });
        note("the session's thread is off (beadsRecovery.thread.destination): its transcript was not read for it.");
        return undefined;
      })
      .catch(() => undefined));
  // `lateAfterCompaction`: the block comes after a compaction, on a later tool call or prompt.
  const context = async (trusted: boolean, signal: AbortSignal, lateAfterCompaction: boolean, conversationHolds?: HeldIssue): Promise<Produced> => {
    const prefix = lateAfterCompaction ? AFTER_COMPACTION_PREFIX : '';
    // Each agent's hook takes what it accepts (core/budget.ts); room for the line that marks the block.
    const budget = blockBudget(agent, prefix, io.budget);
    // The thread is what a compaction took: a resumed or new conversation holds its own (or has none).
    const afterCompaction = input?.source === 'compact' || lateAfterCompaction;
    // A block with no thread and no held block is a start's: it may come from the start block's cache (services/startBlockCache.ts).
    const result = await recoveryContextFor(cwd, { budget, env, trusted, forAgent: agent, signal, warn: note, session, thread: afterCompaction ? await threadOf() : undefined, conversationHolds, startCache: env.BEADS_RECOVERY_START_CACHE !== 'off' });
    return { markdown: result.markdown, issueId: result.choice ? result.choice.issueId : result.focusedId, holdsAlready: result.holdsAlready === true };
  };
  // The block a new session's start would be given (keepNextStart): a session no agent has, recorded nowhere.
  const nextStart = (signal: AbortSignal) =>
    recoveryContextFor(cwd, { budget: blockBudget(agent, '', io.budget), env, trusted: true, forAgent: agent, signal, session: { agent, sessionId: `next-start-${runId}` }, startCache: true, ahead: true });
  const run: Omit<HookRun, 'signal' | 'deadline'> = { cwd, root, holder, input, session, env, note, runId, thread: threadOf, nextStart };
  const deadlineMs = Math.max(0, hookDeadlineMs(env) - (Date.now() - started));
  return guardHook(
    {
      answer: (signal, deadline) => handle(agent, event, plan, { ...run, signal, deadline }, (late, holds) => context(true, signal, late, holds)),
      // No CLI at all: the same hand-over from the read-only reading, when the full one failed or ran late.
      fallback: (_reason, signal) =>
        handle(agent, event, { ...plan, checkpoint: false, checkpointCompression: false, arm: false, disarm: false }, { ...run, signal, deadline: started + hookDeadlineMs(env) }, (late, holds) => context(false, signal, late, holds)),
      last: () => hookResponse(agent, event, undefined),
    },
    { deadlineMs, warn: note },
  );
}

interface HookRun {
  cwd: string;
  /** The beads project's root (the folder holding the store, `.beads` after any redirect). */
  root: string;
  /** The folder where `.beads` was found, which names the one-shot marker (hookMarker.ts). */
  holder: string;
  input: HookInput | undefined;
  /** The agent session the hook runs for (hookSession). */
  session: SessionIdentity | undefined;
  env: NodeJS.ProcessEnv;
  note: (line: string) => void;
  runId: string;
  /** The session's thread, from its transcript (read on first use). */
  thread: () => Promise<SessionThread | undefined>;
  /** Makes the block the next new session's start will be given, and keeps it in the start cache. */
  nextStart: (signal: AbortSignal) => Promise<unknown>;
  /** The hook guard's: aborted at the deadline, which ends every CLI and git process started under it. */
  signal: AbortSignal;
  /** When the hook must have answered (epoch ms). */
  deadline: number;
}

/**
 * Produces the recovery context; `lateAfterCompaction`: it comes after a compaction, on a later
 * tool call or prompt; `conversationHolds`: the conversation holds a block that named this issue,
 * so only a correction (or nothing) is due.
 */
type Produce = (lateAfterCompaction: boolean, conversationHolds?: HeldIssue) => Promise<Produced>;


async function handle(agent: AgentId, event: string, plan: HookPlan, run: HookRun, produce: Produce): Promise<string> {
  const marker = markerFile(agent, run.holder);
  await prepareMarkers(plan, marker, run);
  if (plan.endSession) {
    await endSessionHere(run);
    await keepNextStart(run);
    return hookResponse(agent, event, undefined);
  }
  if (plan.arm) await writeMarker(marker, JSON.stringify({ session: run.input?.session, transcript: run.input?.transcript, armedAt: new Date().toISOString() }), run);
  const checkpointed = plan.checkpoint ? await checkpointForCompaction(run) : undefined;
  // Claude Code's compaction prompt takes this text as is: a JSON `{}` would land there as noise.
  if (plan.steerCompaction && checkpointed) {
    // Text that goes into a conversation passes the one redaction step, as every context does.
    const instructions = compactionInstructions(checkpointed.issueId, await run.thread());
    return instructions ? (await redactText(instructions, pathPlaces(run.cwd))).text : '';
  }
  if (plan.checkpointCompression) await checkpointCompression(run);
  if (plan.inject === 'if-missing') return handOverIfMissing(agent, event, plan, run, produce);
  const conversation = run.input?.session ?? run.input?.transcript;
  if (plan.keepSummary && conversation && run.input?.compactSummary) {
    await keepCompactSummary(conversation, run.input.compactSummary).catch((error: unknown) => run.note(`${errorMessage(error)}: the compaction's summary was not kept.`));
  }
  if (plan.inject === 'never') return hookResponse(agent, event, undefined);
  if (plan.inject === 'if-armed' && !(await armedFor(marker, run.input?.session, run))) return hookResponse(agent, event, undefined);
  if (plan.sameRunOnly && !(await armedInThisRun(marker, run))) return hookResponse(agent, event, undefined);
  if (plan.inject === 'always' && !(await claimStart(run))) return hookResponse(agent, event, undefined);
  const held = run.input?.source === 'resume' ? await heldBlock(agent, run) : undefined;
  if (held) {
    const corrected = await correctionOf(agent, event, run, held.named, produce);
    if (corrected !== undefined) return corrected;
    run.note('this resumed conversation already holds the recovery context; not twice.');
    // Nothing went out, so nothing is claimed: a later resume asks the transcript again.
    await rm(deliveryFor(run).file, { force: true });
    return hookResponse(agent, event, undefined);
  }
  const produced = await produce(plan.inject === 'if-armed');
  // Consumed only once the context is in hand, so a failure leaves it for the next tool call.
  if (plan.inject === 'if-armed') await rm(marker, { force: true });
  return handOver(agent, event, run, produced, plan.inject === 'if-armed');
}

/**
 * The answer to a conversation that holds a block which named `named` (undefined: not known): a
 * short correction where the session's issue is another now (README "Which issue is this
 * session's?"), remembered as the block it then holds; undefined when nothing is due.
 */
async function correctionOf(agent: AgentId, event: string, run: HookRun, named: HeldIssue | undefined, produce: Produce): Promise<string | undefined> {
  const correction = named ? await produce(false, named) : undefined;
  if (!correction || correction.holdsAlready) return undefined;
  run.note(`this conversation holds a block naming ${named?.issueId ?? 'no issue'}; the session's issue is now ${correction.issueId ?? 'none'}: a correction, not the whole block.`);
  await rememberDelivery(run, blockDigest(correction.markdown), correction.issueId);
  return hookResponse(agent, event, withBlockMark(correction.markdown));
}

/**
 * The block the conversation holds, if any: read from the agent's own transcript when the hook
 * input names it (a mark after the last compaction boundary), else from what the last delivery
 * to this session recorded (cleared by a compaction). `named` is the issue that block handed over,
 * from the session's record of its last delivery, when that record is of this very block.
 */
async function heldBlock(agent: AgentId, run: HookRun): Promise<{ named?: HeldIssue } | undefined> {
  const record = await lastDelivery(run);
  const transcript = run.input?.transcript ? await readTranscriptTail(run.input.transcript) : undefined;
  if (transcript !== undefined) {
    const digest = heldBlockDigest(transcript, TRANSCRIPT_BOUNDARIES[agent]);
    if (digest === undefined) return undefined;
    return record?.digest === digest ? { named: record.named } : {};
  }
  return record && { named: record.named };
}


/** The agent's end-of-session hook: what its transcript shows is counted, and the session holds its issue no longer. */
async function endSessionHere(run: HookRun): Promise<void> {
  const identity = run.session;
  const location = identity ? await locateSessions(run.cwd, { timeoutMs: Math.max(0, run.deadline - Date.now()), signal: run.signal }) : undefined;
  if (!identity || !location) return;
  await endObservedSession(new AgentSessionsStore(location), identity, { now: Date.now(), env: run.env });
}

/**
 * The longest a session's end spends on the next start's block: Claude Code gives all its
 * SessionEnd hooks 1.5 s together, and the agent's exit waits for them.
 */
const NEXT_START_MS = 1_000;

/**
 * A session's end makes the block the next new session's start will be given, once this session
 * no longer holds its issue: that start then checks the kept block by its stamps rather than
 * computing it, unless something changed in between. A block made too late, or from a CLI that
 * failed, is not kept (keepStart's own conditions); the start computes it then, as before.
 */
async function keepNextStart(run: HookRun): Promise<void> {
  if (run.env.BEADS_RECOVERY_START_CACHE === 'off') return;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.min(NEXT_START_MS, Math.max(0, run.deadline - Date.now())));
  const onAbort = () => stop.abort();
  run.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await run.nextStart(stop.signal);
  } catch (error) {
    run.note(`the next start's block was not made ahead: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
    run.signal.removeEventListener('abort', onAbort);
  }
}

async function checkpointForCompaction(run: HookRun): Promise<CheckpointFlowResult> {
  // The checkpoint flow itself, under this hook's signal and deadline (no second guard, no argv).
  const result = await runCheckpoint(
    // The thread is read by the flow's gather, beside the sessions and beads (read once: the steering below reuses it).
    { ask: { trigger: 'pre-compaction' }, thread: async () => threadLinesOf(await run.thread()), session: run.session, place: { kind: 'folder', cwd: run.cwd, env: run.env === process.env ? undefined : run.env, note: run.note } },
    { signal: run.signal, deadline: run.deadline },
  );
  run.note(checkpointLine(result));
  // The compaction drops what the conversation held: the start that follows it is a delivery of its own.
  await forgetDeliveries(run);
  return result;
}

/**
 * Gemini CLI (its PreCompress comes before every model request, compressing or not): the request
 * about to go out tells. Its session's chat file holds the history it sends; a compression there
 * that has no checkpoint yet gets its one now. The chat file keeps the turns the compression
 * replaced, so the checkpoint reads the same thread it would have before.
 */
async function checkpointCompression(run: HookRun): Promise<void> {
  const { compression } = await readGeminiHistory(run.input?.transcript);
  if (compression === undefined) return;
  const claimed = await claimCompressionCheckpoint(compressionCheckpointFile(run.holder, run.input?.session, compression)).catch((error: unknown) => {
    run.note(`${errorMessage(error)}: no checkpoint of this compression, which could not be claimed once.`);
    return false;
  });
  if (!claimed) return;
  await checkpointForCompaction(run);
}

/**
 * Gemini CLI: the block goes with this prompt (BeforeAgent) or tool result (AfterTool) when the
 * history the session sends holds none: a new session, a compression that took it. A resume keeps
 * what these hooks gave (it is part of a prompt or a tool result), so a resumed session that
 * holds a block gets no second one; a prompt (`correctHeld`) gets a correction instead when the
 * session's issue moved since the newest block it holds (a claim made after that block). Tool
 * calls of one model turn run side by side before any of their results is in the chat file: the
 * first to claim the history as it stands hands the block over.
 */
async function handOverIfMissing(agent: AgentId, event: string, plan: HookPlan, run: HookRun, produce: Produce): Promise<string> {
  const history = await readGeminiHistory(run.input?.transcript);
  if (history.heldBlock !== undefined) {
    if (!plan.correctHeld) return hookResponse(agent, event, undefined);
    // The issue that block named, from this session's record of it: a block it does not match (an older version's) names none to compare.
    const record = await lastDelivery(run);
    return (await correctionOf(agent, event, run, record?.digest === history.heldBlock ? record.named : undefined, produce)) ?? hookResponse(agent, event, undefined);
  }
  const key = `${run.root}\0${run.input?.session ?? ''}\0${history.compression ?? ''}\0${history.turns}`;
  if (!(await claimDelivery({ file: path.join(markerDir(), `${fnv1a(key)}.delivered`), windowMs: SAME_CONVERSATION_WINDOW_MS }, run))) {
    run.note('the recovery context already went with this turn of the session; not twice.');
    return hookResponse(agent, event, undefined);
  }
  const late = history.compression !== undefined;
  // Remembered as what the history now holds (Gemini CLI keeps a start's block): a later prompt compares the session's issue with it.
  return handOver(agent, event, run, await produce(late), late);
}

/** The thread's lines for the pre-compaction checkpoint; none without a thread. */
function threadLinesOf(thread: SessionThread | undefined): string[] | undefined {
  const lines = thread ? threadFactLines(thread) : [];
  return lines.length > 0 ? lines : undefined;
}



/**
 * Whether the run that armed the marker is still the one running, read from the session log its
 * PreCompact named (Copilot CLI's events file): no log, or one that is not Copilot CLI's, says no.
 */
async function armedInThisRun(marker: string, run: Pick<HookRun, 'note'>): Promise<boolean> {
  const text = await readMarker(marker, run);
  let transcript: unknown;
  try {
    transcript = text === undefined ? undefined : (JSON.parse(text) as { transcript?: unknown }).transcript;
  } catch {
    return false;
  }
  if (typeof transcript !== 'string') return false;
  const tail = await readTranscriptTail(transcript);
  return tail !== undefined && compactedInThisRun(transcriptRecords(tail, false).records);
}

/** Armed for this conversation: a marker from another conversation (when both are known) is not ours to consume. */
async function armedFor(marker: string, session: string | undefined, run: Pick<HookRun, 'note'>): Promise<boolean> {
  const text = await readMarker(marker, run);
  if (text === undefined) return false;
  try {
    const armed = JSON.parse(text) as { session?: string };
    return armed.session === undefined || session === undefined || armed.session === session;
  } catch {
    return true;
  }
}
