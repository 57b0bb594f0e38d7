// `beads-recovery hook <agent> <event>`: the one command every installed agent hook runs. It reads
// the agent's JSON from stdin, does what the event calls for (checkpoint before a compaction, hand
// the recovery context over after one) and answers in that agent's shape. It never fails the
// agent: under the hook guard's deadline, a hung CLI gives way to the read-only reading of
// .beads/issues.jsonl, and anything else to `{}`, which every agent takes as "go on".
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { isAgentId, type AgentId } from '../core/hookConfig';
import { AFTER_COMPACTION_PREFIX, hookPlan, hookResponse, type HookInput, type HookPlan } from '../core/hookProtocol';
import { checkpointCommand } from './checkpoint';
import { DEFAULT_BUDGET_BYTES, recoveryContextFor } from './context';
import { guardHook, hookDeadlineMs } from './hookGuard';
import { readHookInput } from './hookInput';

export interface HookIo {
  readInput?: () => Promise<HookInput | undefined>;
  env?: NodeJS.ProcessEnv;
  /** Notes for the agent's log (stderr), never its stdout. */
  note?: (line: string) => void;
  budget?: number;
}

/** Runs one hook and returns what goes to stdout; never throws, never outlives the hook deadline. */
export async function runHook(agentArg: string | undefined, event: string | undefined, io: HookIo = {}): Promise<string> {
  const note = io.note ?? ((line: string) => process.stderr.write(`beads-recovery: ${line}\n`));
  if (!isAgentId(agentArg) || !event) {
    note(`hook takes an agent (claude, copilot, codex, cursor) and an event; got '${agentArg ?? ''}' '${event ?? ''}'.`);
    return '{}';
  }
  const agent = agentArg;
  const env = io.env ?? process.env;
  const started = Date.now();
  // Names this run's claim on a delivery, so its own fallback (after a slow first try) is not
  // taken for a second hook.
  const runId = `${process.pid}-${randomUUID()}`;
  const plan = hookPlan(agent, event);
  const input = await (io.readInput ?? readHookInput)();
  const cwd = path.resolve(input?.cwd ?? input?.workspaceRoots?.[0] ?? env.CLAUDE_PROJECT_DIR ?? env.CURSOR_PROJECT_DIR ?? process.cwd());
  const context = async (trusted: boolean, signal: AbortSignal) => {
    const prefix = plan.inject === 'if-armed' ? AFTER_COMPACTION_PREFIX : '';
    const budget = (io.budget ?? DEFAULT_BUDGET_BYTES) - Buffer.byteLength(prefix, 'utf8');
    const result = await recoveryContextFor(cwd, { budget, env, trusted, forAgent: agent, signal, warn: note });
    return `${prefix}${result.markdown}`;
  };
  return guardHook(
    {
      answer: (signal) => handle(agent, event, plan, { cwd, input, env, note, runId }, () => context(true, signal)),
      // No CLI at all: the same hand-over from the read-only reading, when the full one failed or ran late.
      fallback: (_reason, signal) => handle(agent, event, { ...plan, checkpoint: false, arm: false, disarm: false }, { cwd, input, env, note, runId }, () => context(false, signal)),
      last: () => hookResponse(agent, event, undefined),
    },
    { deadlineMs: Math.max(0, hookDeadlineMs(env) - (Date.now() - started)), warn: note },
  );
}

interface HookRun {
  cwd: string;
  input: HookInput | undefined;
  env: NodeJS.ProcessEnv;
  note: (line: string) => void;
  runId: string;
}

