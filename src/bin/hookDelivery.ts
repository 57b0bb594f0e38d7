// What a hook remembers of the blocks it hands over, in the user's private marker folder
// (hookMarker.ts): the claim of one start's delivery, so that two hook files run for one start
// answer once, and each session's record of the last block it was given, which a resume and a
// correction compare with. Shared by the whole hook (hook.ts) and its start from the cache
// (hookStart.ts), which must claim and remember exactly as the whole hook does.
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { sessionOfHook, type SessionIdentity } from '../core/agentSessions';
import { errorMessage } from '../core/errors';
import { fnv1a } from '../core/hash';
import { hookSurfaceBudget } from '../core/agents';
import { BLOCK_MARK_BYTES, blockDigest, withBlockMark } from '../core/blockMark';
import type { AgentId } from '../core/hookConfig';
import { AFTER_COMPACTION_PREFIX, hookResponse, START_CONTEXT_KEPT, type HookInput, type HookPlan } from '../core/hookProtocol';
import { lockFile } from '../io/fileLock';
import { ensurePrivateFolder, readPrivateFile, UnsafeFileError, UnsafeFolderError, writePrivateFile } from '../io/privateFolder';
import { copilotSessionLog } from '../services/sessionsOnDisk';
import { markerDir } from './hookMarker';

/** What the delivery records of one hook run are named by, and where its notes go. */
export interface DeliveryRun {
  /** The beads project's root (the folder holding the store). */
  root: string;
  input: HookInput | undefined;
  note: (line: string) => void;
  /** Names this run's claim on a delivery, so its own fallback (after a slow first try) is not taken for a second hook. */
  runId: string;
}

/** A block made for a session, as a hook hands it over. */
export interface Produced {
  markdown: string;
  /** The issue the block hands over as the session's own; undefined for none. */
  issueId: string | undefined;
  /** With `conversationHolds`: the block held names that issue still; nothing to say. */
  holdsAlready: boolean;
}

/** The room for a block in what `agent` takes from a hook (core/budget.ts; `override` in tests), less the line that marks it and what goes before it. */
export function blockBudget(agent: AgentId, prefix: string, override?: number): number {
  return (override ?? hookSurfaceBudget(agent).bytes) - Buffer.byteLength(prefix, 'utf8') - BLOCK_MARK_BYTES;
}

/** The first steps of every hook run in a project: the marker folder made the user's own, and the marker disarmed where the plan says. */
export async function prepareMarkers(plan: HookPlan, marker: string, run: Pick<DeliveryRun, 'note'>): Promise<void> {
  // A marker folder that is not the user's own alone is not used: the hook answers without markers.
  await ensurePrivateFolder(markerDir()).catch((error: unknown) => run.note(`${errorMessage(error)}: the hook answers without its marker files.`));
  if (plan.disarm) await rm(marker, { force: true });
}

/** Claims this start's delivery (deliveryFor); false, and said, when another hook run of the same start has it. */
export async function claimStart(run: DeliveryRun): Promise<boolean> {
  // Stdin that was no agent's JSON names nothing to match: that run answers.
  if (!run.input || (await claimDelivery(deliveryFor(run), run))) return true;
  run.note('the recovery context already went to this session moments ago (another hook file runs too); not twice.');
  return false;
}

/**
 * The answer that hands `produced` over (`late`: after a compaction, on a later tool call or
 * prompt), remembered as what the conversation now holds where it stays there.
 */
export async function handOver(agent: AgentId, event: string, run: DeliveryRun, produced: Produced, late: boolean): Promise<string> {
  // What stays in the conversation; a start's context that the next run does not get again is no hold.
  if (late || START_CONTEXT_KEPT[agent]) await rememberDelivery(run, blockDigest(produced.markdown), produced.issueId);
  return hookResponse(agent, event, `${late ? AFTER_COMPACTION_PREFIX : ''}${withBlockMark(produced.markdown)}`);
}

/** The issue a block named (undefined: it named none). */
export interface HeldIssue {
  issueId: string | undefined;
}

/**
 * The per-session record of the last block delivered: its digest and the issue it named. A record
 * an earlier version wrote holds the digest alone, and so names no issue that can be compared.
 */
export interface DeliveryRecord {
  digest: string;
  named?: HeldIssue;
}

export async function lastDelivery(run: DeliveryRun): Promise<DeliveryRecord | undefined> {
  const file = sessionRecordFile(run);
  const text = file === undefined ? undefined : await readMarker(file, run);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as { digest?: unknown; issueId?: unknown };
    if (typeof record.digest === 'string') return { digest: record.digest, named: { issueId: typeof record.issueId === 'string' ? record.issueId : undefined } };
  } catch {
    // The bare digest of an earlier version.
  }
  return { digest: text.trim() };
}

export async function rememberDelivery(run: DeliveryRun, digest: string, issueId: string | undefined): Promise<void> {
  const record = sessionRecordFile(run);
  if (record) await writeMarker(record, JSON.stringify({ digest, ...(issueId === undefined ? {} : { issueId }) }), run);
}

