// The per-user launcher every agent hook runs (core/hookConfig.ts, shimCommandLine): kept pointing
// at the runtime and `dist/cli.js` of whatever installed it last, the extension at every start or
// `beads-recovery hooks install`. It lives in the user's home, never in a project, so the project's
// hook files carry no path of this machine.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { LAUNCHER_DIR, LAUNCHER_NAME, LAUNCHER_PATH_VARIABLES, launcherScripts, type HookLauncher } from '../core/hookConfig';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

export interface LauncherPlace {
  /** The user's home (HOME, or USERPROFILE on Windows): where the hook commands look. */
  home?: string;
  /** Also the batch file that PowerShell and cmd.exe run. */
  windows?: boolean;
  /** The Windows folders the batch file names by their variable (LAUNCHER_PATH_VARIABLES); this process's environment by default. */
  windowsEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * Writes the launcher when it is missing or points elsewhere. Returns its POSIX path, and a
 * warning when the batch file cannot name a path in a way cmd.exe reads back (written all the same).
 */
export async function ensureLauncher(launcher: HookLauncher, place: LauncherPlace = {}): Promise<{ file: string; warning?: string }> {
  const dir = path.join(place.home ?? homedir(), ...LAUNCHER_DIR);
  const windowsEnv = place.windowsEnv ?? Object.fromEntries(LAUNCHER_PATH_VARIABLES.map((name) => [name, process.env[name]]));
  const scripts = launcherScripts(launcher, windowsEnv);
  await mkdir(dir, { recursive: true });
  const posix = path.join(dir, LAUNCHER_NAME);
  await writeIfChanged(posix, scripts.posix);
  await chmod(posix, 0o755);
  if (!(place.windows ?? process.platform === 'win32')) return { file: posix };
  await writeIfChanged(path.join(dir, `${LAUNCHER_NAME}.cmd`), scripts.cmd);
  return { file: posix, ...(scripts.cmdWarning ? { warning: scripts.cmdWarning } : {}) };
}

async function writeIfChanged(file: string, text: string): Promise<void> {
  if ((await readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES }).catch(() => undefined)) === text) return;
  await writeFile(file, text, 'utf8');
}
