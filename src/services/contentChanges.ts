import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import * as path from 'node:path';
import { CliError } from '../beads/errors';
import { runGit } from '../git/runGit';
import { errorMessage } from '../core/errors';
import { readOpenedFile } from '../io/safeRead';

// An edit is a change of content. A save that writes the same bytes again (Ctrl+S on an unchanged
// file, auto-save, a format-on-save that changes nothing) fires the same events as a real edit, so
// each event is judged by what the file holds: compared with what was last seen of that file or,
// for a file not seen yet, with git's view of it (the index). The content is named by its git blob
// id (SHA-1 over "blob <size>\0<bytes>"), so that one hash compares with both; fnv1a would not match
// git's ids.

/** Larger files are not read: a change of size or modification time counts as a change of content. */
const MAX_HASHED_BYTES = 8 * 1024 * 1024;
/** Paths named on one `git ls-files` command line, at most (command lines are bounded on Windows). */
const LS_FILES_BATCH = 200;
/**
 * A read is trusted once the file keeps its size and time this long after it: a save truncates,
 * then writes, and a loaded machine can leave a writer between the two for longer than the events'
 * quiet time. A file still moving is read again, for up to three seconds: a burst of saves (a
 * save-all, auto-save behind a formatter) keeps a file moving for more than half a second on a
 * loaded machine, and a read taken between a truncation and its write would count as an edit.
 */
const STABLE_AFTER_MS = 100;
const STABLE_ROUNDS = 30;
/** Paths remembered, at most: the oldest are forgotten first (a forgotten file is compared with git again). */
const REMEMBERED_LIMIT = 20_000;

/** What a path holds now, as far as telling a change goes. */
type Content = { kind: 'absent' } | { kind: 'other' } | { kind: 'file'; id: string; modifiedMs: number; size: number };

export interface ContentChangesOptions {
  /** The workspace folder: paths are relative to it. */
  root: string;
  /** Whether the folder is in a git work tree: unseen files are then compared with the index. */
  inGit: boolean;
  timeoutMs: number;
  log?: (message: string) => void;
}

export class ContentChanges {
  /** The last content seen of each path (relative, with `/`), the oldest first. */
  private readonly seen = new Map<string, string>();
  /** Files whose last event changed nothing, with the modification time of that save. */
  private readonly unchangedSaves = new Map<string, number>();
  /** The text of each file's last editor save, by its id: saves are compared with saves. */
  private readonly savedTexts = new Map<string, string>();

  constructor(private readonly options: ContentChangesOptions) {}

  /**
   * Which of `paths` (relative to the root) now hold something other than what was last seen of
   * them. A file seen for the first time is compared with git's index; outside git, or not in the
   * index, it counts as changed. A path that is not a regular file (a folder, a pipe) counts as
   * changed, as its event always did.
   */
  async changed(paths: readonly string[]): Promise<Set<string>> {
    const contents = await this.readSettled([...new Set(paths)]);
    const unseen = [...contents].filter(([relative, content]) => content.kind === 'file' && !this.seen.has(relative)).map(([relative]) => relative);
    const indexed = unseen.length > 0 && this.options.inGit ? await this.indexIds(unseen) : new Map<string, string>();
    const changed = new Set<string>();
    for (const [relative, content] of contents) {
      const key = keyOf(content);
      const before = this.seen.get(relative) ?? (indexed.has(relative) ? `blob:${indexed.get(relative)}` : undefined);
      if (key === undefined || key !== before) {
        changed.add(relative);
        this.unchangedSaves.delete(relative);
      } else if (content.kind === 'file') {
        this.unchangedSaves.set(relative, content.modifiedMs);
      }
      this.remember(relative, key);
    }
    return changed;
  }

  /**
   * An editor save of `text` to `relative`: whether it differs from the last save of that file
   * seen here, judged at once from the document's text, so that fast saves each count (events
   * settle in bursts, and a burst holds only the last of them); undefined for the first save,
   * which is judged on the file against git. Saves are compared with saves, never with bytes
   * read from disk, which an encoding or a byte order mark make differ from the text.
   */
  judgeSave(relative: string, text: string): boolean | undefined {
    const id = gitBlobId(Buffer.from(text, 'utf8'));
    const before = this.savedTexts.get(relative);
    this.savedTexts.delete(relative);
    this.savedTexts.set(relative, id);
    if (this.savedTexts.size > REMEMBERED_LIMIT) this.savedTexts.delete(this.savedTexts.keys().next().value as string);
    return before === undefined ? undefined : before !== id;
  }

