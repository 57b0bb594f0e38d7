import { lstat, readlink, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

/**
 * A small file's text (agent settings, configuration), or undefined when it does not exist; any
 * other failure (not a regular file, too large, unreadable) is the caller's to report.
 */
export function readIfPresent(file: string): Promise<string | undefined> {
  return readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES });
}

/** A write refused because, through a symbolic link, it would land outside the workspace. */
export class OutsideWorkspaceError extends Error {
  constructor(
    readonly file: string,
    readonly target: string,
    readonly workspace: string,
  ) {
    super(`${file} leads outside the workspace (to ${target}) through a symbolic link; nothing was written`);
  }
}

/**
 * Refuses (throws OutsideWorkspaceError) a write to `file` that a symbolic link — the file itself
 * or a folder on its way — would carry outside `workspace`. A settings file linked to a shared
 * location is someone else's to change, and a hostile checkout could point it anywhere.
 */
export async function assertWriteStaysInside(file: string, workspace: string): Promise<void> {
  const realWorkspace = await realpath(workspace).catch(() => path.resolve(workspace));
  const target = await realLocation(path.resolve(workspace, file));
  if (!isInsideFolder(realWorkspace, target)) throw new OutsideWorkspaceError(file, target, workspace);
}

/** Whether `candidate` is `folder` or inside it; both absolute. `pathApi` is path.win32 in tests of Windows paths. */
export function isInsideFolder(folder: string, candidate: string, pathApi: path.PlatformPath = path): boolean {
  const relative = pathApi.relative(folder, candidate);
  return relative === '' || (!relative.startsWith(`..${pathApi.sep}`) && relative !== '..' && !pathApi.isAbsolute(relative));
}

/** Where writing `file` would really land: links followed, a missing tail kept as written. */
async function realLocation(file: string, depth = 0): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || depth > 32) return file;
  }
  // A link whose target does not exist yet: a write would create the target.
  const link = await lstat(file).catch(() => undefined);
  if (link?.isSymbolicLink()) return realLocation(path.resolve(path.dirname(file), await readlink(file)), depth + 1);
  const parent = path.dirname(file);
  if (parent === file) return file;
  return path.join(await realLocation(parent, depth + 1), path.basename(file));
}
