import * as vscode from 'vscode';
import { showInformationMessage } from './notify';
import { Commands } from './commandIds';
import type { ProjectRegistry } from './projects';
import { SIDEBAR_VIEW_ID } from './sidebar';

// The first time a workspace with a beads project is opened, say what the extension does and offer
// the getting-started walkthrough — calmly, once, and before anything could look like a warning.

const WELCOMED_KEY = 'beadsRecovery.welcomed';

/** Offers the walkthrough once per workspace, when detection first finds a beads project there. */
export async function welcomeOnFirstOpen(context: vscode.ExtensionContext, projects: ProjectRegistry): Promise<void> {
  if (context.workspaceState.get<boolean>(WELCOMED_KEY)) return;
  // Never a quick pick: nobody asked for this.
  const project = await projects.activeProject();
  if (!project) return;
  await context.workspaceState.update(WELCOMED_KEY, true);
  const getStarted = 'Get Started';
  const openView = 'Open the Beads View';
  const choice = await showInformationMessage(
    `Beads Recovery is keeping the work in ${project.folder.name} recoverable: it records the files and commits of the issue in progress and writes checkpoints into beads, so an agent that lost its context can pick up again.`,
    getStarted,
    openView,
  );
  if (choice === getStarted) await vscode.commands.executeCommand(Commands.openWalkthrough);
  else if (choice === openView) await vscode.commands.executeCommand(`${SIDEBAR_VIEW_ID}.focus`);
}

/** The walkthrough's pictures by name, as its steps' descriptions link to them. */
const WALKTHROUGH_PICTURES: Readonly<Record<string, string>> = {
  overview: 'overview.png',
  view: 'view.png',
  hooks: 'hooks.png',
  copy: 'copy.png',
};

/**
 * Opens a walkthrough step's picture in an editor tab. VS Code hides a step's media when the
 * walkthrough's editor is narrower than 950 px (beside the Chat panel, say); each step links here.
 */
export async function showWalkthroughImage(extensionUri: vscode.Uri, picture: unknown): Promise<void> {
  const file = typeof picture === 'string' && Object.hasOwn(WALKTHROUGH_PICTURES, picture) ? WALKTHROUGH_PICTURES[picture] : undefined;
  if (!file) {
    void showInformationMessage('Beads: there is no such getting-started picture.');
    return;
  }
  await vscode.commands.executeCommand('vscode.open', vscode.Uri.joinPath(extensionUri, 'media', 'walkthrough', file), { preview: true, viewColumn: vscode.ViewColumn.Active });
}