  /** `relative` changed on disk: unless it holds its last save's text, another process wrote it, and its next save is judged on the file again. */
  forgetSave(relative: string): void {
    const saved = this.savedTexts.get(relative);
    if (saved !== undefined && this.seen.get(relative) !== `blob:${saved}`) this.savedTexts.delete(relative);
  }

  /**
   * Whether `relative`, last modified at `modifiedMs`, was last judged unchanged at that very
   * modification: git status shows it (it differs from the index), but the save that touched it
   * wrote what was there before, so it is not new work.
   */
  isUnchangedSave(relative: string, modifiedMs: number): boolean {
    return this.unchangedSaves.get(relative) === modifiedMs;
  }

  private remember(relative: string, key: string | undefined): void {
    this.seen.delete(relative);
    if (key !== undefined) this.seen.set(relative, key);
    if (this.seen.size > REMEMBERED_LIMIT) this.seen.delete(this.seen.keys().next().value as string);
    if (this.unchangedSaves.size > REMEMBERED_LIMIT) this.unchangedSaves.delete(this.unchangedSaves.keys().next().value as string);
  }

  /** What each path holds once it has stopped moving (see STABLE_AFTER_MS), or after the last round. */
  private async readSettled(paths: readonly string[]): Promise<Map<string, Content>> {
    const contents = new Map<string, Content>();
    let toRead = paths;
    for (let round = 0; round < STABLE_ROUNDS && toRead.length > 0; round++) {
      for (const relative of toRead) contents.set(relative, await this.read(relative));
      await delay(STABLE_AFTER_MS);
      const moved: string[] = [];
      for (const relative of toRead) if (await this.movedSince(relative, contents.get(relative) as Content)) moved.push(relative);
      toRead = moved;
    }
    return contents;
  }

  /** Whether a file read as `content` has since changed size or time (a stat: no read, no open). */
  private async movedSince(relative: string, content: Content): Promise<boolean> {
    if (content.kind !== 'file') return false;
    const info = await stat(path.join(this.options.root, ...relative.split('/'))).catch(() => undefined);
    return !info || Math.round(info.mtimeMs) !== content.modifiedMs || info.size !== content.size;
  }

  /** The path's content id, read without ever waiting on a pipe or reading more than the cap. */
  private async read(relative: string): Promise<Content> {
    const file = path.join(this.options.root, ...relative.split('/'));
    let handle;
    try {
      // O_NONBLOCK: a FIFO put where a file was opens at once instead of waiting for a writer.
      handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'other' };
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: 'other' };
      const modifiedMs = Math.round(info.mtimeMs);
      if (info.size > MAX_HASHED_BYTES) return { kind: 'file', id: `large:${info.size}:${modifiedMs}`, modifiedMs, size: info.size };
      const bytes = await readOpenedFile(handle, file, MAX_HASHED_BYTES);
      return { kind: 'file', id: `blob:${gitBlobId(bytes)}`, modifiedMs, size: bytes.byteLength };
    } catch {
      return { kind: 'other' };
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** The index's blob id of each path that is in it (stage 0), in one git process per batch. */
  private async indexIds(paths: readonly string[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    for (let start = 0; start < paths.length; start += LS_FILES_BATCH) {
      const batch = paths.slice(start, start + LS_FILES_BATCH);
      try {
        // Literal pathspecs: a name with `*` or a leading `:` is a name, never a pattern or magic.
        const { stdout } = await runGit(this.options.root, ['--literal-pathspecs', 'ls-files', '--stage', '-z', '--', ...batch], { timeoutMs: this.options.timeoutMs, maxOutputBytes: 4 * 1024 * 1024 });
        for (const entry of stdout.split('\0')) {
          const match = /^\d+ ([0-9a-f]{40,64}) 0\t(.*)$/s.exec(entry);
          if (match) ids.set(match[2] as string, match[1] as string);
        }
      } catch (error) {
        if (error instanceof CliError && error.kind === 'canceled') throw error;
        // Without git's view, an unseen file counts as changed, as every event did before.
        this.options.log?.(`comparing saved files with git's index failed: ${errorMessage(error)}`);
      }
    }
    return ids;
  }
}

function keyOf(content: Content): string | undefined {
  if (content.kind === 'absent') return 'absent';
  return content.kind === 'file' ? content.id : undefined;
}

/** Git's object id of a blob with these bytes (SHA-1 repositories). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}
