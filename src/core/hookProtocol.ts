// What `beads-recovery hook <agent> <event>` reads from an agent and answers it. Pure.
//
// Each agent writes a JSON object to the hook's stdin and reads one JSON object back from its
// stdout. Claude Code and Codex get the context again from SessionStart (source `compact`).
// VS Code's agent hooks (and Copilot CLI) and Cursor have no event after a compaction: their
// PreCompact arms a one-shot marker, and the next PostToolUse (Copilot CLI: or UserPromptSubmit)
// hands the context over once and clears it. A new session clears a marker left over from an
// earlier one. Gemini CLI's hooks read the session's chat file instead (core/geminiHistory.ts).
import type { AgentId } from './hookConfig';

/** The fields of an agent's hook input that we use; every agent spells some of them its own way. */
export interface HookInput {
  event?: string;
  /** SessionStart: startup, resume, clear or compact. */
  source?: string;
  /** PreCompact: auto or manual. */
  trigger?: string;
  cwd?: string;
  /** Cursor: the workspace folders, first one first. */
  workspaceRoots?: string[];
  /** The conversation the hook runs in (session_id, sessionId or Cursor's conversation_id). */
  session?: string;
  /** The conversation's transcript file, which names it as well when no session id comes. */
  transcript?: string;
  /** Claude Code's PostCompact: the agent's own summary of what it compacted. */
  compactSummary?: string;
  /** When the agent fired the hook (its `timestamp`, an ISO text or epoch ms): one start's hook files share it. */
  firedAt?: string;
}

/** Reads a hook's stdin; anything that is not a JSON object (a terminal, a stray pipe, a cut-off text) gives undefined. */
export function parseHookInput(text: string): HookInput | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const field = (...keys: string[]): string | undefined => {
    for (const key of keys) if (typeof record[key] === 'string' && record[key] !== '') return record[key];
    return undefined;
  };
  const roots = Array.isArray(record.workspace_roots) ? record.workspace_roots.filter((root): root is string => typeof root === 'string' && root !== '') : [];
  return {
    event: field('hook_event_name', 'hookEventName'),
    source: field('source'),
    trigger: field('trigger'),
    cwd: field('cwd'),
    workspaceRoots: roots,
    session: field('conversation_id', 'session_id', 'sessionId'),
    transcript: field('transcript_path', 'transcriptPath'),
    compactSummary: field('compact_summary'),
    firedAt: typeof record.timestamp === 'number' && Number.isFinite(record.timestamp) ? String(record.timestamp) : field('timestamp'),
  };
}

/** What one hook does. */
export interface HookPlan {
  /**
   * Hand the recovery context over: always, only when a compaction armed the marker, only when
   * the history the agent sends holds none (read from its chat file: Gemini CLI), or not at all.
   */
  inject: 'always' | 'if-armed' | 'if-missing' | 'never';
  /** Write an automatic checkpoint first (before compaction). */
  checkpoint: boolean;
  /** Arm the one-shot marker (before compaction, on agents without a post-compaction event). */
  arm: boolean;
  /** Clear a stale marker (a new session already gets the context). */
  disarm: boolean;
  /** Write the checkpoint of a compression the session's chat file shows and no run checkpointed yet (Gemini CLI's BeforeModel). */
  checkpointCompression?: boolean;
  /**
   * Answer with a few plain lines for the agent's own compaction prompt instead of JSON: Claude
   * Code puts what a PreCompact hook prints there, under "Additional Instructions" (threadFacts'
   * compactionInstructions).
   */
  steerCompaction?: boolean;
  /** Keep the agent's compaction summary for the session's next recovery context (after a compaction). */
  keepSummary: boolean;
  /**
   * Hand over only inside the run that compacted, as the agent's session log shows it (Copilot
   * CLI's UserPromptSubmit, which runs beside a new run's SessionStart).
   */
  sameRunOnly?: boolean;
  /** The session ended (the agent's end-of-session hook): it holds its issue no longer (src/core/agentSessions.ts). */
  endSession?: boolean;
}

const NOTHING: HookPlan = { inject: 'never', checkpoint: false, arm: false, disarm: false, keepSummary: false };

