// The one place for state that is the user's own and no project's: the hooks' marker files, the
// compaction summaries Claude Code hands over, the registry of started processes. It lives in a
// folder only this user owns, never in a fixed name under the shared temporary folder, where
// whoever creates the name first owns it and can plant links at the names we write (a hook then
// wrote its JSON through the link, over the victim's file).
//
// - POSIX: `<tmpdir>/beads-recovery-<uid>`, created 0700 and checked before every use: a real
//   folder (no link), owned by this user, closed to group and others. Anything else is refused,
//   with a message that says which folder and why; the caller goes on without its marker.
// - Windows: `%LOCALAPPDATA%\beads-recovery`, a place in the user's own profile (there is no mode
//   to check; a link or junction in its place is refused all the same).
//
// Files are written to a fresh name opened with O_EXCL | O_NOFOLLOW and then renamed over the
// marker's name (a rename replaces a link, it never writes through it), and read only when the
// name is a plain file. Node's fs has these flags; a library would add nothing but a dependency.

import { constants, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { lstat, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTextFile, SMALL_FILE_MAX_BYTES } from './safeRead';
import { uniqueNamePart } from './uniqueName';

const IS_WINDOWS = process.platform === 'win32';
// Absent on Windows, where the lstat checks below stand in for it.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** The user's private state folder (created on first use by ensurePrivateFolder). */
export function privateStateRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (IS_WINDOWS) return path.join(env.LOCALAPPDATA || tmpdir(), 'beads-recovery');
  return path.join(tmpdir(), `beads-recovery-${process.getuid?.() ?? 'user'}`);
}

/** A private folder that is not (a link, another user's, open to others): nothing in it is used. */
export class UnsafeFolderError extends Error {
  constructor(
    readonly folder: string,
    reason: string,
  ) {
    super(`${folder} ${reason}; it is not used`);
    this.name = 'UnsafeFolderError';
  }
}

/** A file name in a private folder that is not a plain file (a planted link): it is not followed. */
export class UnsafeFileError extends Error {
  constructor(readonly file: string) {
    super(`${file} is a symbolic link or not a plain file; it was not followed`);
    this.name = 'UnsafeFileError';
  }
}

/**
 * Makes `dir` (and every folder from the private root down to it) if missing, mode 0700, and
 * checks each: throws UnsafeFolderError for a link, a non-folder, another owner or a mode that
 * lets others in. A folder outside the root (a test's) is checked alone. Synchronous, for the
 * process registry, which notes a process before it starts; it is a mkdir and an lstat a folder.
 */
export function ensurePrivateFolderSync(dir: string): void {
  const root = privateStateRoot();
  const relative = path.relative(root, dir);
  const inside = relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  const chain = inside ? [root, ...relative.split(path.sep).filter(Boolean).map((_, index, parts) => path.join(root, ...parts.slice(0, index + 1)))] : [dir];
  if (!inside) mkdirSync(path.dirname(dir), { recursive: true });
  for (const folder of chain) {
    // Looked at first: a folder that is there already, as at every run but the first, costs no failed mkdir.
    const found = lstatSync(folder, { throwIfNoEntry: false });
    if (found === undefined) {
      try {
        mkdirSync(folder, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    assertPrivate(folder, found ?? lstatSync(folder));
  }
}

/** ensurePrivateFolderSync, for callers that await. */
export async function ensurePrivateFolder(dir: string): Promise<void> {
  ensurePrivateFolderSync(dir);
}

function assertPrivate(folder: string, info: Stats): void {
  if (info.isSymbolicLink()) throw new UnsafeFolderError(folder, 'is a symbolic link');
  if (!info.isDirectory()) throw new UnsafeFolderError(folder, 'is not a folder');
  if (IS_WINDOWS) return;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new UnsafeFolderError(folder, `belongs to another user (uid ${info.uid})`);
  if ((info.mode & 0o077) !== 0) throw new UnsafeFolderError(folder, `is open to other users (mode ${(info.mode & 0o777).toString(8)}, not 700)`);
}

/** Writes `text` as `file` in a checked private folder: a fresh file renamed into place, never through a link. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  await ensurePrivateFolder(dir);
  const fresh = path.join(dir, `.${path.basename(file)}.${uniqueNamePart()}.tmp`);
  const handle = await open(fresh, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
  await rename(fresh, file).catch(async (error: unknown) => {
    await rm(fresh, { force: true });
    throw error;
  });
}

/** Creates `file` with `text` unless the name is taken (by anything, a link included): true for the one caller that created it. */
export async function createPrivateFile(file: string, text: string): Promise<boolean> {
  await ensurePrivateFolder(path.dirname(file));
  try {
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The text of `file` in a checked private folder, undefined when missing; a link there is refused (UnsafeFileError). */
export async function readPrivateFile(file: string): Promise<string | undefined> {
  await ensurePrivateFolder(path.dirname(file));
  const info = await lstat(file).catch(() => undefined);
  if (info === undefined) return undefined;
  if (!info.isFile()) throw new UnsafeFileError(file);
  return readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES, within: path.dirname(file) });
}

