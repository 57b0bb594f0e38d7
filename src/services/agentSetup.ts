// Installing, removing and repairing our agent hooks and MCP registrations in a project: which
// files change and how (a plan the caller can show before anything is written), and writing them
// safely. Shared by `beads-recovery hooks …` and VS Code's "Beads: Install Agent Hooks…".
//
// Safety: a file that is not valid JSON/TOML, has the wrong shape or cannot be written is reported
// and left as it is, and nothing else of that agent is written either; a path that leads (through
// a symlink) out of the project is refused; files are written in place, never replaced through a
// rename, so a read-only file stays read-only and its owner keeps it.
import { constants as fsConstants } from 'node:fs';
import { access, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_FORMATS, installHooks, ourCommands, parseDocument, repairHooks, uninstallHooks, type AgentId, type ConfigEdit, type HookLauncher } from '../core/hookConfig';
import { errorMessage } from '../core/errors';
import { installMcpServer, registeredLauncher, uninstallMcpServer } from '../core/mcpConfig';
import { AGENT_PROFILES } from '../core/agents';
import { assertWriteStaysInside, OutsideWorkspaceError, readIfPresent } from './files';
import { expectOwnWrite } from './ownWrites';

export interface FileChange {
  agent: AgentId;
  /** Relative to the project, with forward slashes. */
  relative: string;
  file: string;
  before: string | undefined;
  /** The new text; empty when the file goes (it held nothing but ours). */
  after: string;
}

export interface SetupPlan {
  changes: FileChange[];
  /** Files that cannot be changed, with the reason; their agent gets no change at all. */
  problems: { agent: AgentId; relative: string; error: string }[];
  /** Agents whose files already say what they should. */
  unchanged: AgentId[];
}

export interface SetupOptions {
  /** Claude Code: the shared `.claude/settings.json` instead of the private `.claude/settings.local.json`. */
  shared?: boolean;
  /** Also (un)register the MCP server in the agent's MCP file. */
  mcp?: boolean;
}

/** The hook file of an agent, relative to the project. */
export function hookFile(agent: AgentId, shared = false): string {
  const { file } = AGENT_FORMATS[agent];
  return shared && file.shared ? file.shared : file.local;
}

/** What installing or removing our entries for these agents would change; nothing is written. */
export async function planSetup(
  root: string,
  agents: readonly AgentId[],
  action: 'install' | 'uninstall',
  launcher: HookLauncher,
  options: SetupOptions = {},
): Promise<SetupPlan> {
  const plan: SetupPlan = { changes: [], problems: [], unchanged: [] };
  for (const agent of agents) {
    // Uninstall looks in every file we may have written; install writes the one asked for.
    const hookFiles = action === 'install' ? [hookFile(agent, options.shared)] : [...new Set([hookFile(agent, false), hookFile(agent, true)])];
    const edits: { relative: string; edit: (text: string | undefined) => ConfigEdit }[] = hookFiles.map((relative) => ({
      relative,
      edit: (text) => (action === 'install' ? installHooks(text, launcher, agent) : uninstallHooks(text, agent)),
    }));
    if (options.mcp) {
      edits.push({
        relative: AGENT_PROFILES[agent].mcp.file,
        edit: (text) => (action === 'install' ? installMcpServer(text, launcher, agent) : uninstallMcpServer(text, agent)),
      });
    }
    const changes: FileChange[] = [];
    const problems: SetupPlan['problems'] = [];
    for (const { relative, edit } of edits) {
      const file = path.join(root, ...relative.split('/'));
      // Gemini CLI keeps its hooks and its MCP servers in one file: the second edit starts from the first.
      const earlier = changes.find((change) => change.relative === relative);
      let before: string | undefined;
      try {
        before = earlier ? earlier.before : await readIfPresent(file);
      } catch (error) {
        // A FIFO, a device, a huge file: reported like a file that does not parse.
        problems.push({ agent, relative, error: `${relative} cannot be read: ${errorMessage(error)}; nothing was changed` });
        continue;
      }
      const current = earlier ? earlier.after : before;
      if (current === undefined && action === 'uninstall') continue;
      const result = edit(current === '' && earlier ? undefined : current);
      if (!result.ok) {
        problems.push({ agent, relative, error: `${relative} is ${result.error}` });
        continue;
      }
      if (!result.changed) continue;
      if (earlier) {
        earlier.after = result.text;
        continue;
      }
      const unsafe = await unwritableReason(root, file, before !== undefined);
      if (unsafe) problems.push({ agent, relative, error: `${relative} ${unsafe}` });
      else changes.push({ agent, relative, file, before, after: result.text });
    }
    if (problems.length > 0) plan.problems.push(...problems);
    else if (changes.length > 0) plan.changes.push(...changes);
    else plan.unchanged.push(agent);
  }
  return plan;
}

/** A file's planned new text, for `applyChange`. */
export type FileWrite = Pick<FileChange, 'relative' | 'file' | 'before' | 'after'>;

/** Why a project file cannot be written now (with "nothing was changed"), or undefined when it can. */
export async function whyNotWritable(root: string, change: FileWrite): Promise<string | undefined> {
  const reason = await unwritableReason(root, change.file, change.before !== undefined);
  return reason ? `${change.relative} ${reason}` : undefined;
}

