import * as vscode from 'vscode';
import type { ProjectRegistry } from './projects';
import { SIDEBAR_VIEW_ID } from './sidebar';

// The first time a workspace with a beads project is opened, say what the extension does and offer
// the getting-started walkthrough — calmly, once, and before anything could look like a warning.

const WELCOMED_KEY = 'beadsRecovery.welcomed';

/** Offers the walkthrough once per workspace, when detection first finds a beads project there. */
export async function welcomeOnFirstOpen(context: vscode.ExtensionContext, projects: ProjectRegistry): Promise<void> {
  if (context.workspaceState.get<boolean>(WELCOMED_KEY)) return;
  const project = await projects.pickProject();
  if (!project) return;
  await context.workspaceState.update(WELCOMED_KEY, true);
  const walkthrough = walkthroughId(context.extension);
  const getStarted = 'Get Started';
  const openView = 'Open the Beads View';
  const choice = await vscode.window.showInformationMessage(
    `Beads Recovery is keeping ${project.folder.name}'s work recoverable: it records the files and commits of the issue in progress and writes checkpoints into beads, so an agent that lost its context can pick up again.`,
    ...(walkthrough ? [getStarted] : []),
    openView,
  );
  if (choice === getStarted && walkthrough) await vscode.commands.executeCommand('workbench.action.openWalkthrough', walkthrough, false);
  else if (choice === openView) await vscode.commands.executeCommand(`${SIDEBAR_VIEW_ID}.focus`);
}

/** `<publisher>.<name>#<walkthrough id>` of the manifest's first walkthrough, if it contributes one. */
export function walkthroughId(extension: Pick<vscode.Extension<unknown>, 'id' | 'packageJSON'>): string | undefined {
  const walkthroughs = (extension.packageJSON as { contributes?: { walkthroughs?: { id?: unknown }[] } } | undefined)?.contributes?.walkthroughs;
  const id = walkthroughs?.[0]?.id;
  return typeof id === 'string' && id !== '' ? `${extension.id}#${id}` : undefined;
}
