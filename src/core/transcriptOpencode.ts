// opencode's session as agent events. opencode keeps its sessions in its own database (1.18:
// opencode.db, SQLite); our plugin (src/plugins/opencode.js) writes what its SDK gives every
// plugin, `client.session.messages`, one message a line, long strings cut: `{info, parts}`, as
// @opencode-ai/sdk 1.18 types them (`Message`, `Part`):
//
//   info {id, sessionID, role:'user'|'assistant', time{created, completed?}, parentID?,
//         summary? (the compaction's summary answer), finish?, error?, path{cwd, root}?}
//   parts: text {text, synthetic?, ignored?}            tool {tool, callID, state{status, input,
//          compaction {auto, tail_start_id?}                  output?, error?, metadata{exit?, exists?}, time}}
//          reasoning, step-start, step-finish, patch, file, agent, subtask, snapshot, retry
//
// `opencode export <session>` writes the same messages as one JSON document, `{info: the session,
// messages: [{info, parts}]}`: that is the file a user has at hand, and it reads the same. So do
// opencode's own stored files put together (before 1.18: `storage/message/<session>/<message>.json`
// holds a message's info, `storage/part/<message>/<part>.json` each of its parts, in any order
// beside the project's and share's files): each message gets its parts, by their ascending ids,
// as opencode itself joins them.
//
// A compaction counts once its summary is done (an assistant `summary` message that finished
// without an error, answering the compaction's user message): the pre-compaction checkpoint reads
// the session while the compaction message is already stored and its summary not yet asked.
// Text opencode adds itself (`synthetic`: its "Continue if you have next steps…") and the block our
// plugin added to a user message (it ends with our block mark) are not the user's. Pure.

import { endsWithQuestion, excerpt, filesOfCommand, isRecord, MESSAGE_CHARS, patchFiles, planStatus, stringField, type AgentEvent, type FileTouch, type PlanStep } from './agentEvents';

const BLOCK_MARK = /beads-recovery block [0-9a-f]{8}/;
/** The first line of a whole block (src/core/recovery.ts); a block cut to its budget may open with a later heading. */
const BLOCK_TITLE = '# Beads Workflow Context';
const SHELL_TOOLS = new Set(['bash', 'shell']);

export function opencodeEvents(records: readonly unknown[]): AgentEvent[] {
  const messages = opencodeMessages(records).filter(isRecord).filter((record) => isRecord(record.info) && Array.isArray(record.parts)) as { info: Record<string, unknown>; parts: unknown[] }[];
  const summarized = new Set<string>();
  for (const { info } of messages) {
    if (info.role === 'assistant' && info.summary === true && info.finish !== undefined && info.error === undefined && typeof info.parentID === 'string') summarized.add(info.parentID);
  }
  const events: AgentEvent[] = [];
  for (const { info, parts } of messages) {
    const at = timeOf(info.time, 'created');
    if (info.role === 'user') userEvents(events, info, parts, summarized, at);
    else if (info.role === 'assistant' && info.summary === true) {
      const text = textOf(parts);
      if (summarized.has(String(info.parentID)) && text) events.push({ type: 'compaction-summary', at, text });
    } else if (info.role === 'assistant') assistantEvents(events, parts, at);
  }
  return events;
}

/**
 * The messages of opencode's records, each `{info, parts}`: the plugin's lines as they are, an
 * export document's `messages` in its place, stored message files with their stored parts.
 */
export function opencodeMessages(records: readonly unknown[]): unknown[] {
  const lines = records.flatMap((record) => (isOpencodeExport(record) ? record.messages : [record]));
  const stored = lines.filter(isRecord).filter(isStoredMessage);
  if (stored.length === 0) return lines;
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const part of lines.filter(isRecord).filter((line) => isStoredPart(line))) {
    const messageId = part.messageID as string;
    parts.set(messageId, [...(parts.get(messageId) ?? []), part]);
  }
  const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.id).localeCompare(String(b.id));
  const joined = [...stored].sort((a, b) => (timeOf(a.time, 'created') ?? 0) - (timeOf(b.time, 'created') ?? 0) || byId(a, b)).map((info) => ({ info, parts: [...(parts.get(info.id as string) ?? [])].sort(byId) }));
  return [...lines.filter((line) => isRecord(line) && isRecord(line.info) && Array.isArray(line.parts)), ...joined];
}

/** A stored message file: the message's info alone (its parts are files of their own). */
function isStoredMessage(record: Record<string, unknown>): boolean {
  return (record.role === 'user' || record.role === 'assistant') && typeof record.id === 'string' && typeof record.sessionID === 'string' && !('parts' in record) && !('info' in record);
}

/** A stored part file: one part, naming its message. */
export function isStoredPart(record: unknown): boolean {
  return isRecord(record) && typeof record.messageID === 'string' && typeof record.sessionID === 'string' && typeof record.type === 'string';
}

