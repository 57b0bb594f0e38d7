// `beads-recovery hooks install|uninstall|status`: wires the agent hooks (and, with --mcp, the MCP
// server) of Claude Code, VS Code's Copilot agent and Copilot CLI, Codex, Cursor, Gemini CLI and opencode into a project, for people who
// use the command line alone. The same plans as the extension's "Beads: Install Agent Hooks…".
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_FORMATS, AGENTS, isAgentId, launcherFor, type AgentId, type HookLauncher } from '../core/hookConfig';
import { AGENT_PROFILES } from '../core/agents';
import type { AgentProfile } from '../core/agents/profile';
import { applyChange, installedEntries, planSetup, unusableHookFiles, type SetupPlan } from '../services/agentSetup';
import { ensureLauncher } from '../services/launcherShim';
import { keepLocal, namesMachinePaths } from '../services/localFiles';
import { errorMessage } from '../core/errors';

/** The launcher of this very script, as a hook command should call it. */
export function currentLauncher(): HookLauncher {
  return launcherFor(
    { execPath: process.execPath, electron: process.versions.electron !== undefined, windows: process.platform === 'win32' },
    path.resolve(process.argv[1] ?? __filename),
  );
}

/** Every `--agent` value: each agent, then the other names of its files (`copilot-cli`). */
function agentNames(): string[] {
  return Object.values<AgentProfile>(AGENT_PROFILES).flatMap((profile) => [profile.id, ...(profile.aliases ?? [])]);
}

/** The agent another `--agent` value names (`copilot-cli`: Copilot CLI reads VS Code's hook file). */
function agentNamed(name: string): AgentId | undefined {
  if (isAgentId(name)) return name;
  return Object.values<AgentProfile>(AGENT_PROFILES).find((profile) => profile.aliases?.includes(name))?.id;
}

const USAGE_WIDTH = 100;
const AGENT_COLUMN = 11;