/** Before a compaction: the session's record and the claim of the start after it go. */
export async function forgetDeliveries(run: DeliveryRun): Promise<void> {
  const record = sessionRecordFile(run);
  if (record) await rm(record, { force: true });
  await rm(deliveryFor({ ...run, input: { ...run.input, source: 'compact', firedAt: undefined } }).file, { force: true });
}

/** The per-session record of the last block delivered, for agents that name no transcript; undefined without a session. */
export function sessionRecordFile(run: DeliveryRun): string | undefined {
  const session = run.input?.session ?? run.input?.transcript;
  return session === undefined ? undefined : path.join(markerDir(), `${fnv1a(`${run.root}\0${session}`)}.holds`);
}

/**
 * The agent session a hook runs for: its id and transcript, from the hook input. Copilot CLI names
 * its session log only at PreCompact: at its other events the log is found by the session id, so
 * the session's own claims bind it there too (the log is read for the binding only; what a start
 * holds is still decided as for a session that names none).
 */
export function hookSession(agent: AgentId, input: HookInput | undefined, env: NodeJS.ProcessEnv): SessionIdentity | undefined {
  const identity = sessionOfHook(agent, input);
  if (agent !== 'copilot' || !identity || identity.transcript !== undefined) return identity;
  const log = copilotSessionLog(identity.sessionId, env);
  return log === undefined ? identity : { ...identity, transcript: log };
}

/**
 * VS Code runs Claude Code's hook files too (`chat.useClaudeHooks`), and Cursor may (third-party
 * hooks): one session start can then run our hook from two files, at once, each under its own
 * agent name. What they share is the project, the start's source and the conversation: the
 * session id, else the transcript file. The first run claims the delivery; another within the
 * window stays silent.
 *
 * An agent that sends neither still gets one delivery per start: the two runs of one start come
 * within a second or two of each other, so the claim then holds only briefly, and a new session
 * (or a `clear`, `compact` or `resume` start, another source) a little later gets its own.
 *
 * A compaction is announced by its PreCompact hook, which drops the claim of the `compact` start
 * that follows it (forgetDeliveries): a second compaction of the session, however soon, gets the
 * block again.
 *
 * When the agent stamps its hook input (`timestamp`: Copilot CLI, VS Code), the stamp names the
 * start as well: the hook files of one start share it, and two resumes of one session seconds
 * apart (each a run that needs its block, in Copilot CLI) are two starts.
 */
export interface Delivery {
  file: string;
  windowMs: number;
}

export const SAME_CONVERSATION_WINDOW_MS = 60_000;
const SAME_START_WINDOW_MS = 10_000;

export function deliveryFor(run: DeliveryRun): Delivery {
  const conversation = run.input?.session ?? run.input?.transcript;
  const key = `${run.root}\0${conversation ?? ''}\0${run.input?.source ?? ''}${run.input?.firedAt === undefined ? '' : `\0${run.input.firedAt}`}`;
  return {
    file: path.join(markerDir(), `${fnv1a(key)}.delivered`),
    windowMs: conversation ? SAME_CONVERSATION_WINDOW_MS : SAME_START_WINDOW_MS,
  };
}

/** The other run of the same start holds the claim's lock only for a read and a write. */
const CLAIM_LOCK_WAIT_MS = 2_000;

/**
 * Claims a delivery: false when another run claimed it within the window. Check and claim happen
 * under a cross-process lock (io/fileLock.ts), since both runs of one start arrive together.
 * When the lock cannot be had the run delivers: twice is better than not at all.
 */
export async function claimDelivery(delivery: Delivery, run: Pick<DeliveryRun, 'runId' | 'note'>): Promise<boolean> {
  const release = await lockFile(delivery.file, { staleMs: 5_000, waitMs: CLAIM_LOCK_WAIT_MS }).catch(() => undefined);
  if (!release) return true;
  try {
    const [claimant, info] = await Promise.all([readMarker(delivery.file, run), lstat(delivery.file).catch(() => undefined)]);
    if (claimant !== undefined && claimant !== run.runId && info && Date.now() - info.mtimeMs < delivery.windowMs) return false;
    await writeMarker(delivery.file, run.runId, run);
    return true;
  } finally {
    await release().catch(() => undefined);
  }
}


/**
 * A marker file's text, or undefined: missing, or refused (a link planted at its name, a folder
 * that is not the user's own alone; io/privateFolder.ts), which is said on stderr.
 */
export async function readMarker(file: string, run: Pick<DeliveryRun, 'note'>): Promise<string | undefined> {
  try {
    return await readPrivateFile(file);
  } catch (error) {
    if (error instanceof UnsafeFileError) run.note(`${error.message}: the hook answers as if it were not there.`);
    return undefined;
  }
}

/** Writes a marker file, never through a link; one that cannot be written leaves the hook's answer as it is. */
export async function writeMarker(file: string, text: string, run: Pick<DeliveryRun, 'note'>): Promise<void> {
  await writePrivateFile(file, text).catch((error: unknown) => {
    if (!(error instanceof UnsafeFolderError)) run.note(`${errorMessage(error)}: ${path.basename(file)} was not kept.`);
  });
}
