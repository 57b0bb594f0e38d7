import { constants as fsConstants } from 'node:fs';
import { access, appendFile, mkdir, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { upsertAgentsBlock } from '../core/agentsBlock';
import { errorMessage } from '../core/errors';
import {
  installHooks,
  isSiblingVersion,
  launcherFor,
  OUR_HOOKS,
  ourCommands,
  parseHookCommand,
  repairHooks,
  uninstallHooks,
  hookCommand,
  type HookLauncher,
} from '../core/claudeHooks';
import { runGit } from '../git/runGit';
import { reportErrors } from './commandErrors';
import { Commands } from './commandIds';
import type { Project, ProjectRegistry } from './projects';
import { assertWriteStaysInside, readIfPresent } from '../services/files';

// "Beads: Install Agent Hooks…", its uninstall, the path repair after an extension update, and
// "Beads: Add Agent Instructions…". Each writes into the user's project, so each runs only in a
// trusted workspace, shows the exact change and asks before writing.
//
// The hook commands run `dist/cli.js` of this installed extension with VS Code's own runtime
// (`process.execPath`, with ELECTRON_RUN_AS_NODE=1 on desktop), so they work for someone who
// installed only the VSIX and has no node on PATH. Both paths are absolute and belong to this
// machine, which is why the private `.claude/settings.local.json` is the recommended home, and
// why they go stale when the extension updates: see `repairAgentHooks`.

const PREVIEW_SCHEME = 'beads-recovery-preview';
const SETTINGS_FILES = {
  local: path.join('.claude', 'settings.local.json'),
  shared: path.join('.claude', 'settings.json'),
} as const;
export type SettingsScope = keyof typeof SETTINGS_FILES;

/** The launcher hooks should use now: this extension's CLI on the runtime running this extension host. */
export function currentLauncher(extensionUri: vscode.Uri): HookLauncher {
  return launcherFor(
    { execPath: process.execPath, electron: process.versions.electron !== undefined, windows: process.platform === 'win32' },
    vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath,
  );
}

/** The two hook commands as they would be installed now, for messages and tests. */
export function currentHookCommands(extensionUri: vscode.Uri): { event: string; command: string }[] {
  const launcher = currentLauncher(extensionUri);
  return OUR_HOOKS.map((spec) => ({ event: spec.event, command: hookCommand(launcher, spec.args) }));
}

export function registerAgentHookCommands(
  context: vscode.ExtensionContext,
  projects: ProjectRegistry,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  const previews = new PreviewDocuments();
  const guarded = <T>(title: string, run: (argument: T | undefined) => Promise<void>) => async (argument?: T) => {
    if (!vscode.workspace.isTrusted) {
      await refuseUntrusted(title);
      return;
    }
    await reportErrors(log, () => run(argument), title);
  };
  return [
    previews,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
    vscode.commands.registerCommand(
      Commands.installAgentHooks,
      guarded<InstallArgument>('Install Agent Hooks', (argument) => installCommand(context.extensionUri, projects, previews, log, argument?.scope)),
    ),
    vscode.commands.registerCommand(Commands.uninstallAgentHooks, guarded('Uninstall Agent Hooks', () => uninstallCommand(projects, log))),
    vscode.commands.registerCommand(
      Commands.addAgentInstructions,
      guarded('Add Agent Instructions', () => addInstructionsCommand(projects, previews, log)),
    ),
  ];
}

async function refuseUntrusted(title: string): Promise<void> {
  const manage = 'Manage Workspace Trust';
  const choice = await vscode.window.showWarningMessage(
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

/** What `beadsRecovery.installAgentHooks` accepts: the settings file, to skip its pick (keybindings, tests). It always asks before writing. */
export interface InstallArgument {
  scope?: SettingsScope;
}

async function installCommand(
  extensionUri: vscode.Uri,
  projects: ProjectRegistry,
  previews: PreviewDocuments,
  log: vscode.LogOutputChannel,
  chosenScope: SettingsScope | undefined,
): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Install agent hooks for which project?');
  if (!project) return;
  const scope = chosenScope && chosenScope in SETTINGS_FILES ? chosenScope : await pickScope();
  if (!scope) return;
  const relative = SETTINGS_FILES[scope];
  const file = path.join(project.folder.uri.fsPath, relative);
  const before = await readIfPresent(file);
  const edit = installHooks(before, currentLauncher(extensionUri));
  if (!edit.ok) return reportUnusable(edit.error, relative, file);
  if (!edit.changed) {
    void vscode.window.showInformationMessage(`Beads: the agent hooks are already in ${relative}.`);
    return;
  }
  await assertWritable(file, before !== undefined, relative);
  const commands = ourCommands(edit.text).map(({ event, command }) => `${event}: ${command}`).join('\n\n');
  const ignoreNote = scope === 'local' ? await localIgnoreNote(project.folder.uri.fsPath, relative) : undefined;
  const confirmed = await previews.confirmWithDiff({
    file,
    before,
    after: edit.text,
    title: `${relative} (with beads-recovery hooks)`,
    question: `Add Claude Code hooks to ${relative}?`,
    detail: [
      'SessionStart (startup, resume, /clear, compaction) prints the recovery context into the session; PreCompact writes a checkpoint before the conversation is compacted. Claude Code runs:',
      '',
      commands,
      '',
      scope === 'local'
        ? `The commands hold this machine's paths, so they go to the private settings file.${ignoreNote ? ` ${ignoreNote.message}` : ''}`
        : "The commands hold this machine's paths: teammates who pull this file get hooks that point at your install.",
      'Every other setting stays as it is; the diff editor shows the whole change. Claude Code sessions started from now on use them.',
    ].join('\n'),
    action: 'Install',
  });
  if (!confirmed) return;
  await writeInPlace(file, edit.text, relative, project.folder.uri.fsPath);
  if (ignoreNote) await ignoreNote.apply();
  log.info(`Installed agent hooks in ${file}`);
  void vscode.window.showInformationMessage(`Beads: agent hooks installed in ${relative}.`);
}

async function uninstallCommand(projects: ProjectRegistry, log: vscode.LogOutputChannel): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Remove agent hooks from which project?');
  if (!project) return;
  const plans: { relative: string; file: string; text: string }[] = [];
  for (const relative of Object.values(SETTINGS_FILES)) {
    const file = path.join(project.folder.uri.fsPath, relative);
    const before = await readIfPresent(file);
    if (before === undefined) continue;
    const edit = uninstallHooks(before);
    if (!edit.ok) return reportUnusable(edit.error, relative, file);
    if (edit.changed) {
      await assertWritable(file, true, relative);
      plans.push({ relative, file, text: edit.text });
    }
  }
  if (plans.length === 0) {
    void vscode.window.showInformationMessage('Beads: there are no beads-recovery hooks in this project\'s Claude Code settings.');
    return;
  }
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(
    `Remove the beads-recovery hooks from ${plans.map((plan) => plan.relative).join(' and ')}?`,
    { modal: true, detail: 'Only the SessionStart and PreCompact entries this extension added are removed; every other setting and hook stays.' },
    remove,
  );
  if (choice !== remove) return;
  for (const plan of plans) {
    await writeInPlace(plan.file, plan.text, plan.relative, project.folder.uri.fsPath);
    log.info(`Removed agent hooks from ${plan.file}`);
  }
  void vscode.window.showInformationMessage(`Beads: agent hooks removed from ${plans.map((plan) => plan.relative).join(' and ')}.`);
}

async function addInstructionsCommand(projects: ProjectRegistry, previews: PreviewDocuments, log: vscode.LogOutputChannel): Promise<void> {
  const project = await pickBeadsFolder(projects, 'Add agent instructions to which project?');
  if (!project) return;
  const file = path.join(project.folder.uri.fsPath, 'AGENTS.md');
  const before = await readIfPresent(file);
  const edit = upsertAgentsBlock(before, project.cli);
  if (!edit.ok) {
    void vscode.window.showErrorMessage(`Beads: AGENTS.md: ${edit.error}. Nothing was changed.`);
    return;
  }
  if (!edit.changed) {
    void vscode.window.showInformationMessage('Beads: AGENTS.md already has the beads-recovery instructions.');
    return;
  }
  await assertWritable(file, before !== undefined, 'AGENTS.md');
  const confirmed = await previews.confirmWithDiff({
    file,
    before,
    after: edit.text,
    title: 'AGENTS.md (with beads-recovery instructions)',
    question: before === undefined ? 'Create AGENTS.md with instructions for agents?' : 'Add instructions for agents to AGENTS.md?',
    detail:
      'Codex, Copilot and other agents read AGENTS.md at the start of a session. The block tells them to get the recovery context ' +
      '(the beads_getRecoveryContext tool or `beads-recovery context`) after a restart or compaction, and to checkpoint. ' +
      'It is static text between markers; running this again replaces it. The diff editor shows the whole change.',
    action: before === undefined ? 'Create' : 'Add',
  });
  if (!confirmed) return;
  await writeInPlace(file, edit.text, 'AGENTS.md', project.folder.uri.fsPath);
  log.info(`Wrote the agent instructions block to ${file}`);
  void vscode.window.showInformationMessage('Beads: agent instructions written to AGENTS.md.');
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
  if (!vscode.workspace.isTrusted) return [];
  const launcher = currentLauncher(extensionUri);
  const repaired: string[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    for (const relative of Object.values(SETTINGS_FILES)) {
      const file = path.join(folder.uri.fsPath, relative);
      const before = await readIfPresent(file).catch(() => undefined);
      if (before === undefined) continue;
      const stale = await Promise.all(ourCommands(before).map(({ command }) => isStale(command, launcher)));
      if (!stale.includes(true)) continue;
      const edit = repairHooks(before, launcher);
      if (!edit.ok || !edit.changed) continue;
      try {
        await access(file, fsConstants.W_OK);
        await assertWriteStaysInside(file, folder.uri.fsPath);
        await writeFile(file, edit.text, 'utf8');
        repaired.push(file);
        log.info(`Updated the beads-recovery hook commands in ${file} to ${launcher.script}`);
      } catch (error) {
        log.warn(`Could not update the stale hook commands in ${file}: ${errorMessage(error)}`);
      }
    }
  }
  if (repaired.length > 0) {
    const names = repaired.map((file) => vscode.workspace.asRelativePath(file)).join(', ');
    void vscode.window.showInformationMessage(`Beads: updated the Claude Code hook commands in ${names} to this version of the extension.`);
  }
  return repaired;
}

async function isStale(command: string, current: HookLauncher): Promise<boolean> {
  const parsed = parseHookCommand(command);
  if (!parsed) return false;
  const { launcher } = parsed;
  if (launcher.runtime === current.runtime && launcher.script === current.script) return false;
  if (!(await exists(launcher.runtime)) || !(await exists(launcher.script))) return true;
  return isSiblingVersion(current.script, launcher.script);
}

async function pickBeadsFolder(projects: ProjectRegistry, placeHolder: string): Promise<Project | undefined> {
  const found: Project[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const project = await projects.project(folder);
    if (project) found.push(project);
  }
  if (found.length === 0) {
    void vscode.window.showInformationMessage('Beads: no beads project in this workspace (no .beads directory).');
    return undefined;
  }
  if (found.length === 1) return found[0];
  const picked = await vscode.window.showQuickPick(
    found.map((project) => ({ label: project.folder.name, description: project.folder.uri.fsPath, project })),
    { placeHolder },
  );
  return picked?.project;
}

async function pickScope(): Promise<SettingsScope | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: 'Only me',
        description: SETTINGS_FILES.local,
        detail: "Recommended: the hook commands hold this machine's paths, and this file is not shared.",
        scope: 'local' as const,
      },
      {
        label: 'Everyone on this project',
        description: SETTINGS_FILES.shared,
        detail: "Usually committed: teammates get commands that point at this machine's install.",
        scope: 'shared' as const,
      },
    ],
    { placeHolder: 'Which Claude Code settings file gets the hooks?' },
  );
  return picked?.scope;
}

