import * as vscode from 'vscode';
import { showInformationMessage, showWarningMessage } from './notify';
import type { Issue } from '../core/model';
import { formatAge, parseTimestamp } from '../core/time';
import type { ActivityTracker } from './activity';
import { Commands } from './commandIds';
import type { ProjectRegistry } from './projects';
import { bindFocus } from './agentSessions';

type FocusPick = vscode.QuickPickItem & { issueId?: string; follow?: true };

/**
 * Beads: Focus Issue… — which in-progress issue files and commits are attributed to. Without a
 * pick the most recently updated one is focused; a pick holds while that issue is in progress.
 * Takes an issue id as argument from the sidebar and other callers (no quick pick then).
 */
export function registerFocusCommand(tracker: ActivityTracker, projects: ProjectRegistry, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(Commands.focusIssue, async (argument?: unknown) => {
    // An id from the sidebar and other callers, or the row's context from the view's context menu.
    const requested = typeof argument === 'object' && argument !== null ? (argument as { issueId?: unknown }).issueId : argument;
    const project = await projects.pickProject();
    if (!project) {
      void showInformationMessage('Beads: no beads project in this workspace.');
      return;
    }
    const activity = tracker.forProject(project);
    if (!activity) {
      void showInformationMessage(`Beads: activity is not tracked in ${project.folder.name} (see Beads: Show Log).`);
      return;
    }
    await activity.refreshInProgress();
    const issues = activity.inProgressIssues ?? [];
    if (typeof requested === 'string') {
      if (issues.some((issue) => issue.id === requested)) {
        await activity.focus(requested);
        await bindFocus(project, requested, log);
      } else void showWarningMessage(`Beads: ${requested} is not in progress, so work cannot be attributed to it.`);
      return;
    }
    if (issues.length === 0) {
      void showInformationMessage('Beads: no issue is in progress. Claim one first.');
      return;
    }
    const focused = activity.focusedIssue();
    const now = Date.now();
    const items: FocusPick[] = issues.map((issue) => pickItem(issue, issue.id === focused, now));
    if (activity.state.focusPinned) {
      items.push({ label: '', kind: vscode.QuickPickItemKind.Separator }, { label: '$(history) Follow the most recently updated issue', follow: true });
    }
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Beads: Focus Issue',
      placeHolder: 'Files and commits from now on are attributed to the issue you pick',
      matchOnDescription: true,
    });
    if (!picked) return;
    if (picked.follow) await activity.focus(undefined, false);
    else if (picked.issueId) await activity.focus(picked.issueId);
    // The pick is this window's own session's binding too (README "Which issue is this session's?").
    await bindFocus(project, picked.follow ? undefined : picked.issueId, log);
  });
}

function pickItem(issue: Issue, focused: boolean, now: number): FocusPick {
  const updated = parseTimestamp(issue.updatedAt);
  return {
    label: `${focused ? '$(check)' : '$(circle-outline)'} ${issue.id}`,
    description: issue.title,
    detail: [`P${issue.priority}`, issue.issueType, updated === undefined ? undefined : `updated ${formatAge(updated, now)}`, focused ? 'focused' : undefined]
      .filter((part) => part !== undefined)
      .join(' · '),
    issueId: issue.id,
  };
}
