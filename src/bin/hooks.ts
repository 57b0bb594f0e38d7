// The command line's side of Claude Code hooks: reading the JSON Claude Code writes to a hook's
// stdin, and `beads-recovery hooks install|uninstall|status`, which wires the same hooks as the
// extension's "Beads: Install Agent Hooks…" for people who use the command line alone.
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  installHooks,
  launcherFor,
  ourCommands,
  parseHookInput,
  uninstallHooks,
  type HookInput,
  type HookLauncher,
  type SettingsEdit,
} from '../core/claudeHooks';
import { assertWriteStaysInside, readIfPresent } from '../services/files';

/** How long a hook waits for its stdin to close before it goes on without it. */
const STDIN_WAIT_MS = 1000;

/**
 * The hook input Claude Code sent, or undefined when stdin is a terminal, empty, not JSON, or
 * still open after a second (a caller that never closes its pipe must not hang the hook).
 */
export function readHookInput(stdin: NodeJS.ReadStream = process.stdin, waitMs = STDIN_WAIT_MS): Promise<HookInput | undefined> {
  if (stdin.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.pause();
      // A pipe nobody closes would keep the process alive after its work is done.
      if (!stdin.readableEnded) stdin.destroy();
      resolve(parseHookInput(Buffer.concat(chunks).toString('utf8')));
    };
    const timer = setTimeout(finish, waitMs);
    stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    stdin.once('end', finish);
    stdin.once('error', finish);
  });
}

/** The launcher of this very script, as a hook command should call it. */
export function currentLauncher(): HookLauncher {
  return launcherFor(
    { execPath: process.execPath, electron: process.versions.electron !== undefined, windows: process.platform === 'win32' },
    path.resolve(process.argv[1] ?? __filename),
  );
}

export const HOOKS_USAGE = `  beads-recovery hooks install|uninstall|status [--dir DIR] [--shared] [--dry-run]

Adds to (or removes from) Claude Code's settings of the project in DIR (default: the current
folder) a SessionStart hook that prints the recovery context and a PreCompact hook that writes a
checkpoint. They go to .claude/settings.local.json (this machine only: the hook commands hold
this machine's paths), or with --shared to .claude/settings.json. --dry-run prints the new file.`;

/** `beads-recovery hooks …`; returns the exit code. */
export async function hooksCommand(args: string[], out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      shared: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const [action] = positionals;
  if (positionals.length !== 1 || (action !== 'install' && action !== 'uninstall' && action !== 'status')) {
    throw new HookUsageError(`hooks takes one of install, uninstall, status`);
  }
  const relative = path.join('.claude', values.shared ? 'settings.json' : 'settings.local.json');
  const workspace = path.resolve(values.dir ?? process.cwd());
  const file = path.join(workspace, relative);
  const text = await readIfPresent(file);

  if (action === 'status') {
    const parsed = uninstallHooks(text);
    if (!parsed.ok) {
      process.stderr.write(`beads-recovery: ${relative} is ${parsed.error}.\n`);
      return 1;
    }
    const found = ourCommands(text);
    out(found.length === 0 ? `No beads-recovery hooks in ${relative}.\n` : found.map(({ event, command }) => `${event}: ${command}\n`).join(''));
    return 0;
  }
  const edit: SettingsEdit = action === 'install' ? installHooks(text, currentLauncher()) : uninstallHooks(text);
  if (!edit.ok) {
    process.stderr.write(`beads-recovery: ${relative} is ${edit.error}; nothing was changed.\n`);
    return 1;
  }
  if (!edit.changed) {
    out(action === 'install' ? `The hooks are already in ${relative}.\n` : `No beads-recovery hooks in ${relative}.\n`);
    return 0;
  }
  if (values['dry-run']) {
    out(edit.text);
    return 0;
  }
  await writeSettings(file, workspace, text !== undefined, edit.text);
  const done = action === 'install' ? `Added the SessionStart and PreCompact hooks to ${relative}:` : `Removed the beads-recovery hooks from ${relative}.`;
  out(`${done}\n${action === 'install' ? ourCommands(edit.text).map(({ event, command }) => `  ${event}: ${command}\n`).join('') : ''}`);
  return 0;
}

export class HookUsageError extends Error {}

async function writeSettings(file: string, workspace: string, exists: boolean, text: string): Promise<void> {
  await assertWriteStaysInside(file, workspace);
  try {
    if (exists) await access(file, fsConstants.W_OK);
    else await mkdir(path.dirname(file), { recursive: true });
    // In place, not through a rename: a rename would replace a read-only file behind its owner's back.
    await writeFile(file, text, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new Error(`${file} is read-only (${code}); nothing was changed`, { cause: error });
    throw error;
  }
}
