// The table of agent profiles, keyed by the one agent type. Adding an agent: its name in AGENTS
// (./profile.ts), its profile file here, its row below, and its transcript reader; the compiler
// then names every other table keyed by AgentId, and test/unit/core/agents/seventhAgent.test.ts
// shows a made-up profile in this table reaching every use (install, hook dispatch, the usage
// text, the files that are never work). docs/ARCHITECTURE.md §3 "Know an agent".
import { claude } from './claude';
import { codex } from './codex';
import { copilot } from './copilot';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { opencode } from './opencode';
import type { AgentId, AgentProfile } from './profile';

/** One complete profile per agent, each under its own id. */
export type ProfileTable<Id extends string> = { readonly [A in Id]: AgentProfile<A> };

export const AGENT_PROFILES: ProfileTable<AgentId> = { claude, copilot, codex, cursor, gemini, opencode };
