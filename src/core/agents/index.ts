// What every other module asks of the agents, derived from their profiles (./table.ts): whether a
// name is an agent's, its name, its hook budget, and which files are its own and never work.
import { DEFAULT_SURFACE_BUDGET, type AgentId, type SurfaceBudget } from './profile';
import { AGENT_PROFILES } from './table';

export { AGENT_PROFILES, type ProfileTable } from './table';

/** Every agent, in the table's order (`--agent all`). */
export function agentIds(): AgentId[] {
  return Object.keys(AGENT_PROFILES) as AgentId[];
}

/** Whether a name is one of the agents: a key of the table. */
export function isAgentId(value: unknown): value is AgentId {
  return typeof value === 'string' && Object.hasOwn(AGENT_PROFILES, value);
}

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
  const { configFiles, hookFile, mcp } = AGENT_PROFILES[agent];
  return [...new Set([...configFiles, hookFile.file.local, ...(hookFile.file.shared ? [hookFile.file.shared] : []), mcp.file])];
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
/** Derived from the profiles, so it cannot drift from what an install writes. */
const AGENT_CONFIGURATION = new RegExp(
  `^(?:${agentIds()
    .flatMap((agent) => agentFiles(agent))
    .map((file) => escape(file).replace(/\*/g, '[^/]+'))
    .join('|')})$`,
);

/** Whether a path relative to the project (forward slashes) is an agent's own configuration: never work on an issue. */
export function isAgentConfigFile(relativePath: string): boolean {
  return AGENT_CONFIGURATION.test(relativePath);
}
