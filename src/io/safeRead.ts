// The one way the command line, the hooks and the extension read a file they did not write this
// moment: issues.jsonl, the ledger, the outbox, state and cache files, agent settings and
// transcripts. A repository is untrusted input, and a file in it can be anything:
//
// - a FIFO, which blocks an ordinary open() until a writer comes (a hook that answered but never
//   exits): files are opened non-blocking, which a FIFO answers at once, and then checked;
// - a device or a link to one (`/dev/urandom`, `/dev/zero`: endless): only a regular file is read,
//   as fstat says of the file actually opened, not as a path said a moment before;
// - a huge file: every read has a byte cap, checked against the size and enforced while reading,
//   since a file can grow while it is read;
// - a symbolic link out of the project: with `within`, a link is followed only to a file inside
//   that folder (a clone can carry any link; the user's own state folder need not say `within`).
//
// Node's fs offers no single call with these guarantees; they are a few lines over `open` and
// `FileHandle`, so no library is added for them.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Agent settings, metadata, policy files, redirects: small files a person writes. */
export const SMALL_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** The ledger, the outbox, caches: our JSON state files. */
export const STATE_FILE_MAX_BYTES = 64 * 1024 * 1024;

export interface SafeReadOptions {
  /** The most bytes read; a bigger file is refused whole rather than read in part. */
  maxBytes: number;
  /** A symbolic link is followed only to a file inside this folder. */
  within?: string;
}

export type UnreadableReason = 'not-a-file' | 'too-large' | 'outside';

/** A file refused before (or instead of) reading it; the message says which file and why. */
export class UnreadableFileError extends Error {
  /** `EISDIR` for a folder, so callers that report errno codes keep doing so. */
  readonly code: string | undefined;

  constructor(
    readonly file: string,
    readonly reason: UnreadableReason,
    message: string,
    code?: string,
  ) {
    super(message);
    this.name = 'UnreadableFileError';
    this.code = code;
  }
}

// Neither flag exists on Windows, where a path never names a FIFO or a device to block on.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const CHUNK_BYTES = 1024 * 1024;

/**
 * Opens `file` for reading if it is a regular file within the options' limits; undefined when
 * it does not exist. Throws UnreadableFileError for anything else, and the open's own error
 * (EACCES, …) as it is. The caller closes the handle.
 */
