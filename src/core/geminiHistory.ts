// What a Gemini CLI session's model history holds now, read from its chat file (the hooks'
// `transcript_path`, `~/.gemini/tmp/<project>/chats/session-*.jsonl`) through its one reader,
// ./geminiChat.ts, which the session's thread shares. Pure.
//
// Facts this rests on (Gemini CLI 0.61.0, google-gemini/gemini-cli@02b2885c; the real-agent suite
// logged every hook input and chat file, test/agents/README.md):
// - The chat file keeps the history the model is sent: a `$set: {messages}` record replaces it
//   whole (at a resume, and after a compression), later message records add to it or replace one
//   by id, `$rewindTo` cuts it.
// - A compression (packages/core/src/services/chatCompressionService.ts, `compress`) makes the
//   history open with its summary as a user turn followed by the model turn
//   "Got it. Thanks for the additional context!", and the file gets that history with new message
//   ids; a resume writes the same messages with the same ids. So the id of the summary turn names
//   one compression, for as long as the session lasts.
// - PreCompress fires before every model request, compressing or not (`compress` fires it before
//   it compares the token count with its threshold): it cannot tell a compression.
// - A resume drops user turns that open with `<hook_context>` (a SessionStart hook's context) from
//   the history it rewrites; context a BeforeAgent or AfterTool hook adds stays, inside the prompt
//   or the tool's result.
import { heldBlockDigest } from './blockMark';
import { isRecord, messageKey, replayGeminiChat } from './geminiChat';
import { transcriptRecords } from './transcriptLines';

/** The model turn Gemini CLI puts after a compression's summary. */
export const GEMINI_COMPRESSION_ACK = 'Got it. Thanks for the additional context!';

export interface GeminiHistory {
  /** How many turns (messages) the history holds. */
  turns: number;
  /** The id of the summary turn of the compression the history opens with; undefined when it was never compressed. */
  compression: string | undefined;
  /** The digest of the newest block of ours a turn holds (its mark, see ./blockMark.ts); undefined when none does. */
  heldBlock: string | undefined;
  /** The text held a record of the whole history (a `$set` of messages, an older file's document): it was read from its start. */
  whole: boolean;
}

interface Turn {
  type: string;
  record: Record<string, unknown>;
}

/**
 * The history as the chat file's text (or the end of it) leaves it. Lines that are not whole JSON
 * records (the cut first line of a tail, a line being written) are skipped. An older session file
 * (one JSON document with `messages`) reads the same.
 */
export function geminiHistory(text: string): GeminiHistory {
  const { entries: turns, whole } = replayGeminiChat<Turn>(transcriptRecords(text, true).records, {
    message: (record) => (typeof record.type === 'string' ? { type: record.type, record } : undefined),
    // A `$set` of messages is the history, whole.
    set: (set, entries) => {
      if (!Array.isArray(set.messages)) return;
      entries.clear();
      set.messages.forEach((message: unknown, index: number) => {
        if (isRecord(message) && typeof message.type === 'string') entries.set(messageKey(message, index), { type: message.type, record: message });
      });
    },
  });
  const ordered = [...turns.entries()];
  const ack = ordered.findIndex(([, turn], index) => index > 0 && turn.type === 'gemini' && turnText(turn.record).trim() === GEMINI_COMPRESSION_ACK && ordered[index - 1]?.[1].type === 'user');
  return {
    turns: ordered.length,
    compression: ack > 0 ? ordered[ack - 1]?.[0] : undefined,
    heldBlock: ordered.flatMap(([, turn]) => heldBlockDigest(JSON.stringify(turn.record), []) ?? []).at(-1),
    whole,
  };
}

function turnText(record: Record<string, unknown>): string {
  const { content } = record;
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  return parts.map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}
