// Reading an agent's transcript from disk as agent events (src/core/agentEvents.ts).
//
// A transcript may be missing, still being written (a partial last line), damaged, of a newer
// format with entry types we do not know, or hundreds of megabytes long. None of that may fail a
// hook: the reader never throws, opens only regular files (src/io/safeRead.ts: a FIFO would
// block an ordinary open), and reads at most `maxBytes` from the end of the file, whatever its
// size. What it could not read it says in `problem` and `skippedLines`.

import { type AgentEvent, type TranscriptAgent, type TranscriptEvents } from '../../core/agentEvents';
import { errorMessage } from '../../core/errors';
import { detectTranscriptAgent, foreignTranscript, notUnderstood, readerName, transcriptEvents, transcriptOrigin } from '../../core/transcript';
import { transcriptRecords } from '../../core/transcriptLines';
import { stat } from 'node:fs/promises';
import { openRegularFile, UnreadableFileError } from '../../io/safeRead';

/** How much of a transcript's end is read: the work since the last compaction fits in it many times over. */
export const TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024;

export interface ReadTranscriptOptions {
  /** Bytes read from the end at most (TRANSCRIPT_TAIL_BYTES by default). */
  maxBytes?: number;
  /** The session it is read for (the hook's session id): only its lines are read; a file of other sessions only is not used. */
  session?: string;
  /** The session's folder (the hook's cwd): file paths become relative to it, files outside it are left out. */
  folder?: string;
  /** The beads project the hook runs in: a transcript written in a folder outside it is not used. */
  project?: string;
}

/**
 * The events of the transcript at `path`, written by `agent` ('auto': told from its lines).
 * Never throws: an unusable file gives no events and a `problem`.
 */
export async function readTranscript(path: string | undefined, agent: TranscriptAgent | 'auto', options: ReadTranscriptOptions = {}): Promise<TranscriptEvents> {
  if (!path) return empty(agent === 'auto' ? 'claude' : agent, 'no transcript path');
  const maxBytes = Math.max(1024, Math.floor(options.maxBytes ?? TRANSCRIPT_TAIL_BYTES));
  const key = [path, agent, maxBytes, options.session, options.folder, options.project].join('\0');
  const stamp = await stat(path).then(
    (info) => (info.isFile() ? `${info.size}:${info.mtimeMs}` : undefined),
    () => undefined,
  );
  if (stamp !== undefined && lastRead?.key === key && lastRead.stamp === stamp) return lastRead.events;
  const events = readTranscriptNow(path, agent, maxBytes, options);
  if (stamp !== undefined) lastRead = { key, stamp, events };
  return events;
}

/**
 * The last read, kept while its file has the same size and time: one hook asks for its session's
 * events from more than one place (the session's thread, its bindings and attributed work), at
 * the same moment, and the transcript is read and parsed once. Callers never change the events.
 */
let lastRead: { key: string; stamp: string; events: Promise<TranscriptEvents> } | undefined;

async function readTranscriptNow(path: string, agent: TranscriptAgent | 'auto', maxBytes: number, scope: ReadTranscriptOptions): Promise<TranscriptEvents> {
  const fallbackAgent: TranscriptAgent = agent === 'auto' ? 'claude' : agent;
  let tail: Tail;
  try {
    tail = await readTail(path, maxBytes);
  } catch (error) {
    return empty(fallbackAgent, `transcript unreadable: ${errorMessage(error)}`);
  }
  if (typeof tail === 'string') return empty(fallbackAgent, tail);
  try {
    const { records, skippedLines } = transcriptRecords(tail.text, tail.fromStart);
    const kind = agent === 'auto' ? (detectTranscriptAgent(records) ?? fallbackAgent) : agent;
    // Another session's or another project's transcript is not read into this one's. The session
    // id is compared where the hook's and the transcript's are the same agent's: Claude Code, Codex
    // and Gemini CLI name their own files, and Copilot CLI's events carry its hooks' session id;
    // a file another host hands over (VS Code, Cursor) may number its sessions otherwise.
    const sessionId = agent !== 'auto' || kind === 'copilot' ? scope.session : undefined;
    const foreign = foreignTranscript(transcriptOrigin(kind, records), { sessionId, project: scope.project, folder: scope.folder });
    if (foreign !== undefined) return { ...empty(kind, `not this session's transcript: ${foreign}`), bytesRead: tail.bytesRead };
    const events: AgentEvent[] = transcriptEvents(kind, records, { sessionId, cwd: scope.folder });
    const unclear = notUnderstood(kind, records, events, skippedLines);
    return { agent: kind, events, fromStart: tail.fromStart, bytesRead: tail.bytesRead, skippedLines, ...(unclear === undefined ? {} : { notUnderstood: unclear }) };
  } catch (error) {
    // The error's name only: its message may quote the file's text.
    const reason = `the ${readerName(fallbackAgent)} reader failed on it (${error instanceof Error ? error.name : 'error'})`;
    return { ...empty(fallbackAgent, `transcript not understood: ${errorMessage(error)}`), notUnderstood: reason };
  }
}

interface TailText {
  text: string;
  fromStart: boolean;
  bytesRead: number;
}
/** The text, or why there is none. */
type Tail = TailText | string;

async function readTail(path: string, maxBytes: number): Promise<Tail> {
  // Any size may be opened (only the tail is read); a FIFO or a device is refused at once.
  let opened;
  try {
    opened = await openRegularFile(path, { maxBytes: Number.MAX_SAFE_INTEGER });
  } catch (error) {
    return error instanceof UnreadableFileError && error.reason === 'not-a-file' ? 'the transcript is not a regular file' : `transcript unreadable: ${errorMessage(error)}`;
  }
  if (!opened) return 'no transcript file';
  const { handle, size } = opened;
  try {
    const start = Math.max(0, size - maxBytes);
    const length = size - start;
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { text: buffer.subarray(0, filled).toString('utf8'), fromStart: start === 0, bytesRead: filled };
  } finally {
    await handle.close();
  }
}

function empty(agent: TranscriptAgent, problem: string): TranscriptEvents {
  return { agent, events: [], fromStart: false, bytesRead: 0, skippedLines: 0, problem };
}
