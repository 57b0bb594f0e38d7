import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showErrorMessage, showInformationMessage, showWarningMessage } from './notify';
import { findOnPath } from '../beads/detect';
import { upsertAgentsBlock } from '../core/agentsBlock';
import { errorMessage } from '../core/errors';
import {
  AGENT_FORMATS,
  AGENTS,
  hookArgs,
  shimCommandLine,
  isAgentId,
  isSiblingVersion,
  launcherFor,
  parseHookCommand,
  type AgentId,
  type HookLauncher,
} from '../core/hookConfig';
import { AGENT_PROFILES } from '../core/agents';
import { applyChange, hookFile, planRepair, planSetup, whyNotWritable, type FileChange } from '../services/agentSetup';
import { ensureLauncher } from '../services/launcherShim';
import { keepLocal, namesMachinePaths } from '../services/localFiles';
import { readIfPresent } from '../services/files';
import { reportErrors } from './commandErrors';
import { Commands } from './commandIds';
import type { Project, ProjectRegistry } from './projects';

// "Beads: Install Agent Hooks…", its uninstall, the path repair after an extension update, and
// "Beads: Add Agent Instructions…". Each writes into the user's project, so each runs only in a
// trusted workspace, shows the exact change and asks before writing.
//
// The hook commands run the per-user launcher (~/.beads-recovery/bin/beads-recovery, a .cmd beside
// it on Windows), which this extension rewrites at every start to run its own `dist/cli.js` with
// VS Code's runtime (`process.execPath`, with ELECTRON_RUN_AS_NODE=1 on desktop): it works for
// someone who installed only the VSIX and has no node on PATH, the hook files carry no path of
// this machine (teams commit them), and an update changes nothing in them. The MCP registrations
// and the opencode plugin still name this install's paths: they are kept out of git where they
// are not tracked yet (`.git/info/exclude`), and their paths are repaired after an update.

const PREVIEW_SCHEME = 'beads-recovery-preview';
export type SettingsScope = 'local' | 'shared';

/** The launcher hooks should use now: this extension's CLI on the runtime running this extension host. */
export function currentLauncher(extensionUri: vscode.Uri): HookLauncher {
  return launcherFor(
    { execPath: process.execPath, electron: process.versions.electron !== undefined, windows: process.platform === 'win32' },
    vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath,
  );
}

/** An agent's hook commands as they would be installed now, for messages and tests. */
export function currentHookCommands(agent: AgentId = 'claude'): { event: string; command: string }[] {
  const { hooks, commandShell } = AGENT_FORMATS[agent];
  return hooks.map((spec) => ({ event: spec.event, command: shimCommandLine(hookArgs(agent, spec.event), commandShell ?? 'posix') }));
}

/**
 * Answers a question about a change (write this file? remove these entries?), asked once the diff
 * editor shows it: a modal dialog for the user; the extension's API lets tests answer instead.
 */
export type ConfirmChange = (question: string, detail: string) => Promise<boolean>;

export interface AgentHookCommands {
  disposables: vscode.Disposable[];
  /** Install Agent Hooks… with its picks given and its questions answered by `confirm`. */
  install(argument: InstallArgument, confirm: ConfirmChange): Promise<void>;
  /** Uninstall Agent Hooks… with its question answered by `confirm`. */
  uninstall(confirm: ConfirmChange): Promise<void>;
}

export function registerAgentHookCommands(context: vscode.ExtensionContext, projects: ProjectRegistry, log: vscode.LogOutputChannel): AgentHookCommands {
  const previews = new PreviewDocuments();
  const guarded = async (title: string, run: () => Promise<void>) => {
    if (!vscode.workspace.isTrusted) {
      await refuseUntrusted(title);
      return;
    }
    await reportErrors(log, run, title);
  };
  const install = (argument: InstallArgument | undefined, confirm?: ConfirmChange) =>
    guarded('Install Agent Hooks', () => installCommand(context.extensionUri, projects, previews, log, argument, confirm));
  const uninstall = (confirm?: ConfirmChange) => guarded('Uninstall Agent Hooks', () => uninstallCommand(context.extensionUri, projects, log, confirm));
  return {
    disposables: [
      previews,
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
      vscode.commands.registerCommand(Commands.installAgentHooks, (argument?: InstallArgument) => install(argument)),
      vscode.commands.registerCommand(Commands.uninstallAgentHooks, () => uninstall()),
      vscode.commands.registerCommand(Commands.addAgentInstructions, () => guarded('Add Agent Instructions', () => addInstructionsCommand(projects, previews, log))),
    ],
    install,
    uninstall,
  };
}

