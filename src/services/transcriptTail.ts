// The end of an agent's transcript file, read bounded: whether a resumed conversation already
// holds the recovery block is written there (src/core/blockMark.ts). Only a regular file is read,
// opened without blocking (a FIFO named as the transcript must not hang a hook), and only its last
// TAIL_BYTES: a block further back than that is given again, which is the safe side.
import { constants as fsConstants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';

const TAIL_BYTES = 4 * 1024 * 1024;

/** The last `maxBytes` of a transcript as text; undefined when it is missing, not a regular file or unreadable. */
export async function readTranscriptTail(file: string, maxBytes = TAIL_BYTES): Promise<string | undefined> {
  const info = await lstat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const nonBlocking = process.platform === 'win32' ? 0 : fsConstants.O_NONBLOCK;
  const handle = await open(file, fsConstants.O_RDONLY | nonBlocking).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const size = (await handle.stat()).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
