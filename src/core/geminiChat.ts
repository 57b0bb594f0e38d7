// The one reader of Gemini CLI's chat file (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, the
// hooks' `transcript_path`): the replay of its records into the messages they leave, shared by the
// session's thread (./transcriptGemini.ts) and the hooks' view of the model's history
// (./geminiHistory.ts). Record shapes (google-gemini/gemini-cli,
// packages/core/src/services/chatRecordingTypes.ts):
//
//   {sessionId, projectHash, startTime, …}          the metadata (again at each resume)
//   {id, timestamp, type, content, toolCalls?}      a message; the same id again replaces it in place
//   {$rewindTo: id}                                  drops that message and all after it
//   {$set: {…, messages?}}                           metadata; `messages` is the model's history
//
// An older session file is one JSON document {sessionId, messages: […]}: its messages are the
// whole history. Pure, and importing nothing: the Gemini hooks read it before the rest of the
// hook is loaded.

/** What a replay does with each record; the entries it keeps are the caller's own kind. */
export interface GeminiChatReplay<T> {
  /** A message, new or written again under `key` (its id; `#<index>` in an older file without ids): what to keep for it, or undefined for nothing. */
  message(record: Readonly<Record<string, unknown>>, key: string): T | undefined;
  /** A `$set` record: change the entries so far as it says (replace them with its history, or mark a compression). */
  set(set: Readonly<Record<string, unknown>>, entries: Map<string, T>): void;
}

export interface GeminiChat<T> {
  /** The entries the records leave, in their order: a message written again keeps its place, a rewind cuts. */
  entries: Map<string, T>;
  /** A record of the whole history was read (a `$set` of messages, an older file's document): the replay saw it from its start. */
  whole: boolean;
}

/** Replays the chat file's records (its parsed lines, or an older file's one document), oldest first. */
export function replayGeminiChat<T>(records: Iterable<unknown>, replay: GeminiChatReplay<T>): GeminiChat<T> {
  const entries = new Map<string, T>();
  let whole = false;
  const keep = (record: unknown, key: string) => {
    if (!isRecord(record)) return;
    const kept = replay.message(record, key);
    if (kept !== undefined) entries.set(key, kept);
  };
  for (const record of records) {
    if (!isRecord(record)) continue;
    if (typeof record.$rewindTo === 'string') {
      let cut = false;
      for (const id of [...entries.keys()]) {
        if (id === record.$rewindTo) cut = true;
        if (cut) entries.delete(id);
      }
      continue;
    }
    if ('$set' in record) {
      if (!isRecord(record.$set)) continue;
      if (Array.isArray(record.$set.messages)) whole = true;
      replay.set(record.$set, entries);
      continue;
    }
    if (Array.isArray(record.messages)) {
      // An older session file: the whole history in one document.
      whole = true;
      entries.clear();
      record.messages.forEach((message: unknown, index: number) => keep(message, messageKey(message, index)));
      continue;
    }
    if (typeof record.id === 'string') keep(record, record.id);
  }
  return { entries, whole };
}

/** A message's key in the history: its id, or its place when it has none. */
export function messageKey(message: unknown, index: number): string {
  return isRecord(message) && typeof message.id === 'string' ? message.id : `#${index}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