async function refuseUntrusted(title: string): Promise<void> {
  const manage = 'Manage Workspace Trust';
  const choice = await showWarningMessage(
    `Beads: ${title} needs a trusted workspace.`,
    {
      modal: true,
      detail:
        'It writes files into this folder that agents read, and agent hooks are commands Claude Code runs. ' +
        'In Restricted Mode nothing is written. Trust the folder, then run the command again.',
    },
    manage,
  );
  if (choice === manage) await vscode.commands.executeCommand('workbench.trust.manage');
}

/**
 * What `beadsRecovery.installAgentHooks` accepts, to skip its picks (keybindings, tests): the
 * agents, Claude Code's settings file, and whether to register the MCP server too. It always
 * shows the change and asks before writing.
 */
export interface InstallArgument {
  agents?: AgentId[];
  scope?: SettingsScope;
  mcp?: boolean;
}

async function installCommand(
  extensionUri: vscode.Uri,
  projects: ProjectRegistry,
  previews: PreviewDocuments,
  log: vscode.LogOutputChannel,
  argument: InstallArgument | undefined,
  confirm: ConfirmChange | undefined,
): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Install agent hooks for which project?');
  if (!project) return;
  const root = project.folder.uri.fsPath;
  const chosen = argument?.agents?.filter(isAgentId);
  const picked = chosen && chosen.length > 0 ? { agents: chosen, mcp: argument?.mcp ?? false } : await pickAgents(root);
  if (!picked) return;
  let scope: SettingsScope = 'local';
  if (picked.agents.includes('claude')) {
    const chosenScope = argument?.scope === 'local' || argument?.scope === 'shared' ? argument.scope : await pickScope();
    if (!chosenScope) return;
    scope = chosenScope;
  }
  const plan = await planSetup(root, picked.agents, 'install', currentLauncher(extensionUri), { shared: scope === 'shared', mcp: picked.mcp });
  for (const problem of plan.problems) reportUnusable(problem.error, path.join(root, problem.relative));
  if (plan.changes.length === 0) {
    if (plan.problems.length === 0) void showInformationMessage('Beads: the agent hooks are already installed.');
    return;
  }
  const written: FileChange[] = [];
  for (const change of plan.changes) {
    const ignoreNote = change.relative === hookFile('claude', false) || namesMachinePaths(change) ? await keepLocal(root, change.relative) : undefined;
    const confirmed = await previews.confirmWithDiff({
      file: change.file,
      before: change.before,
      after: change.after,
      title: `${change.relative} (with beads-recovery entries)`,
      question: `${AGENT_PROFILES[change.agent].label}: write ${change.relative}?`,
      detail: [
        describeChange(change),
        ignoreNote?.message,
        'Every other entry stays as it is; the diff editor shows the whole change.',
        AGENT_FORMATS[change.agent].afterInstall,
      ]
        .filter(Boolean)
        .join('\n\n'),
      action: 'Write',
      confirm,
    });
    if (!confirmed) continue;
    // The hooks run the per-user launcher: it points at this extension from now on.
    const { warning } = await ensureLauncher(currentLauncher(extensionUri));
    if (warning && written.length === 0) void showWarningMessage(`Beads: ${warning}.`);
    await applyChange(root, change);
    if (ignoreNote) await ignoreNote.apply();
    log.info(`Wrote the beads-recovery entries into ${change.file}`);
    written.push(change);
  }
  if (written.length === 0) return;
  const notes = [...new Set(written.map((change) => AGENT_FORMATS[change.agent].afterInstall).filter(Boolean))];
  void showInformationMessage(`Beads: wrote ${written.map((change) => change.relative).join(', ')}.${notes.length > 0 ? ` ${notes.join(' ')}` : ''}`);
}

