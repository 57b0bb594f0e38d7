// What the house knows of one coding agent, in one typed profile per agent (one file each beside
// this one, gathered in ./index.ts). The table is keyed by the one agent type, AgentId, and typed
// so that an agent without a complete profile does not compile; every other table keyed by
// AgentId (the hook formats and plans in ../hookConfig.ts and ../hookProtocol.ts) is named by the
// compiler too. Pure data.

/** The one spelling of each agent, as `hooks install --agent`, the hook command and the tables use it. */
export const AGENTS = ['claude', 'copilot', 'codex', 'cursor', 'gemini', 'opencode'] as const;
export type AgentId = (typeof AGENTS)[number];

export function isAgentId(value: unknown): value is AgentId {
  return typeof value === 'string' && (AGENTS as readonly string[]).includes(value);
}

/**
 * How much recovery context an agent's hook surface takes, in UTF-8 bytes (a byte budget is also
 * a character budget: no character is shorter than one byte).
 */
export interface SurfaceBudget {
  bytes: number;
  /** Where the agent's own limit is stated, or why the default is kept. */
  source: string;
}

/** The 2 KB default: for Copy, Inject and every surface whose limit no source states. */
export const DEFAULT_SURFACE_BUDGET: SurfaceBudget = { bytes: 2048, source: 'no limit stated by the agent (unverified): the 2 KB default' };

/** Where the agent reads its MCP servers, and the shape of our entry there (../mcpConfig.ts). */
export interface McpFile {
  /** Relative to the project, with forward slashes. */
  file: string;
  kind: 'json' | 'toml';
  /** JSON files: the object that holds the servers. */
  container?: string;
  /** JSON files: the entry names its transport. */
  typed?: boolean;
  /** opencode's own entry shape: `{type: "local", command: [program, ...args], environment}`. */
  opencode?: boolean;
}

/** Where an agent's configuration lives: a folder of the project, or of the user's home. */
export type ConfigScope = 'project' | 'user';

export interface PrimeConfigLocation {
  scope: ConfigScope;
  /** A file, or (ending in `/*.json`) every JSON file of a folder. */
  path: string;
}

export interface AgentProfile<Id extends string = AgentId> {
  id: Id;
  /** The agent's name where sessions are listed: "Claude Code", "Gemini CLI". */
  name: string;
  /** The agent as an install names it, with the surfaces one hook file serves. */
  label: string;
  /** How much recovery context its hook output may carry; DEFAULT_SURFACE_BUDGET when no limit is stated. */
  hookBudget: SurfaceBudget;
  /** Where our MCP server is registered for it. */
  mcp: McpFile;
  /** The files that can show bd's own `bd prime` reaching it at a session's start (../primeDetection.ts); none when bd sets up none. */
  primeLocations: readonly PrimeConfigLocation[];
  /**
   * The agent's own configuration in the project, besides its MCP file: the hook files we (and bd,
   * and the agent's own setup) write. Relative, forward slashes; `*` stands for one path segment.
   * None of it is ever work on an issue.
   */
  configFiles: readonly string[];
}