export async function openRegularFile(file: string, options: SafeReadOptions): Promise<{ handle: FileHandle; size: number } | undefined> {
  if (options.within !== undefined) await assertLinkStaysWithin(file, options.within);
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    assertReadable(file, info, options.maxBytes);
    return { handle, size: info.size };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** Only a regular file within the cap is read. */
function assertReadable(file: string, info: Stats, maxBytes: number): void {
  if (!info.isFile()) {
    throw new UnreadableFileError(file, 'not-a-file', `${file} is ${kindOf(info)}${info.isDirectory() ? ' (EISDIR)' : ''}, not a regular file; it was not read`, info.isDirectory() ? 'EISDIR' : undefined);
  }
  if (info.size > maxBytes) throw tooLarge(file, maxBytes, info.size);
}

/** The text of a regular file (UTF-8), or undefined when it does not exist. */
export async function readTextFile(file: string, options: SafeReadOptions): Promise<string | undefined> {
  return (await readBytesFile(file, options))?.toString('utf8');
}

/** The bytes of a regular file, or undefined when it does not exist. */
export async function readBytesFile(file: string, options: SafeReadOptions): Promise<Buffer | undefined> {
  if (options.within !== undefined) await assertLinkStaysWithin(file, options.within);
  const small = readSmallFile(file, options.maxBytes);
  if (small !== LARGER) return small;
  const opened = await openRegularFile(file, { maxBytes: options.maxBytes });
  if (!opened) return undefined;
  try {
    return await readOpenedFile(opened.handle, file, options.maxBytes);
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/** Said by readSmallFile of a file too large to read inline. */
const LARGER = Symbol('larger');

/**
 * A file no larger than this is read inline: open, fstat and a read or two, under the same checks.
 * Through the thread pool each of those calls costs more than the read itself (a hook process,
 * new at every agent event, reads a dozen small files: inline, its start costs 5–8 ms less
 * CPU), and a read this small blocks no caller for long. A larger file is read in chunks, off the
 * event loop.
 */
const INLINE_READ_MAX_BYTES = 1024 * 1024;

/** The bytes of a regular file of at most INLINE_READ_MAX_BYTES, undefined when it does not exist, LARGER when it is larger. */
function readSmallFile(file: string, maxBytes: number): Buffer | undefined | typeof LARGER {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = fstatSync(fd);
    assertReadable(file, info, maxBytes);
    if (info.size > INLINE_READ_MAX_BYTES) return LARGER;
    const chunks: Buffer[] = [];
    let total = 0;
    // A byte more than its size: a read that fills it shows that the file grew since.
    for (let room = info.size + 1; ; room = CHUNK_BYTES) {
      const chunk = Buffer.allocUnsafe(room);
      const bytesRead = readSync(fd, chunk, 0, room, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(file, maxBytes, total);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of a file the caller opened and checked (non-blocking, a regular file), up to
 * `maxBytes`: a file that grows past the cap while it is read is refused. The caller closes it.
 */
export async function readOpenedFile(handle: FileHandle, file: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  // Each chunk is copied: readChunks reads the next one into the same buffer.
  for await (const chunk of readChunks(handle, file, maxBytes)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** One line of a file, without its line end; `complete` is false for a last line with no newline. */
export interface FileLine {
  text: string;
  complete: boolean;
  /** Where the line starts in the file, in bytes. */
  offset: number;
  /** Its length in bytes, its line end not counted (a `\r` before the newline is). */
  bytes: number;
}

/**
 * The lines of a regular file, read a chunk at a time: memory holds one chunk and the current
 * line, never the whole file. Each line is decoded on its own, so a line kept by the caller keeps
 * nothing else alive. Undefined when the file does not exist.
 */
export async function readLines(file: string, options: SafeReadOptions): Promise<AsyncGenerator<FileLine> | undefined> {
  const opened = await openRegularFile(file, options);
  if (!opened) return undefined;
  return linesOf(opened.handle, file, options.maxBytes);
}

async function* linesOf(handle: FileHandle, file: string, maxBytes: number): AsyncGenerator<FileLine> {
  try {
    let pending: Buffer[] = [];
    // Where the current line starts, and where the current chunk does.
    let lineOffset = 0;
    let chunkOffset = 0;
    for await (const chunk of readChunks(handle, file, maxBytes)) {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, newline);
        const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        yield { text: withoutCarriageReturn(line.toString('utf8')), complete: true, offset: lineOffset, bytes: line.length };
        start = newline + 1;
        lineOffset = chunkOffset + start;
      }
      // The chunk is reused by the next read: keep a copy of an unfinished line.
      if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
      chunkOffset += chunk.length;
    }
    if (pending.length > 0) {
      const line = Buffer.concat(pending);
      yield { text: withoutCarriageReturn(line.toString('utf8')), complete: false, offset: lineOffset, bytes: line.length };
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A part of a file, in bytes. */
export interface ByteRange {
  offset: number;
  bytes: number;
}

/**
 * The bytes of each range of a regular file (fewer for a range past its end), read through one
 * handle under the same checks as a whole read; undefined when the file does not exist.
 */
export async function readFileRanges(file: string, ranges: readonly ByteRange[], options: SafeReadOptions): Promise<Buffer[] | undefined> {
  const opened = await openRegularFile(file, options);
  if (!opened) return undefined;
  try {
    const parts: Buffer[] = [];
    for (const range of ranges) {
      const buffer = Buffer.alloc(Math.max(0, Math.min(range.bytes, opened.size - range.offset)));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await opened.handle.read(buffer, filled, buffer.length - filled, range.offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      parts.push(buffer.subarray(0, filled));
    }
    return parts;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

async function* readChunks(handle: FileHandle, file: string, maxBytes: number): AsyncGenerator<Buffer> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return;
    total += bytesRead;
    // The file grew past the cap after it was opened.
    if (total > maxBytes) throw tooLarge(file, maxBytes, total);
    yield buffer.subarray(0, bytesRead);
  }
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** A symbolic link at `file` must lead to a place inside `folder`. */
async function assertLinkStaysWithin(file: string, folder: string): Promise<void> {
  const link = await lstat(file).catch(() => undefined);
  if (!link?.isSymbolicLink()) return;
  const target = await realpath(file).catch(() => undefined);
  // A dangling link reads as a missing file; the open says so.
  if (target === undefined) return;
  const realFolder = await realpath(folder).catch(() => path.resolve(folder));
  const relative = path.relative(realFolder, target);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new UnreadableFileError(file, 'outside', `${file} is a symbolic link to ${target}, outside ${folder}; it was not read`);
  }
}

function tooLarge(file: string, maxBytes: number, size: number): UnreadableFileError {
  return new UnreadableFileError(file, 'too-large', `${file} is ${megabytes(size)}, more than the ${megabytes(maxBytes)} read at most; it was not read`);
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${bytes} bytes`;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}
