// The table of agent profiles, keyed by the one agent type. Adding an agent: its name in AGENTS
// (./profile.ts), its profile file here, and its row below; the compiler then names every other
// table keyed by AgentId (test/unit/core/agents/profiles.test.ts shows an incomplete profile or a
// missing row fails to compile). docs/ARCHITECTURE.md §3 lists what else an agent has today.
import { claude } from './claude';
import { codex } from './codex';
import { copilot } from './copilot';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { opencode } from './opencode';
import { DEFAULT_SURFACE_BUDGET, isAgentId, type AgentId, type AgentProfile, type SurfaceBudget } from './profile';

/** One complete profile per agent, each under its own id. */
export type ProfileTable<Id extends string> = { readonly [A in Id]: AgentProfile<A> };

export const AGENT_PROFILES: ProfileTable<AgentId> = { claude, copilot, codex, cursor, gemini, opencode };

/** The agent's name where sessions are listed; the name itself for a session of another kind (VS Code's own window). */
export function agentName(agent: string): string {
  if (isAgentId(agent)) return AGENT_PROFILES[agent].name;
  return agent === 'vscode' ? 'VS Code' : agent;
}

/** The budget of an agent's hook surface: its stated limit, less a margin, else the 2 KB default. */
export function hookSurfaceBudget(agent: string): SurfaceBudget {
  return isAgentId(agent) ? AGENT_PROFILES[agent].hookBudget : DEFAULT_SURFACE_BUDGET;
}

/** Every file of an agent's own configuration in the project: its hook files and its MCP file (`*`: one path segment). */
export function agentFiles(agent: AgentId): readonly string[] {
  const { configFiles, mcp } = AGENT_PROFILES[agent];
  return [...new Set([...configFiles, mcp.file])];
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
/** Derived from the profiles, so it cannot drift from what an install writes. */
const AGENT_CONFIGURATION = new RegExp(
  `^(?:${Object.values<AgentProfile<AgentId>>(AGENT_PROFILES)
    .flatMap((profile) => agentFiles(profile.id))
    .map((file) => escape(file).replace(/\*/g, '[^/]+'))
    .join('|')})$`,
);

/** Whether a path relative to the project (forward slashes) is an agent's own configuration: never work on an issue. */
export function isAgentConfigFile(relativePath: string): boolean {
  return AGENT_CONFIGURATION.test(relativePath);
}
