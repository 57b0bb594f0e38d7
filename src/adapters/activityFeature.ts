import * as vscode from 'vscode';
import type { Ledger } from '../core/ledger';
import { ActivityTracker, type ActivityDeps } from './activity';
import { registerFocusCommand } from './focus';
import { Commands } from './commandIds';
import { showInformationMessage } from './notify';
import { ActivityStatusBar, type ActivityStatus, type PendingWrites } from './statusBar';

// Activity tracking as the extension composes it: the tracker, the status bar that shows it and
// Beads: Focus Issue…, which both read it. Kept apart from activity.ts so that the tracker knows
// nothing of its views (they import it, never the reverse).

export interface ActivityComposition {
  tracker: ActivityTracker;
  statusBar: ActivityStatusBar;
  /** For the extension's API (integration tests). */
  api: ActivityApi;
  disposables: vscode.Disposable[];
}

/** What activate() exposes of activity tracking. */
export interface ActivityApi {
  /** The focused issue's ledger in the folder the user is looking at. */
  ledger(): Ledger | undefined;
  /** Waits for pending file events to be written, the reflog to be read and the status bar to show the result. */
  flushActivity(): Promise<void>;
  /** Drops the in-memory activity and reads it back from the ledger files, as a window reload does. */
  reloadActivity(): Promise<void>;
  activityStatus(): ActivityStatus;
}

/** Activity tracking, the status bar and Beads: Focus Issue…, composed; called once from activate(). */
export function registerActivity(deps: ActivityDeps & { workspaceState: vscode.Memento; writes?: PendingWrites }): ActivityComposition {
  const tracker = new ActivityTracker(deps);
  const statusBar = new ActivityStatusBar(tracker, deps.workspaceState, deps.writes);
  void tracker.sync();
  // Claimed from a terminal or by an agent: the focus follows, and the user hears why.
  const focusMoves = tracker.onDidMoveFocus(({ move }) => {
    const focusAnother = 'Focus Another Issue…';
    const was = move.from ? ` instead of ${move.from}` : '';
    void showInformationMessage(`Beads: ${move.to}${move.title ? ` ${move.title}` : ''} was claimed outside this window; work here is now recorded against it${was}.`, focusAnother).then((choice) => {
      if (choice === focusAnother) void vscode.commands.executeCommand(Commands.focusIssue);
    });
  });
  return {
    tracker,
    statusBar,
    api: {
      ledger: () => tracker.active()?.focusedLedger(),
      flushActivity: async () => {
        await tracker.flush();
        statusBar.render();
      },
      reloadActivity: async () => {
        await tracker.reopen();
        await tracker.flush();
        statusBar.render();
      },
      activityStatus: () => statusBar.status,
    },
    // The tracker goes last: disposing it writes what its folders gathered.
    disposables: [registerFocusCommand(tracker, deps.projects, deps.log), focusMoves, statusBar, tracker],
  };
}
