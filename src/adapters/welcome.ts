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
    `Beads Recovery is keeping ${project.folder.name}'s work recoverable: it records the files and commits of the issue in progress and writes checkpoints into beads, so an agent that lost its context can pick up again.`,
    getStarted,
    openView,
  );
  if (choice === getStarted) await vscode.commands.executeCommand(Commands.openWalkthrough);
  else if (choice === openView) await vscode.commands.executeCommand(`${SIDEBAR_VIEW_ID}.focus`);
}
