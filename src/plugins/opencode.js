// beads-recovery: opencode plugin (written by Beads Recovery; `beads-recovery hooks uninstall --agent opencode` removes it).
// @ts-check
// Hands opencode the beads recovery context once per session and once per compaction, and
// checkpoints before a compaction, by running the beads-recovery command line with the hook JSON
// every other agent sends, its transcript included.
//
// This file is the plugin's source; `hooks install --agent opencode` writes it to
// `.opencode/plugins/beads-recovery.js` with the LAUNCHER line below set to this install's
// command line (src/core/opencodePlugin.ts). opencode 1.18 loads `{plugin,plugins}/*.{ts,js}`
// under each config folder; a file plugin default exports `{ id, server }`, and `server` returns
// the hooks of @opencode-ai/plugin 1.18 (packages/plugin/src/index.ts, `Hooks`).
//
// The transcript: opencode keeps a session's messages in its own database (opencode.db, SQLite,
// in 1.18), which a hook cannot read without a SQLite engine. Its SDK hands every plugin the
// session's messages (`client.session.messages`: `{ data: [{ info, parts }] }`, oldest first), so
// the plugin writes them, one message a line, to a file of the session's in the user's private
// state folder (where our command line keeps Claude Code's summaries, src/io/privateFolder.ts), only
// the parts that tell what the session did and long texts cut, and names it as `transcript_path`: the hook reads it as it reads any agent's
// transcript (src/core/transcriptOpencode.ts). It is written again before every hook run, and after
// each shell command that names br or bd, so a claim binds the session as it happens.
//
// How opencode 1.18.33 compacts (SessionCompaction.process in its bundle): it triggers
// `experimental.session.compacting`, asks the model for the summary, then, after an automatic
// compaction, `experimental.compaction.autocontinue` just before it writes the synthetic user
// message that continues the turn, and only then publishes `session.compacted` (while the loop
// already sends that next request). So:
//
//   experimental.session.compacting: checkpoints (the work the summary replaces), and notes that
//     the session is owed the block;
//   experimental.compaction.autocontinue (an automatic compaction, awaited by opencode): the block
//     goes in as a message with `noReply` (client.session.prompt), stored in the session just
//     before opencode's "Continue…" message, so the very next model request carries it, and every
//     later one, once;
//   chat.message: a session owed the block (a manual compaction, which continues on the user's next
//     message) gets it added to that message's text (a part of our own would need an id in
//     opencode's format); otherwise the first message this opencode process sees in a session gets
//     it, when `hook` says the session does not hold it yet (a new or continued session).
//   experimental.chat.messages.transform: a new session's start block is not stored in its first
//     message: opencode names a new session by sending that first message whole to its small model
//     (SessionPrompt.ensureTitle, forked on the loop's first step with the loop's message array),
//     and the block has no place there. The block goes instead into a copy of that message, put in
//     the array in its place, every time this process sends the session's conversation; the title
//     request keeps the message as stored (its fork slices the array when it starts, before the
//     loop reaches the transform: so in the real CLI, test/agents/opencode.test.ts). The block is gone when this process ends: the next run
//     of the session (a resume) holds none, so it gets the whole block again, which is stored then.
//   After a compaction, a block in the turns opencode kept of the older conversation (its tail)
//   is the session's one: no second beside it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** @type {{ runtime: string, script: string, electron: boolean }} */
const LAUNCHER = { "runtime": "node", "script": "beads-recovery", "electron": false };
const TIMEOUT_MS = 30000;
/** A string longer than this is cut in the transcript file: its start and end stay (test runners print their counts last). */
const STRING_CHARS = 8000;
/** A shell command that may claim, close or update a beads issue: the transcript is written again after it. */
const BEADS_COMMAND = /(^|[\s;&|(`])(br|bd)(\s|$)/;

/**
 * Runs `beads-recovery hook opencode <event>`; the context it answers, or undefined. Never throws.
 * @param {string} event
 * @param {Record<string, unknown>} input
 * @returns {Promise<string | undefined>}
 */
function hook(event, input) {
  return new Promise((resolve) => {
    /** @type {import('node:child_process').ChildProcessByStdio<import('node:stream').Writable, import('node:stream').Readable, null>} */
    let child;
    try {
      child = spawn(LAUNCHER.runtime, [LAUNCHER.script, 'hook', 'opencode', event], {
        env: LAUNCHER.electron ? { ...process.env, ELECTRON_RUN_AS_NODE: '1' } : process.env,
        stdio: ['pipe', 'pipe', 'ignore'],
        windowsHide: true,
      });
    } catch {
      resolve(undefined);
      return;
    }
    let out = '';
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on('close', () => {
      clearTimeout(timer);
      try {
        const context = JSON.parse(out)?.hookSpecificOutput?.additionalContext;
        resolve(typeof context === 'string' ? context : undefined);
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ ...input, hook_event_name: event }));
  });
}

/**
 * A copy of a value with every long string cut to its start and end: a file's whole content in
 * an edit, or a command's whole output, is not needed to tell what the session did.
 * @param {unknown} value
 * @returns {unknown}
 */
function cut(value) {
  if (typeof value === 'string') {
    if (value.length <= STRING_CHARS) return value;
    const head = Math.floor(STRING_CHARS * 0.4);
    return `${value.slice(0, head)}\n…\n${value.slice(value.length - (STRING_CHARS - head - 3))}`;
  }
  if (Array.isArray(value)) return value.map(cut);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cut(item)]));
  return value;
}

/** The parts a transcript keeps: what was said, the tools' calls and results, compactions (not steps, snapshots, patches or reasoning). */
const KEPT_PARTS = new Set(['text', 'tool', 'compaction']);

/**
 * A message as the transcript keeps it: its parts that tell what the session did, long strings
 * cut. A user message's `summary` (the whole diff of every file its turn changed) is left out.
 * @param {any} message
 */
function kept(message) {
  const { summary, ...info } = message?.info ?? {};
  const parts = Array.isArray(message?.parts) ? message.parts.filter((/** @type {any} */ part) => KEPT_PARTS.has(part?.type)) : [];
  return cut({ info: summary === true ? { ...info, summary } : info, parts });
}

/**
 * The user's private state folder, the one our command line keeps its markers and summaries in
 * (src/io/privateFolder.ts: `<tmpdir>/beads-recovery-<uid>`; on Windows
 * `%LOCALAPPDATA%\beads-recovery`), never a fixed name in the shared temp folder, where anyone
 * could plant a link at the name we write.
 */
function privateRoot() {
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA || tmpdir(), 'beads-recovery');
  return path.join(tmpdir(), `beads-recovery-${process.getuid?.() ?? 'user'}`);
}

/**
 * The session's transcript file: in the private folder's `transcripts`, named by the session id
 * (only its letters, digits, `_` and `-`, so no id names another place).
 * @param {string} sessionID
 */
function transcriptFile(sessionID) {
  return path.join(privateRoot(), 'transcripts', `opencode-${sessionID.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl`);
}

/**
 * Makes each folder from the private root down to `dir` (mode 0700) and checks it as our command
 * line does: a real folder, not a link, this user's, closed to others. Throws otherwise.
 * @param {string} dir
 */
async function ensurePrivate(dir) {
  for (const folder of [path.dirname(dir), dir]) {
    await mkdir(folder, { mode: 0o700 }).catch((/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(folder);
    if (info.isSymbolicLink() || !info.isDirectory()) throw new Error(`${folder} is not a plain folder`);
    if (process.platform === 'win32') continue;
    if (info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0) throw new Error(`${folder} is not this user's private folder`);
  }
}

/**
 * Writes the session's messages as its transcript, one `{ info, parts }` a line, whole or not at
 * all: a fresh file (never opened through a link) renamed over the old one. The file's path, or
 * undefined when there was nothing to write or it could not be written.
 * @param {string} sessionID
 * @param {unknown} messages
 * @returns {Promise<string | undefined>}
 */
async function writeTranscript(sessionID, messages) {
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const file = transcriptFile(sessionID);
  const fresh = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await ensurePrivate(path.dirname(file));
    const handle = await open(fresh, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      await handle.writeFile(`${messages.map((message) => JSON.stringify(kept(message))).join('\n')}\n`, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(fresh, file);
    return file;
  } catch {
    await rm(fresh, { force: true }).catch(() => undefined);
    return undefined;
  }
}

/**
 * The messages with the tool call `callID` completed by `result` (`{ title, output, metadata }`,
 * as the tool returned it; for bash, `metadata.exit` is its exit code), where opencode has not
 * stored it as completed yet: the part as opencode stores it once done.
 * @param {unknown} messages
 * @param {string | undefined} callID
 * @param {any} result
 */
function withToolResult(messages, callID, result) {
  if (!Array.isArray(messages) || !callID || !result || typeof result !== 'object') return messages;
  const now = Date.now();
  return messages.map((message) => {
    if (!Array.isArray(message?.parts)) return message;
    const parts = message.parts.map((/** @type {any} */ part) => {
      if (part?.type !== 'tool' || part.callID !== callID || part.state?.status === 'completed' || part.state?.status === 'error') return part;
      const state = part.state ?? {};
      return { ...part, state: { status: 'completed', input: state.input, output: result.output, title: result.title, metadata: result.metadata, time: { start: state.time?.start ?? now, end: now } } };
    });
    return { ...message, parts };
  });
}

/**
 * A copy of a message whose first text part carries the block, as a block added to the text reads;
 * the message and its parts as stored are left as they are.
 * @param {any} message
 * @param {string} block
 */
function withBlock(message, block) {
  /** @type {any[]} */
  const parts = Array.isArray(message.parts) ? message.parts : [];
  const at = parts.findIndex((part) => part?.type === 'text' && !part.synthetic);
  if (at === -1) return message;
  return { ...message, parts: parts.map((part, index) => (index === at ? { ...part, text: `${part.text}\n\n${block}` } : part)) };
}

const BLOCK_MARK = /beads-recovery block [0-9a-f]{8}/;

/**
 * Whether what opencode still sends of a session after its last compaction holds a block of ours:
 * the walk of its filterCompacted (1.18.33), newest message first, down to the compaction whose
 * summary is done, or on to the first turn it kept of the older conversation (its tail_start_id).
 * No such compaction found: false, so a block is never held back on a guess.
 * @param {unknown} messages
 */
function keptHoldsBlock(messages) {
  if (!Array.isArray(messages)) return false;
  const summarized = new Set();
  let held = false;
  /** @type {string | undefined} */
  let tailStart;
  for (let index = messages.length - 1; index >= 0; index--) {
    const { info, parts = [] } = messages[index] ?? {};
    if (!info) continue;
    if (tailStart === undefined && info.role === 'user' && summarized.has(info.id)) {
      const compaction = parts.find((/** @type {any} */ part) => part.type === 'compaction');
      if (compaction) {
        if (!compaction.tail_start_id) return held;
        tailStart = compaction.tail_start_id;
        continue;
      }
    }
    held ||= parts.some((/** @type {any} */ part) => part.type === 'text' && BLOCK_MARK.test(part.text ?? ''));
    if (tailStart !== undefined && info.id === tailStart) return held;
    if (info.role === 'assistant' && info.summary && info.finish && !info.error) summarized.add(info.parentID);
  }
  return false;
}

/**
 * The plugin's hooks for one opencode project.
 * @param {{ client: any, directory: string }} input
 */
async function server({ client, directory }) {
  // Sessions whose first message in this process was seen; sessions compacted here whose block has not gone out.
  const seen = new Set();
  const owed = new Set();
  // New sessions whose start block goes with their first message in every request of this process, never stored: session → that message's id and the block.
  /** @type {Map<string, { messageID: string, block: string }>} */
  const unstored = new Map();
  /** @param {string} sessionID */
  const messagesOf = (sessionID) =>
    Promise.resolve()
      .then(() => client.session.messages({ path: { id: sessionID } }))
      .then((response) => response?.data ?? response)
      .catch(() => undefined);
  /**
   * Runs the hook with the session's transcript as it stands; the context it answers, and the messages read.
   * `incoming`: the user message opencode is about to store (chat.message runs before it stores it,
   * SessionPrompt's createUserMessage in 1.18.33), written as the transcript's last line, so a new
   * session's first hook names its transcript too: the other sessions' hooks read its claims from
   * that file (src/services/agentSessions.ts), and know of no file a session's first hook did not name.
   * @param {string} event
   * @param {string} sessionID
   * @param {string} source
   * @param {unknown} [incoming]
   */
  const ask = async (event, sessionID, source, incoming) => {
    const messages = await messagesOf(sessionID);
    const transcript = await writeTranscript(sessionID, incoming && Array.isArray(messages) ? [...messages, incoming] : incoming ? [incoming] : messages);
    // `timestamp`: each run is an event of its own. Our hooks take two runs of one session and
    // source within a minute for one start seen by two hook files (src/bin/hook.ts, deliveryFor);
    // the plugin is one file and asks once per event, so a resume right after a start is no repeat.
    const context = await hook(event, { session_id: sessionID, cwd: directory, source, timestamp: Date.now(), ...(transcript ? { transcript_path: transcript } : {}) });
    return { context, messages };
  };
  // The block after a compaction, unless the turns opencode kept of the older conversation hold
  // one already. The hook runs either way: it records that the session holds a block, so a later
  // resume gives none.
  /** @param {string} sessionID */
  const afterCompaction = async (sessionID) => {
    owed.delete(sessionID);
    seen.add(sessionID);
    const { context, messages } = await ask('session.compacted', sessionID, 'compact');
    return keptHoldsBlock(messages) ? undefined : context;
  };
  /** @param {string} sessionID @param {string} text */
  const prompt = (sessionID, text) => Promise.resolve()
    .then(() => client.session.prompt({ path: { id: sessionID }, body: { noReply: true, parts: [{ type: 'text', text }] } }))
    .catch(() => undefined);
  return {
    /** @param {{ sessionID: string }} input @param {{ message?: { id?: unknown }, parts: { type: string, text?: string }[] }} output */
    'chat.message': async (input, output) => {
      const sessionID = input.sessionID;
      let context;
      if (owed.has(sessionID)) context = await afterCompaction(sessionID);
      else if (!seen.has(sessionID)) {
        seen.add(sessionID);
        const incoming = typeof output.message?.id === 'string' ? { info: output.message, parts: output.parts } : undefined;
        const asked = await ask('session.resumed', sessionID, 'resume', incoming);
        context = asked.context;
        // A new session (nothing stored yet): the block rides on its first message's copy (experimental.chat.messages.transform).
        const first = typeof output.message?.id === 'string' && Array.isArray(asked.messages) && asked.messages.length === 0 && output.parts.some((part) => part.type === 'text');
        if (context && first) {
          unstored.set(sessionID, { messageID: String(output.message?.id), block: context });
          return;
        }
      }
      if (!context) return;
      const text = output.parts.find((part) => part.type === 'text');
      if (text) text.text = `${text.text}\n\n${context}`;
      else await prompt(sessionID, context);
    },
    // Called by the loop on the messages it is about to send, after it forked the title request
    // with the same array (SessionPrompt.run, 1.18.33), and by SessionCompaction.process on a copy
    // for the summary request, after `experimental.session.compacting`.
    /** @param {unknown} _input @param {{ messages?: unknown }} output */
    'experimental.chat.messages.transform': async (_input, output) => {
      if (unstored.size === 0 || !Array.isArray(output?.messages)) return;
      const blocks = new Map([...unstored.values()].map(({ messageID, block }) => [messageID, block]));
      const messages = output.messages;
      messages.forEach((message, index) => {
        const block = blocks.get(message?.info?.id);
        if (block !== undefined) messages[index] = withBlock(message, block);
      });
    },
    /** @param {{ sessionID: string }} input */
    'experimental.session.compacting': async (input) => {
      // The summary replaces the start: the block after the compaction is the session's one.
      unstored.delete(input.sessionID);
      await ask('session.compacting', input.sessionID, 'compacting');
      owed.add(input.sessionID);
    },
    /** @param {{ sessionID: string }} input */
    'experimental.compaction.autocontinue': async (input) => {
      if (!owed.has(input.sessionID)) return;
      const context = await afterCompaction(input.sessionID);
      if (context) await prompt(input.sessionID, context);
    },
    // A shell command that names br or bd may claim or close an issue: the transcript is written
    // again, so the session's binding (read from it by the next hook, this session's or another's)
    // follows at once. No hook runs here. opencode calls this hook before it stores the command's
    // part as completed (SessionTools.resolve in 1.18.33: each tool's execute triggers
    // `tool.execute.after` with the tool's result, returns it, and only then does the processor's
    // completeToolCall store it; the stored part still reads `running`, without exit code or
    // output), so the part is written completed with the result this hook is handed: a call read
    // without its result counts as done, and is not read again, so a claim that failed would bind.
    /** @param {{ tool: string, sessionID: string, callID?: string, args?: { command?: unknown } }} input @param {unknown} result */
    'tool.execute.after': async (input, result) => {
      const command = input.args?.command;
      if (input.tool !== 'bash' || typeof command !== 'string' || !BEADS_COMMAND.test(command)) return;
      await writeTranscript(input.sessionID, withToolResult(await messagesOf(input.sessionID), input.callID, result));
    },
  };
}

export default { id: 'beads-recovery', server };