/** Writes one planned change: in place, the file's folders created, a file emptied of everything but ours removed. */
export async function applyChange(root: string, change: FileWrite): Promise<void> {
  const unsafe = await unwritableReason(root, change.file, change.before !== undefined);
  if (unsafe) throw new Error(`${change.relative} ${unsafe}; nothing was changed`);
  if (change.after === '') {
    await rm(change.file, { force: true });
    return;
  }
  await mkdir(path.dirname(change.file), { recursive: true });
  // Our own write: the activity tracker must not count it as the user's work on an issue.
  expectOwnWrite(change.file);
  await writeFile(change.file, change.after, 'utf8');
}

/** Our hook commands in an agent's files, for status. */
export async function installedEntries(root: string, agent: AgentId): Promise<{ relative: string; event: string; command: string }[]> {
  const found: { relative: string; event: string; command: string }[] = [];
  for (const relative of new Set([hookFile(agent, false), hookFile(agent, true)])) {
    // Unreadable: status reports it (unusableHookFiles), with no entries from it.
    const text = await readIfPresent(path.join(root, ...relative.split('/'))).catch(() => undefined);
    for (const entry of ourCommands(text)) found.push({ relative, ...entry });
  }
  const mcp = AGENT_PROFILES[agent].mcp.file;
  const launcher = registeredLauncher(await readIfPresent(path.join(root, ...mcp.split('/'))).catch(() => undefined), agent);
  if (launcher) found.push({ relative: mcp, event: 'MCP server', command: `${launcher.runtime} ${launcher.script} mcp` });
  return found;
}

/** The agent's hook files that exist but cannot be read as we would edit them, each with the reason, for status. */
export async function unusableHookFiles(root: string, agent: AgentId): Promise<string[]> {
  const problems: string[] = [];
  for (const relative of new Set([hookFile(agent, false), hookFile(agent, true)])) {
    let text: string | undefined;
    try {
      text = await readIfPresent(path.join(root, ...relative.split('/')));
    } catch (error) {
      problems.push(`${relative} cannot be read: ${errorMessage(error)}`);
      continue;
    }
    const parsed = parseDocument(text);
    if (!parsed.ok) problems.push(`${relative} is ${parsed.error}`);
  }
  return problems;
}

/**
 * The files whose entries of ours should move to `launcher` (after an extension update), with
 * their new text. `isStale` decides per entry; entries of another live install stay.
 */
export async function planRepair(
  root: string,
  launcher: HookLauncher,
  isStale: (found: HookLauncher) => Promise<boolean>,
  parse: (command: string) => HookLauncher | undefined,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const agent of Object.keys(AGENT_FORMATS) as AgentId[]) {
    for (const relative of new Set([hookFile(agent, false), hookFile(agent, true)])) {
      const file = path.join(root, ...relative.split('/'));
      const before = await readIfPresent(file).catch(() => undefined);
      if (before === undefined) continue;
      const launchers = ourCommands(before).map(({ command }) => parse(command)).filter((found): found is HookLauncher => found !== undefined);
      // Hook entries that name a path of a machine (0.1.0 wrote them) move to the per-user
      // launcher; the opencode plugin names this install, and moves only when that went stale.
      if (launchers.length === 0) continue;
      if (AGENT_FORMATS[agent].layout === 'plugin' && !(await anyStale(launchers, isStale))) continue;
      const edit = repairHooks(before, launcher, agent);
      if (edit.ok && edit.changed) changes.push({ agent, relative, file, before, after: edit.text });
    }
    const relative = AGENT_PROFILES[agent].mcp.file;
    const file = path.join(root, ...relative.split('/'));
    // Gemini CLI's MCP servers share the hook file: repair on top of the hooks' repair.
    const earlier = changes.find((change) => change.relative === relative);
    const before = earlier ? earlier.after : await readIfPresent(file).catch(() => undefined);
    const registered = registeredLauncher(before, agent);
    if (!registered || !(await isStale(registered))) continue;
    const edit = installMcpServer(before, launcher, agent);
    if (!edit.ok || !edit.changed) continue;
    if (earlier) earlier.after = edit.text;
    else changes.push({ agent, relative, file, before, after: edit.text });
  }
  return changes;
}

async function anyStale(launchers: HookLauncher[], isStale: (found: HookLauncher) => Promise<boolean>): Promise<boolean> {
  for (const launcher of launchers) if (await isStale(launcher)) return true;
  return false;
}

/**
 * Why a file may not be written, or undefined when it may: it must not lead, through a symbolic
 * link, out of the project, and it (or the folder it would be created in) must be writable.
 */
async function unwritableReason(root: string, file: string, exists: boolean): Promise<string | undefined> {
  try {
    await assertWriteStaysInside(file, root);
  } catch (error) {
    if (error instanceof OutsideWorkspaceError) return `leads out of the project (to ${error.target}) through a symbolic link; nothing was changed`;
    throw error;
  }
  let target = file;
  if (!exists) {
    target = path.dirname(file);
    while (!(await lstat(target).then(() => true, () => false)) && path.dirname(target) !== target) target = path.dirname(target);
  }
  try {
    await access(target, fsConstants.W_OK);
  } catch (error) {
    return `cannot be written (${(error as NodeJS.ErrnoException).code ?? 'not writable'}); nothing was changed`;
  }
  return undefined;
}