const PLANS: Record<AgentId, Record<string, HookPlan>> = {
  claude: {
    SessionStart: { ...NOTHING, inject: 'always' },
    PreCompact: { ...NOTHING, checkpoint: true, steerCompaction: true },
    PostCompact: { ...NOTHING, keepSummary: true },
    SessionEnd: { ...NOTHING, endSession: true },
    // Not installed by us, but what a hand-written `context --format claude-hook` on it expects.
    UserPromptSubmit: { ...NOTHING, inject: 'always' },
  },
  codex: {
    SessionStart: { ...NOTHING, inject: 'always' },
    PreCompact: { ...NOTHING, checkpoint: true },
  },
  // Copilot CLI applies a compaction in the background and goes on in the same run: its next
  // prompt (UserPromptSubmit) or tool call (PostToolUse) hands the block over, whichever comes
  // first. A prompt that starts a later run leaves it to that run's SessionStart; VS Code, which
  // takes no context from UserPromptSubmit, keeps the marker for its PostToolUse (hook.ts).
  copilot: {
    SessionStart: { ...NOTHING, inject: 'always', disarm: true },
    PreCompact: { ...NOTHING, checkpoint: true, arm: true },
    PostToolUse: { ...NOTHING, inject: 'if-armed' },
    UserPromptSubmit: { ...NOTHING, inject: 'if-armed', sameRunOnly: true },
  },
  cursor: {
    sessionStart: { ...NOTHING, inject: 'always', disarm: true },
    preCompact: { ...NOTHING, checkpoint: true, arm: true },
    postToolUse: { ...NOTHING, inject: 'if-armed' },
  },
  // Gemini CLI's PreCompress comes before every model request, compressing or not, and a resume
  // drops what SessionStart gave: the session's chat file tells instead (core/geminiHistory.ts).
  // BeforeModel checkpoints each compression once; BeforeAgent and AfterTool hand the block over
  // whenever the history holds none (a new session, after a compression).
  gemini: {
    BeforeModel: { ...NOTHING, checkpointCompression: true },
    BeforeAgent: { ...NOTHING, inject: 'if-missing' },
    AfterTool: { ...NOTHING, inject: 'if-missing' },
    SessionEnd: { ...NOTHING, endSession: true },
  },
  // The events our opencode plugin (src/plugins/opencode.js) passes on. Before a compaction it only
  // checkpoints: the block goes in after it, once (session.compacted), not into the summary request too.
  opencode: {
    'session.resumed': { ...NOTHING, inject: 'always' },
    'session.compacting': { ...NOTHING, checkpoint: true },
    'session.compacted': { ...NOTHING, inject: 'always' },
  },
};

/** Whether a name is one of ours (the same list as hookConfig's AGENTS, without loading it: dist/hook.js asks this first). */
export function isHookAgent(value: string | undefined): value is AgentId {
  return value !== undefined && Object.hasOwn(PLANS, value);
}

/** The plan for an agent's event; an event we do not handle does nothing and answers `{}`. */
export function hookPlan(agent: AgentId, event: string): HookPlan {
  return PLANS[agent][event] ?? NOTHING;
}

/**
 * What opens a compaction record in each agent's transcript: a block delivered before it was
 * compacted away. Claude Code writes a `compact_boundary` system record
 * (see the transcript readers in src/services/transcripts/ for the shapes), Codex a `compacted`
 * rollout item. Gemini CLI's hooks read its chat file whole (core/geminiHistory.ts), not for a
 * boundary. VS Code and Cursor start no resumed session.
 */
export const TRANSCRIPT_BOUNDARIES: Record<AgentId, readonly string[]> = {
  claude: ['"subtype":"compact_boundary"'],
  codex: ['"type":"compacted"'],
  copilot: [],
  cursor: [],
  gemini: [],
  opencode: [],
};

/**
 * Whether the context a SessionStart hook gave stays in the conversation, so that a resumed
 * session holds it. Copilot CLI keeps a SessionStart hook's text for that run only: a `--resume`
 * (a run of its own) does not send it again, while what PostToolUse and UserPromptSubmit hooks gave
 * is sent again (the real-agent suite, @github/copilot 1.0.102). There every start needs the block,
 * and only a hand-over after a compaction is remembered for the session.
 */
export const START_CONTEXT_KEPT: Record<AgentId, boolean> = { claude: true, codex: true, copilot: false, cursor: true, gemini: true, opencode: true };

/** Put before the context when it arrives after a compaction on a later tool call, so the model knows why it is there. */
export const AFTER_COMPACTION_PREFIX = 'The conversation was compacted; this is the beads recovery context.\n\n';

/**
 * The JSON an agent reads back. Without a context it is `{}`, which every agent accepts as "go on".
 * Claude Code, Codex, VS Code, Copilot CLI and Gemini CLI take `hookSpecificOutput.additionalContext` echoing the event;
 * Cursor takes `additional_context` on sessionStart and postToolUse.
 */
export function hookResponse(agent: AgentId, event: string, context: string | undefined): string {
  if (context === undefined) return '{}';
  if (agent === 'cursor') return JSON.stringify({ additional_context: context });
  // The same file serves Copilot CLI, which takes a top-level `additionalContext` and not VS Code's
  // `hookSpecificOutput` one (the real-agent suite, @github/copilot 1.0.102); each reads its own.
  if (agent === 'copilot') return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context }, additionalContext: context });
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } });
}
