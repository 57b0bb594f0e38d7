import * as vscode from 'vscode';
import { unlinked } from '../core/markdown';

// Every notification goes through here, so that issue data in its message (ids, titles, the CLI's
// own words) can never become a link that runs a command: see `unlinked`. Lint keeps the
// vscode.window originals out of every other module.

type Show = typeof vscode.window.showInformationMessage;
type Severity = 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage';

function guarded(severity: Severity): Show {
  // Looked up at each call, through vscode.window, as tests that answer dialogs replace it there.
  return ((message: string, ...rest: unknown[]) => Reflect.apply(vscode.window[severity], vscode.window, [unlinked(message), ...rest])) as Show;
}

export const showInformationMessage: typeof vscode.window.showInformationMessage = guarded('showInformationMessage');
export const showWarningMessage: typeof vscode.window.showWarningMessage = guarded('showWarningMessage');
export const showErrorMessage: typeof vscode.window.showErrorMessage = guarded('showErrorMessage');
