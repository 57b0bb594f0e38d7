// `beads-recovery hook <agent> <event>` (dist/hook.js, loaded by dist/cli.js): what every agent
// hook event starts. Outside a beads project it must cost little more than a bare node start and
// say nothing, so this entry reads the agent's input and looks for a beads folder with nothing but
// the file system; only where one may be does it load the hook itself (dist/hookWork.js: the
// recovery context, the checkpoint, the beads CLIs), which finds the project exactly.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../core/errors';
import type { AgentId } from '../core/hookConfig';
import { hookPlan, isHookAgent, isPlainStart, type HookInput } from '../core/hookProtocol';
import { requireWithCompileCache, type CachedLoad } from './compileCache';
import { guardHook, hookDeadlineMs, runHookProcess } from './hookGuard';
import { hookFolder, readHookInput } from './hookInput';
import { compressionCheckpointFile, keepNewChatFile, readGeminiHistory, repairChatFile, restoreChatFile, type GeminiSession, type KeptChatFile } from './hookGemini';
import { markerFile } from './hookMarker';
import type * as HookStart from './hookStart';
import type * as HookWork from './hookWork';

const [agent, event] = process.argv.slice(3);

const startedAt = Date.now();
// Names this run's claim on a delivery, in the start from the cache and in the whole hook alike:
// unique among the runs of one start, which run at once (so their pids differ), and against a run
// long gone of the same pid. Not node:crypto, which costs every start a few ms to load.
const runId = `${process.pid}-${startedAt}-${Math.random().toString(36).slice(2)}`;
/** The part of the hook's deadline a start from the cache may take before the whole hook answers instead. */
const CACHED_START_SHARE = 0.25;

// Loaded with V8's code cache (compileCache.ts), which is written after the answer when there was none.
let start: CachedLoad<typeof HookStart> | undefined;
let work: CachedLoad<typeof HookWork> | undefined;

void runHookProcess(async () => {
  const input = await readHookInput();
  const holder = await beadsFolderAbove(hookFolder(input, process.env));
  if (holder === undefined) return '{}';
  let newChatFile: KeptChatFile | undefined;
  if (isHookAgent(agent) && event) {
    const plan = hookPlan(agent, event);
    // A tool call that only hands over after a compaction: nothing to do while no marker is armed.
    if (plan.inject === 'if-armed' && !plan.arm && !plan.checkpoint && !(await exists(markerFile(agent, holder)))) return '{}';
    // Gemini CLI's model requests and tool calls: nothing to do while its chat file shows no new
    // compression, and the history holds a block of ours (hookGemini.ts); its prompts may still
    // owe a correction.
    if (plan.checkpointCompression || plan.inject === 'if-missing') {
      // Another session's start-up cleanup may have deleted the chat file (hookGemini.ts): its first record goes back before anything else.
      const session = geminiSession(input, holder);
      if (await repairChatFile(session)) {
        process.stderr.write("beads-recovery: another Gemini CLI session's start-up cleanup deleted this session's chat file; its first record is written back.\n");
      }
      const history = await readGeminiHistory(input?.transcript);
      const compressed = history.compression !== undefined && !(await exists(compressionCheckpointFile(holder, input?.session, history.compression)));
      const handsOver = plan.inject === 'if-missing' && history.heldBlock === undefined;
      // A prompt of a session whose history holds a block: a correction is due if its issue moved since (hook.ts).
      const mayCorrect = plan.inject === 'if-missing' && plan.correctHeld === true && history.heldBlock !== undefined;
      if (!(plan.checkpointCompression && compressed) && !handsOver && !mayCorrect) return '{}';
      // A new session's first prompt: its chat file holds no turn until this hook answers (hookGemini.ts).
      if (handsOver) newChatFile = await keepNewChatFile(session);
    }
  }
  try {
    // A new conversation's start, answered from the start block's cache when it holds the block (hookStart.ts).
    const cached = isHookAgent(agent) && event && isPlainStart(hookPlan(agent, event), input) && process.env.BEADS_RECOVERY_START_CACHE !== 'off' ? await startFromCache(agent, event, input) : undefined;
    if (cached !== undefined) return cached;
    // A file of the build beside this one, loaded only where a beads project may be.
    work = await requireWithCompileCache<typeof HookWork>(path.join(__dirname, 'hookWork.js'));
    return await work.exports.answerHook(agent, event, input, { runId, startedAt });
  } finally {
    if (newChatFile && (await restoreChatFile(newChatFile))) {
      process.stderr.write("beads-recovery: another Gemini CLI session's start-up cleanup deleted this new session's chat file while this hook ran; its first record is written back.\n");
    }
  }
}, async () => {
  await start?.saveCache();
  await work?.saveCache();
});

/** The start's answer from the cache, within its share of the deadline; undefined: the whole hook answers. */
async function startFromCache(agent: AgentId, event: string, input: HookInput | undefined): Promise<string | undefined> {
  const note = (line: string) => process.stderr.write(`beads-recovery: ${line}\n`);
  try {
    start = await requireWithCompileCache<typeof HookStart>(path.join(__dirname, 'hookStart.js'));
  } catch (error) {
    // Without its start bundle (a damaged install), every start is the whole hook's.
    note(`the start block's cache was not used: ${errorMessage(error)}`);
    return undefined;
  }
  const { answerStartFromCache } = start.exports;
  return guardHook<string | undefined>(
    { answer: (signal) => answerStartFromCache(agent, event, input, { env: process.env, note, runId, signal }), last: () => undefined },
    { deadlineMs: hookDeadlineMs() * CACHED_START_SHARE, warn: (reason) => note(`the start block's cache was not used: ${reason}`) },
  );
}

/** The nearest folder here or above that holds a `.beads` (or br's `_beads`) folder: without one there is no project; with one, hookWork decides. */
async function beadsFolderAbove(start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = path.dirname(dir)) {
    for (const name of ['.beads', '_beads']) if (await stat(path.join(dir, name)).then((info) => info.isDirectory(), () => false)) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The Gemini CLI session a hook runs in, as its input names it; the project folder is the hook's cwd, else the folder holding `.beads`. */
function geminiSession(input: HookInput | undefined, holder: string): GeminiSession {
  const fired = input?.firedAt === undefined ? Number.NaN : new Date(/^\d+$/.test(input.firedAt) ? Number(input.firedAt) : input.firedAt).getTime();
  return { transcript: input?.transcript, session: input?.session, projectRoot: input?.cwd ?? holder, at: new Date(Number.isNaN(fired) ? Date.now() : fired).toISOString() };
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}
