// Gemini CLI's hooks decide from the session's chat file (core/geminiHistory.ts): whether a
// compression happened that has no checkpoint yet (BeforeModel), and whether the history holds a
// block of ours (BeforeAgent, AfterTool). Small on purpose: dist/hook.js asks it before it loads
// the rest of the hook, so a model request or tool call with nothing to do stays cheap.
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fnv1a } from '../core/hash';
import { geminiHistory, type GeminiHistory } from '../core/geminiHistory';
import { createPrivateFile } from '../io/privateFolder';
import { readLines, readTextFile } from '../io/safeRead';
import { readTranscriptTail } from '../services/transcriptTail';
import { markerDir } from './hookMarker';

/** Nothing read (no chat file named, or none there): a history with nothing in it. */
const UNREAD: GeminiHistory = { turns: 0, compression: undefined, heldBlock: undefined, whole: false };

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
 * happened while our hook ran (before it ran, `repairChatFile` wrote the first record back).
 */
export interface KeptChatFile {
  file: string;
  text: string;
}

/** Larger than any chat file that holds no turn yet: a longer one is no new session's, and is not kept. */
const NEW_CHAT_FILE_MAX_BYTES = 64 * 1024;

/** What a hook knows of the Gemini CLI session it runs in: enough to rebuild its chat file's first record. */
export interface GeminiSession {
  transcript: string | undefined;
  session: string | undefined;
  /** The project folder Gemini CLI runs in (the hook's cwd), which its project hash is made of. */
  projectRoot: string;
  /** When Gemini CLI fired the hook, else now: the rebuilt record's start time. */
  at: string;
}

export async function keepNewChatFile(from: Pick<GeminiSession, 'transcript' | 'session'>): Promise<KeptChatFile | undefined> {
  const { transcript, session } = from;
  if (transcript === undefined || !transcript.endsWith('.jsonl')) return undefined;
  const text = await readTextFile(transcript, { maxBytes: NEW_CHAT_FILE_MAX_BYTES }).catch(() => undefined);
  if (text === undefined || !text.endsWith('\n')) return undefined;
  const header = sessionOf(text.slice(0, text.indexOf('\n')));
  if (header === undefined || (session !== undefined && header !== session)) return undefined;
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

/** How far a chat file that does not open with its first record is searched for one appended later (by `repairChatFile`). */
const REPAIRED_SEARCH_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Gives the session's chat file back its first record when the file holds none: true when it did.
 * Gemini CLI records the first prompt only after the BeforeAgent hooks and its routing request,
 * so another session's start-up cleanup can still delete the file after our BeforeAgent wrote it
 * back; the prompt then goes to a new file without the record. The BeforeModel hook, which runs
 * after the prompt is recorded and before the model is asked, appends the record: Gemini CLI's
 * reader takes the session's id and project from any record that names both
 * (`loadConversationRecord`), and appending never races its own appends as a rewrite would.
 * Run by every hook that reads the chat file (BeforeAgent, BeforeModel, AfterTool).
 */
export async function repairChatFile(from: GeminiSession): Promise<boolean> {
  if (!isOwnChatFile(from)) return false;
  try {
    const lines = await readLines(from.transcript!, { maxBytes: REPAIRED_SEARCH_MAX_BYTES });
    // Deleted after the prompt was recorded (the cleanup read the file just before): the prompt is
    // gone, but the session's id goes back first, so what Gemini CLI records next can be resumed.
    if (lines === undefined) return await restoreChatFile({ file: from.transcript!, text: await sessionRecord(from) });
    let named = false;
    for await (const line of lines) {
      if (!line.complete) break;
      if (sessionOf(line.text) !== undefined) {
        named = true;
        break;
      }
    }
    if (named) return false;
    await appendFile(from.transcript!, await sessionRecord(from), 'utf8');
    return true;
  } catch {
    // Unreadable, or grown past the search: left as it is.
    return false;
  }
}

/** Whether the hook's transcript is the chat file Gemini CLI names after this session: `session-<minute>-<the id's first 8>.jsonl` (`ChatRecordingService.initialize`). No other file is ever written. */
function isOwnChatFile({ transcript, session }: GeminiSession): boolean {
  if (transcript === undefined || session === undefined || session.length < 8) return false;
  const name = path.basename(transcript);
  return name.startsWith('session-') && name.endsWith(`-${session.slice(0, 8)}.jsonl`);
}

/** The session id of a chat file's line when it is the record Gemini CLI opens the file with (one naming the session and its project). */
function sessionOf(line: string): string | undefined {
  if (!line.startsWith('{') || !line.includes('"sessionId"')) return undefined;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    return typeof record.sessionId === 'string' && typeof record.projectHash === 'string' ? record.sessionId : undefined;
  } catch {
    return undefined;
  }
}

/** The record Gemini CLI opens a main session's chat file with, rebuilt: the project hash made as its `getProjectHash` makes it (Gemini CLI checks only that there is one). */
async function sessionRecord({ session, projectRoot, at }: GeminiSession): Promise<string> {
  // Loaded here, on this rare repair alone: node:crypto costs every hook run a few ms to load.
  const { createHash } = await import('node:crypto');
  const projectHash = createHash('sha256').update(projectRoot).digest('hex');
  return `${JSON.stringify({ sessionId: session, projectHash, startTime: at, lastUpdated: at, kind: 'main' })}\n`;
}