async function handle(agent: AgentId, event: string, plan: HookPlan, run: HookRun, produce: () => Promise<string>): Promise<string> {
  const marker = await markerFile(agent, run.cwd);
  if (plan.disarm) await rm(marker, { force: true });
  if (plan.arm) await writeFile(marker, JSON.stringify({ session: run.input?.session, armedAt: new Date().toISOString() }), 'utf8');
  if (plan.checkpoint) {
    await checkpointCommand(['--pre-compact', '--cwd', run.cwd], { out: run.note, readHook: () => Promise.resolve(undefined), env: run.env === process.env ? undefined : run.env });
  }
  if (plan.inject === 'never') return hookResponse(agent, event, undefined);
  if (plan.inject === 'if-armed' && !(await armedFor(marker, run.input?.session))) return hookResponse(agent, event, undefined);
  // Stdin that was no agent's JSON names nothing to match: that run answers.
  if (plan.inject === 'always' && run.input && !(await claimDelivery(await deliveryFor(run), run.runId))) {
    run.note('the recovery context already went to this session moments ago (another hook file runs too); not twice.');
    return hookResponse(agent, event, undefined);
  }
  const markdown = await produce();
  // Consumed only once the context is in hand, so a failure leaves it for the next tool call.
  if (plan.inject === 'if-armed') await rm(marker, { force: true });
  return hookResponse(agent, event, markdown);
}

/**
 * Where the one-shot marker of an agent in a project lives: a file in the temporary folder named
 * by a hash of the agent and the project root (the nearest folder up from `cwd` holding `.beads`),
 * so PreCompact and the next PostToolUse find the same one whatever subfolder each ran in.
 */
async function markerFile(agent: AgentId, cwd: string): Promise<string> {
  const root = (await beadsRoot(cwd)) ?? cwd;
  return path.join(await markerDir(), `${createHash('sha256').update(`${agent}\0${root}`).digest('hex').slice(0, 32)}.marker`);
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
 */
interface Delivery {
  file: string;
  windowMs: number;
}

const SAME_CONVERSATION_WINDOW_MS = 60_000;
const SAME_START_WINDOW_MS = 10_000;

async function deliveryFor(run: HookRun): Promise<Delivery> {
  const root = (await beadsRoot(run.cwd)) ?? run.cwd;
  const conversation = run.input?.session ?? run.input?.transcript;
  const key = `${root}\0${conversation ?? ''}\0${run.input?.source ?? ''}`;
  return {
    file: path.join(await markerDir(), `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.delivered`),
    windowMs: conversation ? SAME_CONVERSATION_WINDOW_MS : SAME_START_WINDOW_MS,
  };
}

/**
 * Claims a delivery: false when another run claimed it within the window. Check and claim happen
 * under a cross-process lock (proper-lockfile), since both runs of one start arrive together.
 * When the lock cannot be had the run delivers: twice is better than not at all.
 */
async function claimDelivery(delivery: Delivery, runId: string): Promise<boolean> {
  const release = await lockfile
    .lock(delivery.file, { realpath: false, stale: 5_000, retries: { retries: 40, minTimeout: 5, maxTimeout: 50, factor: 1.5 } })
    .catch(() => undefined);
  if (!release) return true;
  try {
    const [claimant, info] = await Promise.all([readFile(delivery.file, 'utf8').catch(() => undefined), stat(delivery.file).catch(() => undefined)]);
    if (claimant !== undefined && claimant !== runId && info && Date.now() - info.mtimeMs < delivery.windowMs) return false;
    await writeFile(delivery.file, runId, 'utf8');
    return true;
  } finally {
    await release().catch(() => undefined);
  }
}

async function markerDir(): Promise<string> {
  const dir = path.join(tmpdir(), 'beads-recovery-hooks');
  await mkdir(dir, { recursive: true });
  return dir;
}

async function beadsRoot(start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (await stat(path.join(dir, '.beads')).then((info) => info.isDirectory(), () => false)) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Armed for this conversation: a marker from another conversation (when both are known) is not ours to consume. */
async function armedFor(marker: string, session: string | undefined): Promise<boolean> {
  const text = await readFile(marker, 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  try {
    const armed = JSON.parse(text) as { session?: string };
    return armed.session === undefined || session === undefined || armed.session === session;
  } catch {
    return true;
  }
}
