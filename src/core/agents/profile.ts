// What the house knows of one coding agent, in one typed profile per agent (one file each beside
// this one, gathered in ./table.ts): its names, its hook file, layout and events, what each event
// does, how it reads a hook's answer, its transcript boundaries, its MCP file, where bd's prime may
// reach it, its budget and the usage text's words for it. The table is keyed by the one agent type,
// AgentId, and typed so that an agent without a complete profile does not compile; the hook files
// (../hookConfig.ts), the hook protocol (../hookProtocol.ts), the usage text (src/bin/hooks.ts) and
// which files are never work (./index.ts) are derived from it. Pure data.

/** The one spelling of each agent, as `hooks install --agent`, the hook command and the tables use it. */
export const AGENTS = ['claude', 'copilot', 'codex', 'cursor', 'gemini', 'opencode'] as const;
export type AgentId = (typeof AGENTS)[number];


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

/** Before the agent gives up on a hook command, in seconds (Gemini CLI counts in milliseconds); our own deadline is well below it. */
export const HOOK_TIMEOUT_S = 30;

/** One event our hook file registers. */
export interface HookSpec {
  /** The agent's event name, as its file spells it. */
  event: string;
  /** Nested layouts only: which occurrences of the event run the hook. */
  matcher?: string;
  /** Before the agent gives up on the command (in the agent's own unit); our own deadline is well below it. */
  timeout: number;
}

/**
 * The agent's hook file and our entries in it (../hookConfig.ts writes it):
 *
 *   nested (Claude Code, Codex, Gemini CLI):  { "hooks": { "SessionStart": [ { "matcher": "…", "hooks": [ {handler} ] } ] } }
 *   flat (VS Code agent hooks and Copilot CLI, Cursor): { "hooks": { "SessionStart": [ {handler} ] } }
 *   plugin (opencode): a JavaScript file of ours alone (src/plugins/opencode.js, via ../opencodePlugin.ts)
 */
export interface HookFile {
  layout: 'nested' | 'flat' | 'plugin';
  /** The hook file, relative to the project: the private one, and the one shared with the team when they differ. */
  file: { local: string; shared?: string };
  /** Top-level keys the file must hold for the agent to read it (`version` of Cursor and Copilot CLI); an install adds those missing. */
  preamble?: Record<string, unknown>;
  /**
   * The agent has one `command` for every platform, run by sh there and by PowerShell on Windows
   * (Gemini CLI, Cursor): the command is written to run in both, so a committed file works for
   * every teammate whatever platform installed it.
   */
  commandShell?: 'posix-or-powershell';
  /**
   * The handler field that holds the command for Windows, and the shape its runner needs there;
   * `replaces` names fields of ours that older versions wrote and an install takes out.
   */
  windows?: { field: string; shell: 'powershell' | 'encoded-powershell'; replaces?: string[] };
  /** The events we register, each with a plan in the profile's `events`. */
  hooks: readonly HookSpec[];
  /** What the user must do before the new hooks run, when the agent asks for something. */
  afterInstall?: string;
  /** Signs that the agent is used here: its folder in the project, its executable on PATH, its VS Code extension. */
  signs: { folders: string[]; executables: string[]; extensions: string[] };
}

/** What one hook does (`beads-recovery hook <agent> <event>`, ../hookProtocol.ts). */
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
  /** The session ended (the agent's end-of-session hook): it holds its issue no longer (../agentSessions.ts). */
  endSession?: boolean;
  /**
   * With `inject: 'if-missing'`, when the history holds a block already: where the session's issue
   * is another now than the one that block named (a claim made since), a short correction goes
   * instead of nothing (Gemini CLI's BeforeAgent: a prompt, which every resumed run starts with).
   */
  correctHeld?: boolean;
}

/** An event that does nothing: the hook answers `{}`. Each plan is this with what its event does. */
export const NO_PLAN: HookPlan = { inject: 'never', checkpoint: false, arm: false, disarm: false, keepSummary: false };

/**
 * How the agent reads a hook's answer: `hookSpecificOutput.additionalContext` echoing the event
 * (Claude Code, Codex, Gemini CLI, opencode's plugin), Cursor's top-level `additional_context`, or
 * both VS Code's `hookSpecificOutput` and Copilot CLI's top-level `additionalContext` (one file serves both).
 */
export type HookAnswer = 'hook-specific-output' | 'additional_context' | 'hook-specific-and-top-level';

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
  /** Its hook file, layout and events. */
  hookFile: HookFile;
  /** What each event does; an event not named does nothing and answers `{}`. Every event of `hookFile.hooks` is named. */
  events: Readonly<Record<string, HookPlan>>;
  /** How it reads a hook's answer. */
  answer: HookAnswer;
  /**
   * What opens a compaction record in its transcript (a block delivered before it was compacted
   * away), as raw text of the record; none when its hooks do not look for one.
   */
  transcriptBoundaries: readonly string[];
  /** Whether the context a start hook gave stays in the conversation, so that a resumed session holds it. */
  startContextKept: boolean;
  /** Other `--agent` values that name its files (`copilot-cli`). */
  aliases?: readonly string[];
  /** The usage text's words for it after its hook file (`hooks --help`): who reads the file, what its events do, what to do after. */
  usage: string;
}
