// The end of an agent's transcript file, read bounded: whether a resumed conversation already
// holds the recovery block is written there (src/core/blockMark.ts). Opened the one safe way
// (safeRead: a regular file only, a FIFO never blocks), and only its last TAIL_BYTES are read: a
// block further back than that is given again, which is the safe side.
import { openRegularFile } from '../io/safeRead';

const TAIL_BYTES = 4 * 1024 * 1024;

/** The last `maxBytes` of a transcript as text; undefined when it is missing, not a regular file or unreadable. */
export async function readTranscriptTail(file: string, maxBytes = TAIL_BYTES): Promise<string | undefined> {
  // Any size: only the tail is read.
  const opened = await openRegularFile(file, { maxBytes: Number.MAX_SAFE_INTEGER }).catch(() => undefined);
  if (!opened) return undefined;
  try {
    const length = Math.min(opened.size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await opened.handle.read(buffer, 0, length, opened.size - length);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