function describeChange(change: FileChange): string {
  if (change.relative === AGENT_PROFILES[change.agent].mcp.file && change.relative !== hookFile(change.agent)) {
    return `Registers the beads-recovery MCP server (tools get_recovery_context and write_checkpoint, the recover prompt) for ${AGENT_PROFILES[change.agent].label}. It names this install's paths, so the file is this machine's.`;
  }
  const what: Record<AgentId, string> = {
    claude: 'SessionStart (startup, resume, /clear, compaction) hands Claude Code the recovery context; PreCompact writes a checkpoint first.',
    copilot: 'SessionStart hands the agent (VS Code agent mode or Copilot CLI) the recovery context; PreCompact writes a checkpoint and the next tool call after the compaction hands the context over once.',
    codex: 'SessionStart (including after a compaction) hands Codex the recovery context; PreCompact writes a checkpoint first.',
    cursor: 'sessionStart hands Cursor the recovery context; preCompact writes a checkpoint and the next tool call after the compaction hands the context over once.',
    gemini: 'BeforeAgent and AfterTool hand Gemini CLI the recovery context with a prompt or tool result whenever the session\'s history holds none (a new session, after a compression); BeforeModel writes one checkpoint per compression the session\'s chat file shows.',
    opencode: 'A plugin: the first message of a session carries the recovery context; before a compaction it writes a checkpoint and gives the summary the context; after one it hands the context over once.',
  };
  const commands = currentHookCommands(change.agent).map(({ event, command }) => `${event}: ${command}`).join('\n');
  const machine =
    change.agent === 'opencode'
      ? "The plugin runs this install's command line (its paths are this machine's), so the file is yours alone."
      : 'The commands run the per-user launcher ~/.beads-recovery/bin/beads-recovery, which this extension keeps pointing at itself: the file holds no path of this machine, a teammate with the extension gets working hooks, and without it they do nothing.';
  return `${what[change.agent]} The agent runs:\n\n${commands}\n\n${machine}`;
}

async function uninstallCommand(extensionUri: vscode.Uri, projects: ProjectRegistry, log: vscode.LogOutputChannel, confirm?: ConfirmChange): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Remove agent hooks from which project?');
  if (!project) return;
  const root = project.folder.uri.fsPath;
  const plan = await planSetup(root, AGENTS, 'uninstall', currentLauncher(extensionUri), { mcp: true });
  for (const problem of plan.problems) reportUnusable(problem.error, path.join(root, problem.relative));
  if (plan.changes.length === 0) {
    if (plan.problems.length === 0) void showInformationMessage("Beads: there are no beads-recovery hooks in this project's agent settings.");
    return;
  }
  const names = plan.changes.map((change) => change.relative).join(', ');
  const question = `Remove the beads-recovery entries from ${names}?`;
  const detail = 'Only the hooks and MCP registrations this extension added are removed; every other setting and hook stays. A file that held nothing else is deleted.';
  const remove = 'Remove';
  const confirmed = confirm ? await confirm(question, detail) : (await showWarningMessage(question, { modal: true, detail }, remove)) === remove;
  if (!confirmed) return;
  for (const change of plan.changes) {
    await applyChange(root, change);
    log.info(`Removed the beads-recovery entries from ${change.file}`);
  }
  void showInformationMessage(`Beads: agent hooks removed from ${names}.`);
}

