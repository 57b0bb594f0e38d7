// What `beads-recovery hook <agent> <event>` reads from an agent and answers it. Pure.
//
// Each agent writes a JSON object to the hook's stdin and reads one JSON object back from its
// stdout. What each event does, how the agent reads the answer, its transcript boundaries and
// whether a start's context is kept are in the agent's profile (./agents/<agent>.ts): Claude Code
// and Codex get the context again from SessionStart (source `compact`); VS Code's agent hooks (and
// Copilot CLI) and Cursor have no event after a compaction, so their PreCompact arms a one-shot
// marker that the next tool call hands over and clears; Gemini CLI's hooks read the session's chat
// file (core/geminiHistory.ts). A new session clears a marker left over from an earlier one.
import { AGENT_PROFILES, isAgentId } from './agents';
import { NO_PLAN, type AgentId, type AgentProfile, type HookPlan } from './agents/profile';

export type { HookPlan } from './agents/profile';

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

/** Whether a name is one of ours (dist/hook.js asks this first: the profiles are plain data, no hook file editing comes with them). */
export function isHookAgent(value: string | undefined): value is AgentId {
  return isAgentId(value);
}

/** The plan for an agent's event, from its profile; an event we do not handle does nothing and answers `{}`. */
export function hookPlan(agent: AgentId, event: string): HookPlan {
  const events: Readonly<Record<string, HookPlan>> = AGENT_PROFILES[agent].events;
  return Object.hasOwn(events, event) ? (events[event] as HookPlan) : NO_PLAN;
}

/**
 * Whether a hook run only hands a new or cleared conversation its start block: a block at every
 * start ('always') and nothing else to do first. The one kind of run the start block's cache may
 * answer (bin/hookStart.ts). Not after a compaction (that block carries the session's thread), nor
 * at a resume (the conversation may hold a block already: a correction is due, or nothing).
 */
export function isPlainStart(plan: HookPlan, input: HookInput | undefined): boolean {
  const plain = plan.inject === 'always' && !plan.arm && !plan.checkpoint && !plan.checkpointCompression && !plan.endSession && !plan.keepSummary && !plan.sameRunOnly;
  return plain && input?.session !== undefined && input.source !== 'resume' && input.source !== 'compact';
}

/** Each agent's profile's value of `key`, keyed by agent. */
function byAgent<K extends keyof AgentProfile>(key: K): { readonly [A in AgentId]: AgentProfile[K] } {
  return Object.fromEntries(Object.values(AGENT_PROFILES).map((profile: AgentProfile) => [profile.id, profile[key]])) as { readonly [A in AgentId]: AgentProfile[K] };
}

/** What opens a compaction record in each agent's transcript (its profile's `transcriptBoundaries`). */
export const TRANSCRIPT_BOUNDARIES = byAgent('transcriptBoundaries');

/** Whether the context a start hook gave stays in each agent's conversation (its profile's `startContextKept`). */
export const START_CONTEXT_KEPT = byAgent('startContextKept');

/** Put before the context when it arrives after a compaction on a later tool call, so the model knows why it is there. */
export const AFTER_COMPACTION_PREFIX = 'The conversation was compacted; this is the beads recovery context.\n\n';

/**
 * The JSON an agent reads back. Without a context it is `{}`, which every agent accepts as "go on";
 * with one, the shape its profile's `answer` names.
 */
export function hookResponse(agent: AgentId, event: string, context: string | undefined): string {
  if (context === undefined) return '{}';
  const answer = AGENT_PROFILES[agent].answer;
  switch (answer) {
    case 'additional_context':
      return JSON.stringify({ additional_context: context });
    case 'hook-specific-and-top-level':
      return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context }, additionalContext: context });
    case 'hook-specific-output':
      return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } });
    default:
      return unknownAnswer(answer);
  }
}

/** A new answer shape added to HookAnswer without its case above does not compile. */
function unknownAnswer(answer: never): never {
  throw new Error(`no hook answer for ${String(answer)}`);
}
