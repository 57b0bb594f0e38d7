// Does bd's own `bd prime` already reach an agent at the start of its sessions? Then the agent has
// beads' workflow rules, and our hook output carries the work state alone: rules given twice only
// cost the agent's context (the double-prime problem: beads#3192, gascity#313). What `bd setup`
// writes, per agent:
//
//   claude   .claude/settings.json (or the user's ~/.claude/settings.json): SessionStart
//            `bd prime --hook-json` (or `--stealth`); the beads Claude plugin, enabled through
//            `enabledPlugins: {"beads@…": true}`, runs `bd prime` on SessionStart itself
//   codex    .codex/hooks.json: SessionStart `bd codex-hook SessionStart`, which injects prime
//   cursor   .cursor/hooks.json: sessionStart `bd cursor-hook sessionStart`
//   copilot  .github/hooks/*.json: sessionStart `{"bash": "bd prime", "powershell": "bd prime"}`
//
// Pure: the caller reads the files (src/services/primeDetection.ts) and passes their text.

export type PrimeAgent = 'claude' | 'codex' | 'cursor' | 'copilot';

/** Where an agent's configuration lives: a folder of the project, or of the user's home. */
export type ConfigScope = 'project' | 'user';

/** One configuration file an agent reads, as the caller found it. */
export interface AgentConfigFile {
  scope: ConfigScope;
  /** Relative to the scope's folder, with forward slashes: `.claude/settings.json`. */
  path: string;
  text: string;
}

export interface PrimeConfigLocation {
  scope: ConfigScope;
  /** A file, or (ending in `/*.json`) every JSON file of a folder. */
  path: string;
}

/** The files that can show bd's prime reaching each agent. */
export const PRIME_CONFIG_LOCATIONS: Readonly<Record<PrimeAgent, readonly PrimeConfigLocation[]>> = {
  claude: [
    { scope: 'project', path: '.claude/settings.json' },
    { scope: 'project', path: '.claude/settings.local.json' },
    { scope: 'user', path: '.claude/settings.json' },
  ],
  codex: [
    { scope: 'project', path: '.codex/hooks.json' },
    { scope: 'user', path: '.codex/hooks.json' },
  ],
  cursor: [
    { scope: 'project', path: '.cursor/hooks.json' },
    { scope: 'user', path: '.cursor/hooks.json' },
  ],
  copilot: [{ scope: 'project', path: '.github/hooks/*.json' }],
};

export type PrimePresence = { present: true; reason: string } | { present: false };

// A command that runs bd's prime, directly or through bd's own per-agent hook entry points:
// `bd prime …`, `/usr/local/bin/bd prime`, `bd.exe prime`, `bd codex-hook SessionStart`, ….
const BD_PRIME_COMMAND = /(?:^|[\s;&|(/\\"'])bd(?:\.exe|\.cmd)?["']?\s+(?:prime|codex-hook|cursor-hook)\b/i;
// The event names under which a session's first context is injected, compared case-insensitively.
const SESSION_START = 'sessionstart';

/**
 * Whether bd's prime already reaches `agent` when a session starts, judged from the agent's
 * configuration files (any of PRIME_CONFIG_LOCATIONS[agent]; others are ignored). A file that is
 * not valid JSON shows nothing, so our rules stay in: a doubled rule costs less than a missing one.
 */
export function bdPrimeReachesAgent(agent: PrimeAgent, files: readonly AgentConfigFile[]): PrimePresence {
  for (const file of files) {
    if (!PRIME_CONFIG_LOCATIONS[agent].some((location) => matches(location, file))) continue;
    const json = parseJson(file.text);
    if (!isObject(json)) continue;
    const where = `${file.scope === 'user' ? '~/' : ''}${file.path}`;
    if (sessionStartRunsPrime(json.hooks)) return { present: true, reason: `a bd prime SessionStart hook in ${where}` };
    if (agent === 'claude' && beadsPluginEnabled(json.enabledPlugins)) return { present: true, reason: `the beads Claude plugin, enabled in ${where}` };
  }
  return { present: false };
}

function matches(location: PrimeConfigLocation, file: AgentConfigFile): boolean {
  if (location.scope !== file.scope) return false;
  if (!location.path.endsWith('/*.json')) return location.path === file.path;
  const folder = location.path.slice(0, -'*.json'.length);
  return file.path.startsWith(folder) && file.path.endsWith('.json') && !file.path.slice(folder.length).includes('/');
}

/** Any string under a session-start event of `hooks` that runs bd's prime (command, bash, powershell, …). */
function sessionStartRunsPrime(hooks: unknown): boolean {
  if (!isObject(hooks)) return false;
  return Object.entries(hooks).some(([event, entries]) => event.toLowerCase() === SESSION_START && strings(entries).some((text) => BD_PRIME_COMMAND.test(text)));
}

function beadsPluginEnabled(plugins: unknown): boolean {
  return isObject(plugins) && Object.entries(plugins).some(([name, enabled]) => /^beads@/i.test(name) && enabled === true);
}

/** Every string inside a JSON value, depth first; bounded so that a pathological file stays cheap. */
function strings(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((child) => strings(child, depth + 1));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\ufeff/, ''));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
