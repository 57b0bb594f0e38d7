// Gemini CLI's session file (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, the hooks'
// `transcript_path`) as agent events, replayed by its one reader (./geminiChat.ts, which has the
// record shapes). A message's `type` is 'user', 'gemini', 'info', 'error' or 'warning'; a `$set`
// whose history opens with a <state_snapshot> records a compression. Text our hooks or the CLI put
// in a user turn (<hook_context>, <session_context>) is not the user's. Pure.

import {
  contentText,
  endsWithQuestion,
  filesOfCommand,
  excerpt,
  isRecord,
  MESSAGE_CHARS,
  planStatus,
  stringField,
  type AgentEvent,
  type FileTouch,
} from './agentEvents';
import { replayGeminiChat } from './geminiChat';
import { parseTimestamp } from './time';

const INJECTED_BLOCKS = /<(hook_context|session_context|untrusted_context|system-reminder)>[\s\S]*?(?:<\/\1>|$)/g;
const SHELL_TOOLS = new Set(['run_shell_command', 'shell']);

export function geminiEvents(records: readonly unknown[]): AgentEvent[] {
  // Messages by id in their first order; a compression found in a `$set` keeps its place among them.
  let snapshot: string | undefined;
  let marks = 0;
  const { entries } = replayGeminiChat<AgentEvent[]>(records, {
    message: (record) => (stringField(record, 'id') !== undefined && typeof record.type === 'string' ? messageEvents(record) : undefined),
    set: (set, entries) => {
      const summary = stateSnapshot(set.messages);
      if (summary === undefined || summary === snapshot) return;
      snapshot = summary;
      const at = entries.size > 0 ? lastTime(entries) : undefined;
      entries.set(`$compression-${marks++}`, [{ type: 'compaction', at }, { type: 'compaction-summary', at, text: summary }]);
    },
  });
  return [...entries.values()].flat();
}

function messageEvents(record: Record<string, unknown>): AgentEvent[] {
  const at = parseTimestamp(stringField(record, 'timestamp'));
  const events: AgentEvent[] = [];
  if (record.type === 'user') {
    const text = userText(record.content);
    if (text) events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
    return events;
  }
  if (record.type !== 'gemini') return events;
  const text = contentText(record.content).trim();
  if (text) events.push({ type: 'assistant', at, text: text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(text) });
  for (const call of Array.isArray(record.toolCalls) ? record.toolCalls.filter(isRecord) : []) {
    const id = stringField(call, 'id') ?? '';
    const name = stringField(call, 'name') ?? '';
    const args = isRecord(call.args) ? call.args : {};
    const callAt = parseTimestamp(stringField(call, 'timestamp')) ?? at;
    const command = SHELL_TOOLS.has(name) ? stringField(args, 'command') : undefined;
    const output = resultText(call.result);
    events.push({ type: 'tool-call', at: callAt, id, name, command, files: command !== undefined ? filesOfCommand(command) : filesOfCall(name, args) });
    if (name === 'write_todos' && Array.isArray(args.todos)) {
      const steps = args.todos.filter(isRecord).map((todo) => ({ text: stringField(todo, 'description', 'content') ?? '', status: planStatus(todo.status) }));
      events.push({ type: 'plan', at: callAt, steps: steps.filter((step) => step.text !== '') });
    }
    if (call.status === 'success' || call.status === 'error' || call.status === 'cancelled' || call.result != null) {
      const exit = /^Exit Code: (-?\d+)/m.exec(output);
      const exitCode = exit ? Number(exit[1]) : command !== undefined && call.status === 'success' ? 0 : undefined;
      const isError = call.status !== 'success' || (exitCode !== undefined && exitCode !== 0);
      events.push({ type: 'tool-result', at: callAt, id, exitCode, isError, output: excerpt(output), files: filesOfResult(name, args, output) });
    }
  }
  return events;
}

/** What the user typed: the turn's text without what hooks and the CLI put around it. */
function userText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('\n')
    .replace(INJECTED_BLOCKS, '')
    .trim();
}

/** The output a tool call returned to the model (`functionResponse.response.output` or `.error`), without hook text. */
function resultText(result: unknown): string {
  const parts = Array.isArray(result) ? result : result == null ? [] : [result];
  const texts = parts.map((part) => {
    if (!isRecord(part)) return typeof part === 'string' ? part : '';
    const response = isRecord(part.functionResponse) && isRecord(part.functionResponse.response) ? part.functionResponse.response : undefined;
    if (response) return stringField(response, 'output', 'error') ?? contentText(response.content);
    return typeof part.text === 'string' ? part.text : '';
  });
  return texts
    .join('\n')
    .replace(/<hook_context>[\s\S]*?(?:<\/hook_context>|$)/g, '')
    .replace(/<\/?untrusted_context>/g, '')
    .replace(/^Output: /m, '')
    .trim();
}

function filesOfCall(name: string, args: Record<string, unknown>): FileTouch[] {
  const path = stringField(args, 'file_path', 'absolute_path', 'path');
  if (!path) return [];
  if (name === 'write_file') return [{ path, change: 'created' }];
  if (name === 'replace' || name === 'edit' || name === 'smart_edit') return [{ path, change: 'edited' }];
  return [];
}

/** write_file says whether it created the file or overwrote one. */
function filesOfResult(name: string, args: Record<string, unknown>, output: string): FileTouch[] | undefined {
  const path = stringField(args, 'file_path', 'absolute_path', 'path');
  if (name !== 'write_file' || !path) return undefined;
  if (/overwrote/i.test(output)) return [{ path, change: 'edited' }];
  return undefined;
}

/** The text of a `<state_snapshot>` turn in the model's history: a compression's summary. */
function stateSnapshot(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const text = contentText(message.content);
    if (/^\s*<state_snapshot>/.test(text)) return text.trim();
  }
  return undefined;
}

function lastTime(entries: Map<string, AgentEvent[]>): number | undefined {
  const times = [...entries.values()].flat().map((event) => event.at).filter((at): at is number => at !== undefined);
  return times.length > 0 ? Math.max(...times) : undefined;
}