/** A settings file we cannot edit safely: say why, change nothing, offer to open it (without waiting for an answer). */
function reportUnusable(error: string, relative: string, file: string): void {
  const open = 'Open File';
  void vscode.window.showErrorMessage(`Beads: ${relative} is ${error}. Nothing was changed; fix the file and try again.`, open).then((choice) => {
    if (choice === open) void vscode.window.showTextDocument(vscode.Uri.file(file));
  });
}

async function assertWritable(file: string, exists: boolean, relative: string): Promise<void> {
  try {
    await access(exists ? file : await nearestExisting(path.dirname(file)), fsConstants.W_OK);
  } catch (error) {
    throw new Error(`${relative} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'not writable'}); nothing was changed.`, { cause: error });
  }
}

async function nearestExisting(dir: string): Promise<string> {
  let current = dir;
  while (!(await exists(current)) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

/**
 * Writes over the file itself: a temp file and rename would replace a read-only file behind its
 * owner's back. Never through a symbolic link that leads out of the workspace.
 */
async function writeInPlace(file: string, text: string, relative: string, workspace: string): Promise<void> {
  await assertWriteStaysInside(file, workspace);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text, 'utf8');
  } catch (error) {
    throw new Error(`${relative} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was changed.`, { cause: error });
  }
}

/**
 * Claude Code keeps `.claude/settings.local.json` out of git when it creates the file itself; when
 * we create it, we do the same through `.git/info/exclude`, which is never committed either.
 */
