// opencode has no command hooks: it loads JavaScript plugins from `.opencode/plugins/*.js`
// (opencode-ai 1.18: `{plugin,plugins}/*.{ts,js}` under each config folder; a file plugin default
// exports `{ id, server }`). Ours is a small file this module writes whole; it runs
// `beads-recovery hook opencode <event>` with the hook JSON every other agent sends, and hands the
// answer over the way @opencode-ai/plugin 1.18 allows (packages/plugin/src/index.ts, `Hooks`).
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
//   After a compaction, a block in the turns opencode kept of the older conversation (its tail)
//   is the session's one: no second beside it.
//
// The file is ours alone: its first line marks it, the launcher sits on one line as JSON, and an
// install rewrites it whole (an uninstall deletes it). Pure: the caller reads and writes it.

/** What runs our command line (hookConfig's HookLauncher, spelled out here so the two modules need not import each other). */
export interface PluginLauncher {
  runtime: string;
  script: string;
  electron: boolean;
}

export const OPENCODE_PLUGIN_MARKER = '// beads-recovery: opencode plugin';

/** The events the plugin passes to `beads-recovery hook opencode <event>`. */
export const OPENCODE_EVENTS = ['session.resumed', 'session.compacting', 'session.compacted'] as const;

const LAUNCHER_LINE = /^const LAUNCHER = (\{.*\});$/m;

export function opencodePluginText(launcher: PluginLauncher): string {
  const plain = { runtime: launcher.runtime, script: launcher.script, electron: launcher.electron };
  return `${OPENCODE_PLUGIN_MARKER} (written by Beads Recovery; \`beads-recovery hooks uninstall --agent opencode\` removes it).
// Hands opencode the beads recovery context once per session and once per compaction, and
// checkpoints before a compaction, by running the beads-recovery command line.
import { spawn } from 'node:child_process';

const LAUNCHER = ${JSON.stringify(plain)};
const TIMEOUT_MS = 30000;

/** Runs \`beads-recovery hook opencode <event>\`; the context it answers, or undefined. Never throws. */
function hook(event, input) {
  return new Promise((resolve) => {
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
        resolve(JSON.parse(out)?.hookSpecificOutput?.additionalContext);
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ ...input, hook_event_name: event }));
  });
}

const BLOCK_MARK = /beads-recovery block [0-9a-f]{8}/;

/**
 * Whether what opencode still sends of a session after its last compaction holds a block of ours:
 * the walk of its filterCompacted (1.18.33), newest message first, down to the compaction whose
 * summary is done, or on to the first turn it kept of the older conversation (its tail_start_id).
 * No such compaction found: false, so a block is never held back on a guess.
 */
function keptHoldsBlock(messages) {
  if (!Array.isArray(messages)) return false;
  const summarized = new Set();
  let held = false;
  let tailStart;
  for (let index = messages.length - 1; index >= 0; index--) {
    const { info, parts = [] } = messages[index] ?? {};
    if (!info) continue;
    if (tailStart === undefined && info.role === 'user' && summarized.has(info.id)) {
      const compaction = parts.find((part) => part.type === 'compaction');
      if (compaction) {
        if (!compaction.tail_start_id) return held;
        tailStart = compaction.tail_start_id;
        continue;
      }
    }
    held ||= parts.some((part) => part.type === 'text' && BLOCK_MARK.test(part.text ?? ''));
    if (tailStart !== undefined && info.id === tailStart) return held;
    if (info.role === 'assistant' && info.summary && info.finish && !info.error) summarized.add(info.parentID);
  }
  return false;
}

async function server({ client, directory }) {
  // Sessions whose first message in this process was seen; sessions compacted here whose block has not gone out.
  const seen = new Set();
  const owed = new Set();
  const ask = (event, sessionID, source) => hook(event, { session_id: sessionID, cwd: directory, source });
  const kept = (sessionID) =>
    Promise.resolve()
      .then(() => client.session.messages({ path: { id: sessionID } }))
      .then((response) => response?.data ?? response)
      .catch(() => undefined);
  // The block after a compaction, unless the turns opencode kept of the older conversation hold
  // one already. The hook runs either way: it records that the session holds a block, so a later
  // resume gives none.
  const afterCompaction = async (sessionID) => {
    owed.delete(sessionID);
    seen.add(sessionID);
    const [context, messages] = await Promise.all([ask('session.compacted', sessionID, 'compact'), kept(sessionID)]);
    return keptHoldsBlock(messages) ? undefined : context;
  };
  return {
    'chat.message': async (input, output) => {
      const sessionID = input.sessionID;
      let context;
      if (owed.has(sessionID)) context = await afterCompaction(sessionID);
      else if (!seen.has(sessionID)) {
        seen.add(sessionID);
        context = await ask('session.resumed', sessionID, 'resume');
      }
      if (!context) return;
      const text = output.parts.find((part) => part.type === 'text');
      if (text) text.text = \`\${text.text}\\n\\n\${context}\`;
      else await client.session.prompt({ path: { id: sessionID }, body: { noReply: true, parts: [{ type: 'text', text: context }] } }).catch(() => undefined);
    },
    'experimental.session.compacting': async (input) => {
      await ask('session.compacting', input.sessionID, 'compacting');
      owed.add(input.sessionID);
    },
    'experimental.compaction.autocontinue': async (input) => {
      if (!owed.has(input.sessionID)) return;
      const context = await afterCompaction(input.sessionID);
      if (context) await client.session.prompt({ path: { id: input.sessionID }, body: { noReply: true, parts: [{ type: 'text', text: context }] } }).catch(() => undefined);
    },
  };
}

export default { id: 'beads-recovery', server };
`;
}

/** The launcher a plugin file of ours names; undefined for any other file. */
export function readOpencodePlugin(text: string | undefined): PluginLauncher | undefined {
  if (!text?.startsWith(OPENCODE_PLUGIN_MARKER)) return undefined;
  const match = LAUNCHER_LINE.exec(text);
  if (!match) return undefined;
  try {
    const value = JSON.parse(match[1]!) as Partial<PluginLauncher>;
    if (typeof value.runtime !== 'string' || typeof value.script !== 'string') return undefined;
    return { runtime: value.runtime, script: value.script, electron: value.electron === true };
  } catch {
    return undefined;
  }
}