/** The document `opencode export` writes: the session's `info` and its `messages`. */
export function isOpencodeExport(record: unknown): record is { info: Record<string, unknown>; messages: unknown[] } {
  return isRecord(record) && isRecord(record.info) && Array.isArray(record.messages);
}

function userEvents(events: AgentEvent[], info: Record<string, unknown>, parts: readonly unknown[], summarized: ReadonlySet<string>, at: number | undefined): void {
  const compaction = parts.find((part) => isRecord(part) && part.type === 'compaction');
  if (isRecord(compaction)) {
    if (summarized.has(String(info.id))) events.push({ type: 'compaction', at, trigger: compaction.auto === true ? 'auto' : 'manual' });
    return;
  }
  const text = usersOwn(textOf(parts));
  if (text) events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
}

function assistantEvents(events: AgentEvent[], parts: readonly unknown[], messageAt: number | undefined): void {
  for (const part of parts) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && part.synthetic !== true && typeof part.text === 'string' && part.text.trim() !== '') {
      const text = part.text.trim();
      events.push({ type: 'assistant', at: timeOf(part.time, 'start') ?? messageAt, text: text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(text) });
    } else if (part.type === 'tool' && isRecord(part.state)) toolEvents(events, part, part.state, messageAt);
  }
}

function toolEvents(events: AgentEvent[], part: Record<string, unknown>, state: Record<string, unknown>, messageAt: number | undefined): void {
  const id = stringField(part, 'callID', 'id') ?? '';
  const name = stringField(part, 'tool') ?? '';
  const input = isRecord(state.input) ? state.input : {};
  const at = timeOf(state.time, 'start') ?? messageAt;
  const command = SHELL_TOOLS.has(name) ? stringField(input, 'command') : undefined;
  events.push({ type: 'tool-call', at, id, name, command, files: filesOfCall(name, input, command) });
  if (name === 'todowrite' && Array.isArray(input.todos)) {
    const steps = input.todos.filter(isRecord).flatMap((todo): PlanStep[] => {
      const text = stringField(todo, 'content');
      return text ? [{ text, status: planStatus(todo.status) }] : [];
    });
    if (steps.length > 0) events.push({ type: 'plan', at, steps });
  }
  if (state.status !== 'completed' && state.status !== 'error') return;
  const metadata = isRecord(state.metadata) ? state.metadata : {};
  const exitCode = typeof metadata.exit === 'number' ? metadata.exit : undefined;
  const output = state.status === 'error' ? (stringField(state, 'error') ?? '') : (stringField(state, 'output') ?? stringField(metadata, 'output') ?? '');
  const isError = state.status === 'error' || (exitCode !== undefined && exitCode !== 0);
  // The write tool says whether the file was there before (`metadata.exists`): then it was edited.
  const file = name === 'write' ? stringField(input, 'filePath', 'file_path', 'path') : undefined;
  const files: FileTouch[] | undefined = file && metadata.exists === true ? [{ path: file, change: 'edited' }] : undefined;
  events.push({ type: 'tool-result', at: timeOf(state.time, 'end') ?? at, id, exitCode, isError, output: excerpt(output), ...(files ? { files } : {}) });
}

function filesOfCall(name: string, input: Record<string, unknown>, command: string | undefined): FileTouch[] {
  if (command !== undefined) return filesOfCommand(command);
  const file = stringField(input, 'filePath', 'file_path', 'path');
  if (name === 'write' && file) return [{ path: file, change: 'created' }];
  if ((name === 'edit' || name === 'multiedit') && file) return [{ path: file, change: 'edited' }];
  const patch = stringField(input, 'patchText', 'patch');
  if ((name === 'patch' || name === 'apply_patch') && patch) return patchFiles(patch);
  return [];
}

/** The text of a message's own text parts (not opencode's synthetic ones, nor those it ignores). */
function textOf(parts: readonly unknown[]): string {
  return parts
    .filter((part): part is Record<string, unknown> => isRecord(part) && part.type === 'text' && part.synthetic !== true && part.ignored !== true && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n')
    .trim();
}

/**
 * What the user typed: without the block our plugin added after it (from the blank line before
 * the block's first heading), and nothing when the message is a block alone (the plugin's own
 * message after a compaction).
 */
function usersOwn(text: string): string {
  const mark = BLOCK_MARK.exec(text)?.index;
  if (mark === undefined) return text;
  if (/^\s*#/.test(text)) return '';
  const opening = text.indexOf(`\n\n${BLOCK_TITLE}`);
  const heading = text.indexOf('\n\n#');
  const start = opening !== -1 ? opening : heading !== -1 && heading < mark ? heading : text.lastIndexOf('\n\n', mark);
  return start === -1 ? '' : text.slice(0, start).trim();
}

function timeOf(time: unknown, key: string): number | undefined {
  const value = isRecord(time) ? time[key] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