/** Words wrapped to the usage text's width after `first`, the lines after the first indented by `indent`. */
function wrapped(words: string, first: string, indent = 0): string {
  const lines: string[] = [];
  let line = first;
  for (const word of words.split(' ')) {
    if (line.trim() !== '' && line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line.endsWith(' ') || line === '' ? line + word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

/** One agent's lines of the usage text, from its profile: its hook file, its events, and its own words. */
function agentUsage(profile: AgentProfile): string {
  const { file, hooks } = profile.hookFile;
  const where = file.shared ? `${file.local} (--shared: ${file.shared})` : file.local;
  return wrapped(`${where}: ${hooks.map((spec) => spec.event).join(', ')} (${profile.usage})`, `  ${profile.id.padEnd(AGENT_COLUMN - 2)}`, AGENT_COLUMN);
}

/** `hooks`' part of the command line's usage text; each agent's lines come from its profile. */
function hooksUsage(): string {
  const profiles = Object.values<AgentProfile>(AGENT_PROFILES);
  const mcpFiles = [...new Set(profiles.map((profile) => profile.mcp.file))];
  return `  beads-recovery hooks install|uninstall|status
                       [--agent ${[...agentNames(), 'all'].join('|')}]
                       [--dir DIR] [--shared] [--mcp] [--dry-run]

Adds to (or removes from) the project in DIR (default: the current folder) the hooks that hand an
agent the recovery context at a new session and after a compaction, and checkpoint before one:
${profiles.map(agentUsage).join('\n')}
${wrapped(`--agent defaults to claude. --mcp also registers the MCP server (beads-recovery mcp) in ${mcpFiles.slice(0, -1).join(', ')} or ${mcpFiles.at(-1) ?? ''}.`, '')}
Every other entry stays as it is. --dry-run prints the new files without writing them.`;
}

export const HOOKS_USAGE = hooksUsage();

/** `beads-recovery hooks …`; returns the exit code. */
export async function hooksCommand(
  args: string[],
  out: (text: string) => void = (text) => process.stdout.write(text),
  err: (text: string) => void = (text) => process.stderr.write(text),
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      agent: { type: 'string', default: 'claude' },
      dir: { type: 'string' },
      shared: { type: 'boolean', default: false },
      mcp: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const [action] = positionals;
  if (positionals.length !== 1 || (action !== 'install' && action !== 'uninstall' && action !== 'status')) {
    throw new HookUsageError('hooks takes one of install, uninstall, status');
  }
  const named = agentNamed(values.agent);
  const agents: readonly AgentId[] = values.agent === 'all' ? AGENTS : named ? [named] : [];
  if (agents.length === 0) throw new HookUsageError(`unknown --agent '${values.agent}'; use ${agentNames().join(', ')} or all`);
  const root = path.resolve(values.dir ?? process.cwd());

  if (action === 'status') {
    let unusable = 0;
    for (const agent of agents) {
      // A file we would refuse to edit is not read for entries either: what it holds is unclear.
      const problems = await unusableHookFiles(root, agent);
      for (const problem of problems) err(`beads-recovery: ${AGENT_PROFILES[agent].label}: ${problem}.\n`);
      unusable += problems.length;
      const entries = await installedEntries(root, agent);
      if (entries.length === 0 && problems.length === 0) out(`${AGENT_PROFILES[agent].label}: no beads-recovery hooks.\n`);
      for (const { relative, event, command } of entries) out(`${AGENT_PROFILES[agent].label} (${relative}) ${event}: ${command}\n`);
    }
    return unusable > 0 ? 1 : 0;
  }

  const plan = await planSetup(root, agents, action, currentLauncher(), { shared: values.shared, mcp: values.mcp });
  for (const { error } of plan.problems) err(`beads-recovery: ${error}${error.includes('nothing was changed') ? '' : '; nothing was changed'}.\n`);
  for (const agent of plan.unchanged) {
    out(action === 'install' ? `${AGENT_PROFILES[agent].label}: the beads-recovery entries are already there.\n` : `${AGENT_PROFILES[agent].label}: no beads-recovery entries.\n`);
  }
  if (values['dry-run']) {
    for (const change of plan.changes) out(change.after === '' ? `--- ${change.relative} (would be removed)\n` : `--- ${change.relative}\n${change.after}`);
    return plan.problems.length > 0 ? 1 : 0;
  }
  // The hooks run the per-user launcher: it points at this command line from now on.
  if (action === 'install' && plan.changes.length > 0) {
    const { warning } = await ensureLauncher(currentLauncher());
    if (warning) err(`beads-recovery: ${warning}.\n`);
  }
  for (const change of plan.changes) {
    try {
      const local = action === 'install' && namesMachinePaths(change) ? await keepLocal(root, change.relative) : undefined;
      await applyChange(root, change);
      out(describe(action, change));
      if (local) {
        await local.apply();
        out(`${local.message}\n`);
      }
    } catch (error) {
      err(`beads-recovery: ${errorMessage(error)}.\n`);
      plan.problems.push({ agent: change.agent, relative: change.relative, error: errorMessage(error) });
    }
  }
  if (action === 'install') for (const agent of changedAgents(plan)) if (AGENT_FORMATS[agent].afterInstall) out(`${AGENT_FORMATS[agent].afterInstall}\n`);
  return plan.problems.length > 0 ? 1 : 0;
}

function describe(action: 'install' | 'uninstall', change: SetupPlan['changes'][number]): string {
  if (action === 'uninstall') return change.after === '' ? `Removed ${change.relative} (it held only beads-recovery entries).\n` : `Removed the beads-recovery entries from ${change.relative}.\n`;
  return `${AGENT_PROFILES[change.agent].label}: wrote the beads-recovery entries into ${change.relative}.\n`;
}

function changedAgents(plan: SetupPlan): AgentId[] {
  return [...new Set(plan.changes.map((change) => change.agent))];
}

export class HookUsageError extends Error {}