async function localIgnoreNote(root: string, relative: string): Promise<{ message: string; apply: () => Promise<void> } | undefined> {
  const timeoutMs = 5000;
  try {
    const ignored = await runGit(root, ['check-ignore', '-q', '--', relative], { timeoutMs, okExitCodes: [0, 1] });
    if (ignored.exitCode === 0) return undefined;
    const excludePath = (await runGit(root, ['rev-parse', '--git-path', 'info/exclude'], { timeoutMs })).stdout.trim();
    const exclude = path.resolve(root, excludePath);
    const entry = `/${relative.split(path.sep).join('/')}`;
    return {
      message: `It is not ignored by git yet, so ${entry} is added to .git/info/exclude (local, never committed).`,
      apply: async () => {
        await mkdir(path.dirname(exclude), { recursive: true });
        const current = (await readIfPresent(exclude)) ?? '';
        await appendFile(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${entry}\n`, 'utf8');
      },
    };
  } catch {
    return undefined;
  }
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
  }): Promise<boolean> {
    const id = ++this.sequence;
    const right = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${id}/${path.basename(change.file)}` });
    const left = change.before === undefined ? vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${id}/empty/${path.basename(change.file)}` }) : vscode.Uri.file(change.file);
    this.contents.set(right.toString(), change.after);
    this.contents.set(left.toString(), '');
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, change.title, { preview: true });
      const choice = await vscode.window.showInformationMessage(change.question, { modal: true, detail: change.detail }, change.action);
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
