// The two settings a user changes when the beads CLI cannot be used: where it is, and how long
// it may take. Both are written to the user's (global) settings: `cliPath` is machine-scoped, and
// a machine-scoped setting written with ConfigurationTarget.Global from a remote window (SSH,
// WSL, containers, code-server) lands in that remote machine's settings, where the CLI runs.
// The Settings editor is never opened for it: in a remote window its User tab shows "No
// Settings Found" for a machine setting.
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { executableProblem } from '../beads/detect';
import { readSettings, SECTION } from './config';

/** The ceiling of beadsRecovery.cliTimeoutMs, as clamped by readSettings. */
const MAX_TIMEOUT_MS = 600_000;

/**
 * Asks for the path of `bd` or `br`, checks it on the machine the extension runs on (the remote
 * one in a remote window) and saves it. An empty answer clears the setting (back to PATH).
 * Returns whether the setting changed; the settings listener then detects the projects again.
 */
export async function setCliPath(): Promise<boolean> {
  const current = readSettings().cliPath ?? '';
  const answer = await vscode.window.showInputBox({
    title: 'Beads: path of the bd or br executable',
    prompt: vscode.env.remoteName
      ? `Full path on the remote machine (${vscode.env.remoteName}). Leave empty to search PATH.`
      : 'Full path of the executable. Leave empty to search PATH.',
    placeHolder: process.platform === 'win32' ? 'C:\\Users\\me\\go\\bin\\bd.exe' : '/usr/local/bin/br',
    value: current,
    ignoreFocusOut: true,
    validateInput: async (value) => {
      const path = expandHome(value.trim());
      return path ? executableProblem(path) : undefined;
    },
  });
  if (answer === undefined) return false;
  const path = expandHome(answer.trim());
  if (path === current) return false;
  if (path && (await executableProblem(path))) return false;
  await vscode.workspace.getConfiguration(SECTION).update('cliPath', path || undefined, vscode.ConfigurationTarget.Global);
  return true;
}

/**
 * Doubles beadsRecovery.cliTimeoutMs (up to its ceiling) where it is set: in the workspace when
 * the workspace sets it (a user value would be shadowed there), else in the user settings.
 * Returns the new value, or undefined when it is already at the ceiling.
 */
export async function increaseCliTimeout(): Promise<number | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const current = readSettings().cliTimeoutMs;
  const next = Math.min(MAX_TIMEOUT_MS, current * 2);
  if (next <= current) return undefined;
  const inWorkspace = config.inspect<number>('cliTimeoutMs')?.workspaceValue !== undefined;
  await config.update('cliTimeoutMs', next, inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
  return next;
}

/** `~/bin/bd` → the home folder's `bin/bd`: nothing runs the path through a shell. */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') || path.startsWith('~\\') ? homedir() + path.slice(1) : path;
}
