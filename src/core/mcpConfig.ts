// The agents' MCP registrations of `beads-recovery mcp`: `.mcp.json` (Claude Code),
// `.cursor/mcp.json` (Cursor), `.vscode/mcp.json` (VS Code, for hosts without the provider API)
// and `[mcp_servers.beads-recovery]` in `.codex/config.toml` (Codex). Our entry is the one named
// `beads-recovery`; everything else in the file stays as it is. JSON files are edited in place
// in place (core/jsoncEdit); the TOML file gets our table appended or cut out as text, and the result
// is checked with a TOML parser to hold exactly the other content plus (or minus) our table.
// Pure: the caller reads and writes the files.
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { findNodeAtLocation, getNodeValue } from 'jsonc-parser';
import { setJsonValue } from './jsoncEdit';
import { detectStyle, parseDocument, type AgentId, type ConfigEdit, type HookLauncher } from './hookConfig';
import { errorMessage } from './errors';
import { AGENT_PROFILES } from './agents';

export const MCP_SERVER_NAME = 'beads-recovery';

/** How an agent starts our server: no shell, the runtime with the script and `mcp`. */
export function mcpServerEntry(launcher: HookLauncher): { command: string; args: string[]; env?: Record<string, string> } {
  return {
    command: launcher.runtime,
    args: [launcher.script, 'mcp'],
    ...(launcher.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}

/** The launcher an existing registration of ours names, for path repair; undefined when there is none. */
export function registeredLauncher(text: string | undefined, agent: AgentId): HookLauncher | undefined {
  const entry = readEntry(text, agent);
  if (AGENT_PROFILES[agent].mcp.opencode) {
    const [runtime, script] = Array.isArray(entry?.command) ? (entry.command as unknown[]) : [];
    const environment = entry?.environment as Record<string, unknown> | undefined;
    return typeof runtime === 'string' && typeof script === 'string' ? { runtime, script, electron: environment?.ELECTRON_RUN_AS_NODE === '1' } : undefined;
  }
  if (!entry || typeof entry.command !== 'string' || !Array.isArray(entry.args) || typeof entry.args[0] !== 'string') return undefined;
  const env = entry.env as Record<string, unknown> | undefined;
  return { runtime: entry.command, script: entry.args[0], electron: env?.ELECTRON_RUN_AS_NODE === '1' };
}

export function installMcpServer(text: string | undefined, launcher: HookLauncher, agent: AgentId): ConfigEdit {
  const spec = AGENT_PROFILES[agent].mcp;
  const entry = spec.opencode ? opencodeEntry(launcher) : { ...(spec.typed ? { type: 'stdio' } : {}), ...mcpServerEntry(launcher) };
  return spec.kind === 'toml' ? editToml(text, entry) : editJson(text, spec.container!, entry);
}

function opencodeEntry(launcher: HookLauncher): Record<string, unknown> {
  return {
    type: 'local',
    command: [launcher.runtime, launcher.script, 'mcp'],
    ...(launcher.electron ? { environment: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}

export function uninstallMcpServer(text: string | undefined, agent: AgentId): ConfigEdit {
  const spec = AGENT_PROFILES[agent].mcp;
  return spec.kind === 'toml' ? editToml(text, undefined) : editJson(text, spec.container!, undefined);
}

function readEntry(text: string | undefined, agent: AgentId): Record<string, unknown> | undefined {
  const spec = AGENT_PROFILES[agent].mcp;
  if (spec.kind === 'toml') {
    const parsed = parseTomlText(text);
    return parsed.ok ? ((parsed.value.mcp_servers as Record<string, unknown> | undefined)?.[MCP_SERVER_NAME] as Record<string, unknown> | undefined) : undefined;
  }
  const parsed = parseDocument(text);
  const node = parsed.ok && parsed.root ? findNodeAtLocation(parsed.root, [spec.container!, MCP_SERVER_NAME]) : undefined;
  const value: unknown = node ? getNodeValue(node) : undefined;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function editJson(text: string | undefined, container: string, entry: Record<string, unknown> | undefined): ConfigEdit {
  const parsed = parseDocument(text);
  if (!parsed.ok) return parsed;
  const original = text ?? '';
  const servers = parsed.root ? findNodeAtLocation(parsed.root, [container]) : undefined;
  if (servers && servers.type !== 'object') return { ok: false, error: `"${container}" is not an object` };
  const existing: unknown = servers ? getNodeValue(servers)[MCP_SERVER_NAME] : undefined;
  if (JSON.stringify(existing) === JSON.stringify(entry)) return { ok: true, text: original, changed: false };
  const style = detectStyle(original);
  const base = original.trim() === '' ? '{}' : original;
  let next = setJsonValue(base, [container, MCP_SERVER_NAME], entry, style);
  if (entry === undefined) {
    const left = parseDocument(next);
    const holder = left.ok && left.root ? findNodeAtLocation(left.root, [container]) : undefined;
    if (holder && (holder.children ?? []).length === 0) next = setJsonValue(next, [container], undefined, style);
    const rest = parseDocument(next);
    if (rest.ok && (rest.root?.children ?? []).length === 0) return { ok: true, text: '', changed: true };
  }
  const finalNewline = original.trim() === '' || /\n$/.test(original);
  const body = next.replace(/\r?\n$/, '');
  return { ok: true, text: finalNewline ? `${body}${style.eol}` : body, changed: true };
}

function parseTomlText(text: string | undefined): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (text === undefined || text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: parseToml(text) as Record<string, unknown> };
  } catch (error) {
    return { ok: false, error: `not valid TOML (${errorMessage(error).split('\n')[0]})` };
  }
}

/** Header lines of our table and its sub-tables (`[mcp_servers.beads-recovery]`, `[mcp_servers."beads-recovery".env]`). */
const OUR_HEADER = /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*"?beads-recovery"?[ \t]*(?:\.[^\]\n]*)?\][ \t]*\r?$/;
const ANY_HEADER = /^[ \t]*\[/;

function editToml(text: string | undefined, entry: Record<string, unknown> | undefined): ConfigEdit {
  const parsed = parseTomlText(text);
  if (!parsed.ok) return parsed;
  const original = text ?? '';
  const servers = parsed.value.mcp_servers;
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) return { ok: false, error: '"mcp_servers" is not a table' };
  const existing = (servers as Record<string, unknown> | undefined)?.[MCP_SERVER_NAME];
  if (JSON.stringify(existing) === JSON.stringify(entry)) return { ok: true, text: original, changed: false };

  const eol = original.includes('\r\n') ? '\r\n' : '\n';
  let next = existing === undefined ? original : cutOurTables(original);
  if (entry !== undefined) {
    const block = stringifyToml({ mcp_servers: { [MCP_SERVER_NAME]: entry } }).trimEnd().replace(/\n/g, eol);
    const separator = next.trim() === '' ? '' : next.endsWith(`${eol}${eol}`) ? '' : next.endsWith(eol) ? eol : `${eol}${eol}`;
    next = `${next.trim() === '' ? '' : next}${separator}${block}${eol}`;
  }

  // The edit was textual: hold it to what it must mean, or refuse it.
  const check = parseTomlText(next);
  const expected = structuredClone(parsed.value);
  const expectedServers = (expected.mcp_servers ?? {}) as Record<string, unknown>;
  if (entry === undefined) delete expectedServers[MCP_SERVER_NAME];
  else expectedServers[MCP_SERVER_NAME] = entry;
  if (Object.keys(expectedServers).length > 0 || expected.mcp_servers !== undefined) expected.mcp_servers = expectedServers;
  const normal = (value: unknown) => JSON.stringify(value, (_key, item: unknown) => (item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))) : item));
  const matches = check.ok && (normal(check.value) === normal(expected) || (entry === undefined && normal({ ...check.value, mcp_servers: check.value.mcp_servers ?? {} }) === normal(expected)));
  if (!matches) return { ok: false, error: `the [mcp_servers.${MCP_SERVER_NAME}] table is written in a way this installer cannot edit safely; edit it by hand` };
  // A config that held nothing but our table is nothing once it goes (the caller deletes the file).
  return { ok: true, text: entry === undefined && next.trim() === '' ? '' : next, changed: true };
}

/** The text without our table and its sub-tables; a blank line left before a table that ended the file goes with it. */
function cutOurTables(text: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  let inOurs = false;
  for (const line of lines) {
    if (ANY_HEADER.test(line)) inOurs = OUR_HEADER.test(line);
    if (!inOurs) kept.push(line);
  }
  let next = kept.join('\n');
  if (!next.endsWith('\n') && text.endsWith('\n')) next += '\n';
  while (next.endsWith('\n\n') || next.endsWith('\r\n\r\n')) next = next.slice(0, next.endsWith('\r\n\r\n') ? -2 : -1);
  return next;
}