/** The agents to install for, those detected here picked already, and whether to register the MCP server too. */
async function pickAgents(root: string): Promise<{ agents: AgentId[]; mcp: boolean } | undefined> {
  type Item = vscode.QuickPickItem & { agent?: AgentId; mcp?: boolean };
  const items: Item[] = [];
  for (const agent of AGENTS) {
    const signs = await detectAgent(root, agent);
    items.push({
      label: AGENT_PROFILES[agent].label,
      description: hookFile(agent),
      detail: signs.length > 0 ? `Detected: ${signs.join(', ')}` : 'Not detected here',
      picked: signs.length > 0,
      agent,
    });
  }
  items.push({
    label: '$(plug) Also register the MCP server',
    description: AGENTS.map((agent) => AGENT_PROFILES[agent].mcp.file).join(', '),
    detail: 'For each picked agent: beads-recovery mcp, with the recovery context and checkpoint tools (VS Code finds it without this).',
    mcp: true,
  });
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, placeHolder: 'Install beads-recovery hooks for which agents?' });
  // Escape: the user went away. OK with no agent ticked (the MCP line alone installs nothing): say so, rather than close silently.
  if (picked === undefined) return undefined;
  const agents = picked.flatMap((item) => (item.agent ? [item.agent] : []));
  if (agents.length === 0) {
    void showInformationMessage('Beads: no agent was ticked, so no hooks were installed. Run Install Agent Hooks again and tick the agents you use (Space ticks one).');
    return undefined;
  }
  return { agents, mcp: picked.some((item) => item.mcp === true) };
}

/** Why we think an agent is used here: its folder in the project, its executable on PATH, its extension in this editor. */
async function detectAgent(root: string, agent: AgentId): Promise<string[]> {
  const { folders, executables, extensions } = AGENT_FORMATS[agent].signs;
  const signs: string[] = [];
  for (const folder of folders) if (await exists(path.join(root, ...folder.split('/')))) signs.push(`${folder} folder`);
  for (const name of executables) if (await findOnPath(name, process.env.PATH ?? '', process.env.PATHEXT)) signs.push(`${name} on PATH`);
  for (const id of extensions) if (vscode.extensions.getExtension(id)) signs.push(`${id} extension`);
  if (agent === 'cursor' && /cursor/i.test(vscode.env.appName)) signs.push('running in Cursor');
  return signs;
}

async function addInstructionsCommand(projects: ProjectRegistry, previews: PreviewDocuments, log: vscode.LogOutputChannel): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Add agent instructions to which project?');
  if (!project) return;
  const file = path.join(project.folder.uri.fsPath, 'AGENTS.md');
  const before = await readIfPresent(file);
  const edit = upsertAgentsBlock(before, project.cli);
  if (!edit.ok) {
    void showErrorMessage(`Beads: AGENTS.md: ${edit.error}. Nothing was changed.`);
    return;
  }
  if (!edit.changed) {
    void showInformationMessage('Beads: AGENTS.md already has the beads-recovery instructions.');
    return;
  }
  const write = { relative: 'AGENTS.md', file, before, after: edit.text };
  const unwritable = await whyNotWritable(project.folder.uri.fsPath, write);
  if (unwritable) throw new Error(unwritable);
  const confirmed = await previews.confirmWithDiff({
    file,
    before,
    after: edit.text,
    title: 'AGENTS.md (with beads-recovery instructions)',
    question: before === undefined ? 'Create AGENTS.md with instructions for agents?' : 'Add instructions for agents to AGENTS.md?',
    detail:
      'Codex, Copilot and other agents read AGENTS.md at the start of a session. The block tells them to get the recovery context ' +
      '(the beads_getRecoveryContext tool, the beads-recovery MCP server or `beads-recovery context`) after a restart or compaction, and to checkpoint. ' +
      'It is static text between markers; running this again replaces it. The diff editor shows the whole change.',
    action: before === undefined ? 'Create' : 'Add',
  });
  if (!confirmed) return;
  await applyChange(project.folder.uri.fsPath, write);
  log.info(`Wrote the agent instructions block to ${file}`);
  void showInformationMessage('Beads: agent instructions written to AGENTS.md.');
}

/**
 * After an update, our hook commands still name the previous version's directory (and, for a
 * remote server, the previous server's runtime). Entries of ours whose runtime or script no
 * longer exists, or whose script belongs to an older version of this extension installed beside
 * this one, are rewritten to the current paths without asking: the user agreed to these hooks,
 * only our own entries change, and asking at every update would teach people to click through.
 * A message names the file. Entries that point at another live install (VS Code Insiders, a
 * development checkout) are left alone, so two installs never rewrite each other's entries.
 */
