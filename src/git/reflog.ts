import { open, type FileHandle } from 'node:fs/promises';
import { fnv1a } from '../core/hash';
import { entriesAfterRewrite, parseReflogLine, type ReflogCursor, type ReflogEntry } from '../core/reflog';

/** A reflog entry with the byte offset just past its line: a reader may stop after any entry. */
export interface TailedEntry extends ReflogEntry {
  end: number;
}

/**
 * - `first`: no cursor yet; the reader starts at the end (history before it is not ours to link);
 * - `append`: the same file, read from the cursor;
 * - `rewritten`: git rewrote or truncated the file (reflog expire, gc), read again from the
 *   start, and only entries from the cursor's last timestamp on are returned;
 * - `unchanged`: nothing new; `missing`: no reflog (a repository without commits yet).
 */
export type ReflogReadMode = 'first' | 'append' | 'rewritten' | 'unchanged' | 'missing';

export interface ReflogRead {
  mode: ReflogReadMode;
  /** Complete lines new to the reader, oldest first. A partial last line waits for the next read. */
  entries: TailedEntry[];
  /** Where the reader stands once it has handled every entry. */
  cursor: ReflogCursor;
  /** Bytes read from the file by this call. */
  bytesRead: number;
  /** The file's size when read. */
  size: number;
}

/** The cursor of a reflog that does not exist yet: when it appears, every line in it is new. */
export const NO_REFLOG: ReflogCursor = { offset: 0, inode: 0, head: '', lastTimestamp: 0, rewrites: 0 };

const HEAD_PROBE_BYTES = 512;
const FIRST_READ_TAIL_BYTES = 4096;
const CHUNK_BYTES = 1024 * 1024;
const LINE_FEED = 0x0a;

/**
 * Reads what was appended to a reflog since `cursor`, touching only the new bytes when the file
 * is the one the cursor was made on (same inode, not shorter). A rewritten file is recognised by
 * its inode, its size or its first line, and read again from the start.
 */
export async function readReflogTail(file: string, cursor: ReflogCursor | undefined): Promise<ReflogRead> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (isMissing(error)) return { mode: 'missing', entries: [], cursor: cursor ?? NO_REFLOG, bytesRead: 0, size: 0 };
    throw error;
  }
  try {
    const stat = await handle.stat();
    const size = stat.size;
    const inode = Number(stat.ino) || 0;
    if (!cursor) return await readFirst(handle, size, inode);

    const sameInode = inode !== 0 && cursor.inode === inode;
    let bytesRead = 0;
    let head = cursor.head;
    let sameFile = sameInode && size >= cursor.offset;
    if (!sameFile && size >= cursor.offset && cursor.offset > 0) {
      // Another inode (or none on this platform): the first line tells whether it is still the same log.
      const probe = await readHead(handle, size);
      bytesRead += probe.bytesRead;
      head = probe.head;
      sameFile = head === cursor.head;
    }
    if (sameFile) {
      if (size === cursor.offset) return { mode: 'unchanged', entries: [], cursor: { ...cursor, inode }, bytesRead, size };
      const tail = await readLines(handle, cursor.offset, size);
      return {
        mode: 'append',
        entries: tail.entries,
        cursor: { ...cursor, offset: tail.end, inode, head, lastTimestamp: latest(cursor.lastTimestamp, tail.entries) },
        bytesRead: bytesRead + tail.bytesRead,
        size,
      };
    }
    const whole = await readLines(handle, 0, size);
    const fresh = entriesAfterRewrite(whole.entries, cursor.lastTimestamp) as TailedEntry[];
    return {
      mode: 'rewritten',
      entries: fresh,
      cursor: { offset: whole.end, inode, head: whole.head, lastTimestamp: latest(cursor.lastTimestamp, whole.entries), rewrites: cursor.rewrites + 1 },
      bytesRead: bytesRead + whole.bytesRead,
      size,
    };
  } finally {
    await handle.close();
  }
}

/** With no cursor: stand at the end of the last complete line, remembering the newest entry's time. */
async function readFirst(handle: FileHandle, size: number, inode: number): Promise<ReflogRead> {
  const start = Math.max(0, size - FIRST_READ_TAIL_BYTES);
  const tail = await readLines(handle, start, size);
  let bytesRead = tail.bytesRead;
  let head = tail.head;
  if (start > 0) {
    const probe = await readHead(handle, size);
    bytesRead += probe.bytesRead;
    head = probe.head;
  }
  // Starting mid-file, the first "line" of the tail may be a fragment; parseReflogLine rejects it.
  return { mode: 'first', entries: [], cursor: { offset: tail.end, inode, head, lastTimestamp: latest(0, tail.entries), rewrites: 0 }, bytesRead, size };
}

interface Lines {
  entries: TailedEntry[];
  /** Offset just past the last complete line (`from` when there is none). */
  end: number;
  /** Hash of the first line (its first HEAD_PROBE_BYTES bytes) when reading from offset 0. */
  head: string;
  bytesRead: number;
}

async function readLines(handle: FileHandle, from: number, to: number): Promise<Lines> {
  const entries: TailedEntry[] = [];
  const decoder = new TextDecoder('utf-8');
  let head = '';
  let bytesRead = 0;
  let position = from;
  let pending = Buffer.alloc(0);
  let pendingStart = from;
  while (position < to) {
    const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, to - position));
    const { bytesRead: count } = await handle.read(chunk, 0, chunk.length, position);
    if (count === 0) break;
    bytesRead += count;
    position += count;
    const data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, count)]) : chunk.subarray(0, count);
    let lineStart = 0;
    let newline = data.indexOf(LINE_FEED, lineStart);
    while (newline !== -1) {
      const text = decoder.decode(data.subarray(lineStart, newline));
      if (pendingStart + lineStart === 0) head = fnv1a(decoder.decode(data.subarray(0, Math.min(newline, HEAD_PROBE_BYTES))));
      const entry = parseReflogLine(text);
      if (entry) entries.push({ ...entry, end: pendingStart + newline + 1 });
      lineStart = newline + 1;
      newline = data.indexOf(LINE_FEED, lineStart);
    }
    pending = Buffer.from(data.subarray(lineStart));
    pendingStart += lineStart;
  }
  if (from === 0 && head === '' && pending.length > 0) head = fnv1a(decoder.decode(pending.subarray(0, HEAD_PROBE_BYTES)));
  return { entries, end: pendingStart, head, bytesRead };
}

async function readHead(handle: FileHandle, size: number): Promise<{ head: string; bytesRead: number }> {
  const probe = Buffer.alloc(Math.min(HEAD_PROBE_BYTES, size));
  const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
  const newline = probe.subarray(0, bytesRead).indexOf(LINE_FEED);
  const firstLine = probe.subarray(0, newline === -1 ? bytesRead : newline);
  return { head: fnv1a(new TextDecoder('utf-8').decode(firstLine)), bytesRead };
}

function latest(seen: number, entries: readonly ReflogEntry[]): number {
  return entries.reduce((max, entry) => Math.max(max, entry.timestamp), seen);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
