import * as vscode from 'vscode';

/** The extension's one output channel; `Beads: Show Log` reveals it. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Beads Recovery', { log: true });
}
