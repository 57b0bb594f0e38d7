// Gemini CLI's hooks decide from the session's chat file (core/geminiHistory.ts): whether a
// compression happened that has no checkpoint yet (BeforeModel), and whether the history holds a
// block of ours (BeforeAgent, AfterTool). Small on purpose: dist/hook.js asks it before it loads
// the rest of the hook, so a model request or tool call with nothing to do stays cheap.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fnv1a } from '../core/hash';
import { geminiHistory, type GeminiHistory } from '../core/geminiHistory';
import { createPrivateFile } from '../io/privateFolder';
import { readTextFile } from '../io/safeRead';
import { readTranscriptTail } from '../services/transcriptTail';
import { markerDir } from './hookMarker';

/** Nothing read (no chat file named, or none there): a history with nothing in it. */
const UNREAD: GeminiHistory = { turns: 0, compression: undefined, holdsBlock: false, whole: false };

/**
 * How far back the chat file is read when its last few megabytes hold no record of the whole
 * history (one huge history, written whole at a resume or a compression). Beyond it the history
 * is taken from what was read: a compression may go unseen, a block be given again.
 */
const LONG_TAIL_BYTES = 64 * 1024 * 1024;

/** The session's history as its chat file holds it now, read from the end of the file. */
export async function readGeminiHistory(transcript: string | undefined): Promise<GeminiHistory> {
  if (transcript === undefined) return UNREAD;
  const text = await readTranscriptTail(transcript);
  if (text === undefined) return UNREAD;
  const history = geminiHistory(text);
  if (history.whole) return history;
  const longer = await readTranscriptTail(transcript, LONG_TAIL_BYTES);
  return longer === undefined || longer.length <= text.length ? history : geminiHistory(longer);
}

/**
 * The file that says a compression of a session has its checkpoint: named by the folder holding
 * `.beads`, the session and the compression's summary turn, so each compression gets exactly one,
 * however many requests, resumes or hook runs see it.
 */
export function compressionCheckpointFile(holder: string, session: string | undefined, compression: string): string {
  return path.join(markerDir(), `${fnv1a(`gemini\0${holder}\0${session ?? ''}\0${compression}`)}.compressed`);
}

/** Claims the checkpoint of a compression: true for the one run that creates the file, false for every other (a link planted at its name included). */
export async function claimCompressionCheckpoint(file: string): Promise<boolean> {
  return createPrivateFile(file, new Date().toISOString());
}

/**
 * A new session's chat file as Gemini CLI wrote it at start: its first record (the session's id,
 * project and start time) and its start-up context, no turn of the conversation yet. Gemini CLI's
 * start-up cleanup takes such a file for an empty session and deletes it, also while that session
 * is still before its first turn, which waits for the BeforeAgent hooks
 * (docs/gemini-session-race.md): what is kept here is written back by `restoreChatFile` when that
 * happened while our hook ran.
 */
export interface KeptChatFile {
  file: string;
  text: string;
}

/** Larger than any chat file that holds no turn yet: a longer one is no new session's, and is not kept. */
const NEW_CHAT_FILE_MAX_BYTES = 64 * 1024;

export async function keepNewChatFile(transcript: string | undefined, session: string | undefined): Promise<KeptChatFile | undefined> {
  if (transcript === undefined || !transcript.endsWith('.jsonl')) return undefined;
  const text = await readTextFile(transcript, { maxBytes: NEW_CHAT_FILE_MAX_BYTES }).catch(() => undefined);
  if (text === undefined || !text.endsWith('\n')) return undefined;
  let first: unknown;
  try {
    first = JSON.parse(text.slice(0, text.indexOf('\n')));
  } catch {
    return undefined;
  }
  const header = first !== null && typeof first === 'object' ? (first as Record<string, unknown>) : undefined;
  if (typeof header?.sessionId !== 'string' || (session !== undefined && header.sessionId !== session)) return undefined;
  return { file: transcript, text };
}

/**
 * Writes the kept chat file back when it is gone (never over one that is there): true when it did.
 * Gemini CLI appends the session's first turn after our hook answers; to a deleted file that
 * append makes a new file without the session's first record, and the session cannot be resumed.
 */
export async function restoreChatFile(kept: KeptChatFile): Promise<boolean> {
  try {
    await writeFile(kept.file, kept.text, { encoding: 'utf8', flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}