export async function repairAgentHooks(extensionUri: vscode.Uri, log: vscode.LogOutputChannel): Promise<string[]> {
  const launcher = currentLauncher(extensionUri);
  // The per-user launcher every hook runs follows this extension (in the user's home, never the workspace).
  await ensureLauncher(launcher).then(
    ({ warning }) => warning && log.warn(`The per-user hook launcher: ${warning}`),
    (error: unknown) => log.warn(`Could not write the per-user hook launcher: ${errorMessage(error)}`),
  );
  if (!vscode.workspace.isTrusted) return [];
  const repaired: string[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    const root = folder.uri.fsPath;
    const changes = await planRepair(root, launcher, (found) => isStale(found, launcher), (command) => parseHookCommand(command)?.launcher);
    for (const change of changes) {
      try {
        await applyChange(root, change);
        repaired.push(change.file);
        log.info(`Updated the beads-recovery commands in ${change.file} to ${launcher.script}`);
      } catch (error) {
        log.warn(`Could not update the stale beads-recovery commands in ${change.file}: ${errorMessage(error)}`);
      }
    }
  }
  if (repaired.length > 0) {
    const names = repaired.map((file) => vscode.workspace.asRelativePath(file)).join(', ');
    void showInformationMessage(`Beads: updated the agent hook commands in ${names} to this version of the extension.`);
  }
  return repaired;
}

async function isStale(launcher: HookLauncher, current: HookLauncher): Promise<boolean> {
  if (launcher.runtime === current.runtime && launcher.script === current.script) return false;
  if (!(await exists(launcher.runtime)) || !(await exists(launcher.script))) return true;
  return isSiblingVersion(current.script, launcher.script);
}

/** The project a hook command works on, by the one picking policy (ProjectRegistry.pickProject); says so when there is none. */
async function pickBeadsFolder(projects: ProjectRegistry, placeHolder: string): Promise<Project | undefined> {
  const project = await projects.pickProject(placeHolder);
  // Undefined is a cancelled pick too: only a workspace with no project at all is told so.
  if (!project && !(await projects.activeProject())) void showInformationMessage('Beads: no beads project in this workspace (no .beads directory).');
  return project;
}

async function pickScope(): Promise<SettingsScope | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: 'Only me',
        description: hookFile('claude', false),
        detail: 'Recommended: a private file, kept out of git.',
        scope: 'local' as const,
      },
      {
        label: 'Everyone on this project',
        description: hookFile('claude', true),
        detail: 'Usually committed: the commands hold no path of this machine, and teammates with the extension get working hooks.',
        scope: 'shared' as const,
      },
    ],
    { placeHolder: 'Which Claude Code settings file gets the hooks?' },
  );
  return picked?.scope;
}

/** A file we cannot edit safely: say why, change nothing, offer to open it (without waiting for an answer). */
function reportUnusable(error: string, file: string): void {
  const open = 'Open File';
  const message = /nothing was changed/.test(error) ? error : `${error}; nothing was changed`;
  void showErrorMessage(`Beads: ${message}. Fix the file and try again.`, open).then((choice) => {
    if (choice === open) void vscode.window.showTextDocument(vscode.Uri.file(file));
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Virtual documents for the "after" side of a diff, so the user sees the exact change before it is written. */
class PreviewDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private sequence = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  async confirmWithDiff(change: {
    file: string;
    before: string | undefined;
    after: string;
    title: string;
    question: string;
    detail: string;
    action: string;
    confirm?: ConfirmChange;
  }): Promise<boolean> {
    const id = ++this.sequence;
    const right = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${id}/${path.basename(change.file)}` });
    const left = change.before === undefined ? vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${id}/empty/${path.basename(change.file)}` }) : vscode.Uri.file(change.file);
    this.contents.set(right.toString(), change.after);
    this.contents.set(left.toString(), '');
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, change.title, { preview: true });
      if (change.confirm) return await change.confirm(change.question, change.detail);
      const choice = await showInformationMessage(change.question, { modal: true, detail: change.detail }, change.action);
      return choice === change.action;
    } finally {
      await this.closeDiff(right);
      this.contents.delete(right.toString());
      this.contents.delete(left.toString());
    }
  }

  private async closeDiff(right: vscode.Uri): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString());
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
  }

  dispose(): void {
    this.contents.clear();
  }
}
