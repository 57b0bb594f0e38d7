// Does bd's own `bd prime` already reach an agent at the start of its sessions? Then the agent has
// beads' workflow rules, and our hook output carries the work state alone: rules given twice only
// cost the agent's context (the double-prime problem: beads#3192, gascity#313). What `bd setup`
// writes, per agent:
//
//   claude   .claude/settings.json (or the user's ~/.claude/settings.json): SessionStart
//            `bd prime --hook-json` (or `--stealth`); the beads Claude plugin, enabled through
//            `enabledPlugins: {"beads@…": true}`, runs `bd prime` on SessionStart itself
//   codex    .codex/hooks.json: SessionStart `bd codex-hook SessionStart`, which injects prime;
//            beads' Codex plugin, enabled in `.codex/config.toml` (project or $CODEX_HOME) as
//            `[plugins."beads@…"] enabled = true`, ships the same hooks (bd setup codex then
//            writes no hooks.json)
//   cursor   .cursor/hooks.json: sessionStart `bd cursor-hook sessionStart`
//   copilot  .github/hooks/*.json: sessionStart `{"bash": "bd prime", "powershell": "bd prime"}`, plain
//            text that neither VS Code nor Copilot CLI hands the model: it does not count
//   gemini   .gemini/settings.json (or the user's ~/.gemini/settings.json): SessionStart `bd prime --hook-json`
//
// Pure: the caller reads the files (src/services/primeDetection.ts) and passes their text.
import { parse as parseToml } from 'smol-toml';
import { AGENT_PROFILES } from './agents';
import { type AgentId, type ConfigScope, type PrimeConfigLocation } from './agents/profile';

// Codex's config.toml can also enable beads' own Codex plugin, which runs prime (see codexBeadsPlugin).
const CODEX_CONFIG = '.codex/config.toml';

/** One configuration file an agent reads, as the caller found it. */
export interface AgentConfigFile {
  scope: ConfigScope;
  /** Relative to the scope's folder, with forward slashes: `.claude/settings.json`. */
  path: string;
  text: string;
}

export type PrimePresence = { present: true; reason: string } | { present: false };

// A command that runs bd's prime, directly or through bd's own per-agent hook entry points:
// `bd prime …`, `/usr/local/bin/bd prime`, `bd.exe prime`, `bd codex-hook SessionStart`, ….
const BD_PRIME_COMMAND = /(?:^|[\s;&|(/\\"'])bd(?:\.exe|\.cmd)?["']?\s+(?:prime|codex-hook|cursor-hook)\b/i;
// The event names under which a session's first context is injected, compared case-insensitively.
const SESSION_START = 'sessionstart';

/**
 * Whether bd's prime already reaches `agent` when a session starts, judged from the agent's
 * configuration files (any of AGENT_PROFILES[agent].primeLocations; others are ignored). A file that is
 * not valid JSON (or TOML) shows nothing, so our rules stay in: a doubled rule costs less than a missing one.
 */
export function bdPrimeReachesAgent(agent: AgentId, files: readonly AgentConfigFile[]): PrimePresence {
  const ours = files.filter((file) => AGENT_PROFILES[agent].primeLocations.some((location) => matches(location, file)));
  if (agent === 'codex') {
    const plugin = codexBeadsPlugin(ours.filter((file) => file.path === CODEX_CONFIG));
    if (plugin) return { present: true, reason: `beads' Codex plugin, enabled in ${plugin}` };
  }
  for (const file of ours) {
    if (file.path === CODEX_CONFIG) continue;
    const json = parseJson(file.text);
    if (!isObject(json)) continue;
    const where = displayPath(file);
    if (sessionStartRunsPrime(json.hooks)) return { present: true, reason: `a bd prime SessionStart hook in ${where}` };
    if (agent === 'claude' && beadsPluginEnabled(json.enabledPlugins)) return { present: true, reason: `the beads Claude plugin, enabled in ${where}` };
  }
  return { present: false };
}

function displayPath(file: AgentConfigFile): string {
  return `${file.scope === 'user' ? '~/' : ''}${file.path}`;
}

/**
 * Where beads' Codex plugin is enabled, or undefined when it is not. Codex layers its config.toml
 * files, the project's over the user's, so the project's word on a key wins. The plugin's hooks
 * run only while plugins and hooks are on (`[features] plugins`, `hooks`, or the older
 * `codex_hooks`, set false). A file that is not TOML says nothing, as Codex would refuse it.
 */
function codexBeadsPlugin(configs: readonly AgentConfigFile[]): string | undefined {
  const layers = [...configs.filter((file) => file.scope === 'user'), ...configs.filter((file) => file.scope === 'project')];
  const plugins = new Map<string, { enabled: boolean; where: string }>();
  const features = new Map<string, unknown>();
  for (const file of layers) {
    const toml = parseTomlTable(file.text);
    if (!toml) continue;
    for (const [name, value] of Object.entries(isObject(toml.plugins) ? toml.plugins : {})) {
      if (/^beads@/i.test(name) && isObject(value) && typeof value.enabled === 'boolean') plugins.set(name, { enabled: value.enabled, where: displayPath(file) });
    }
    for (const [name, value] of Object.entries(isObject(toml.features) ? toml.features : {})) features.set(name, value);
  }
  if (['plugins', 'hooks', 'codex_hooks'].some((feature) => features.get(feature) === false)) return undefined;
  return [...plugins.values()].find((plugin) => plugin.enabled)?.where;
}

function parseTomlTable(text: string): Record<string, unknown> | undefined {
  try {
    return parseToml(text.replace(/^\ufeff/, '')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
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
