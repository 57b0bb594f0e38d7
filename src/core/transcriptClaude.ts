// Claude Code's session transcript (`~/.claude/projects/<project>/<session>.jsonl`, the hooks'
// `transcript_path`) as agent events. One JSON object per line:
//
//   {type:"user", message:{role, content: string | [text | tool_result…]}, toolUseResult?, isMeta?, isCompactSummary?, timestamp}
//   {type:"assistant", message:{content:[text | tool_use{id,name,input} | thinking…]}, timestamp}
//   {type:"system", subtype:"compact_boundary", compactMetadata:{trigger}, timestamp}
//   {type:"system", subtype:"stop_hook_summary" | "turn_duration", timestamp}: the turn ended
//   {type:"attachment", attachment:{type:"queued_command", prompt, isMeta?, origin?:{kind}}, timestamp}
//
// A queued command is a message the user typed while the agent was busy, handed to it mid-turn;
// one marked `isMeta`, or whose origin is not a person (a plugin, a task notice, a peer agent), was
// not typed by the user.
//
// A turn ends (the agent hands the prompt back) where Claude Code writes its end-of-turn records
// (2.1: `stop_hook_summary` after the Stop hooks, `turn_duration`), where an assistant message
// stopped with `end_turn` (1.0 writes the stop reason), or where the user interrupted it.
//
// Sidechain lines (a subagent's own conversation) are left out: they are not this session's
// thread. Tool shapes follow the package's `sdk-tools.d.ts` (Bash, Edit, MultiEdit, Write,
// NotebookEdit, TodoWrite, TaskCreate/TaskUpdate, AskUserQuestion). Pure.

import {
  contentText,
  filesOfCommand,
  endsWithQuestion,
  excerpt,
  isRecord,
  MESSAGE_CHARS,
  planStatus,
  stringField,
  type AgentEvent,
  type FileTouch,
  type PlanStep,
} from './agentEvents';
import { parseTimestamp } from './time';

/** Text Claude Code puts in a user turn that the user did not type: slash-command echoes, hook output, caveats. */
const INJECTED_USER_TEXT = /^\s*<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|system-reminder|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>/;
const INTERRUPTED = /^\[Request interrupted by user/;
const TURN_END_RECORDS = new Set(['stop_hook_summary', 'turn_duration']);

/** Events of a Claude Code transcript's lines, oldest first (the lines already parsed as JSON). */
export function claudeEvents(records: readonly unknown[]): AgentEvent[] {
  const events: AgentEvent[] = [];
  const tasks = new Map<string, PlanStep>();
  const pendingTasks = new Map<string, string>();
  const askIds = new Set<string>();
  for (const record of records) {
    if (!isRecord(record) || record.isSidechain === true) continue;
    const at = parseTimestamp(stringField(record, 'timestamp'));
    const type = record.type;
    if (type === 'system') {
      if (record.subtype === 'compact_boundary') {
        const metadata = isRecord(record.compactMetadata) ? record.compactMetadata : {};
        events.push({ type: 'compaction', at, trigger: stringField(metadata, 'trigger') });
      } else if (typeof record.subtype === 'string' && TURN_END_RECORDS.has(record.subtype)) {
        pushTurnEnd(events, at);
      }
      continue;
    }
    if (type === 'attachment') {
      const queued = queuedMessage(record.attachment);
      if (queued !== undefined) pushUserText(events, queued, at);
      continue;
    }
    const message = isRecord(record.message) ? record.message : undefined;
    if (!message) continue;
    if (type === 'user') {
      if (record.isCompactSummary === true) {
        const text = contentText(message.content).trim();
        if (text) events.push({ type: 'compaction-summary', at, text: text.slice(0, MESSAGE_CHARS * 4) });
        continue;
      }
      if (record.isMeta === true) continue;
      const content = message.content;
      if (typeof content === 'string') {
        pushUserText(events, content, at);
        continue;
      }
      if (!Array.isArray(content)) continue;
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === 'text' && typeof block.text === 'string') pushUserText(events, block.text, at);
        else if (block.type === 'tool_result') {
          const id = stringField(block, 'tool_use_id') ?? '';
          const output = contentText(block.content);
          const isError = block.is_error === true;
          const result = isRecord(record.toolUseResult) ? record.toolUseResult : undefined;
          events.push({ type: 'tool-result', at, id, isError, exitCode: exitCodeOf(output, isError, result), output: excerpt(resultOutput(output, result)), files: filesOfResult(result) });
          if (askIds.has(id)) events.push({ type: 'user', at, text: output.slice(0, MESSAGE_CHARS) });
          const created = result && isRecord(result.task) ? stringField(result.task, 'id') : undefined;
          const subject = pendingTasks.get(id);
          if (created !== undefined && subject !== undefined) {
            tasks.set(created, { text: subject, status: 'pending' });
            events.push({ type: 'plan', at, steps: [...tasks.values()] });
          }
        }
      }
      continue;
    }
    if (type !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') {
        events.push({ type: 'assistant', at, text: block.text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(block.text) });
      } else if (block.type === 'tool_use') {
        const id = stringField(block, 'id') ?? '';
        const name = stringField(block, 'name') ?? '';
        const input = isRecord(block.input) ? block.input : {};
        const command = name === 'Bash' ? stringField(input, 'command') : undefined;
        events.push({ type: 'tool-call', at, id, name, command, files: filesOfCall(name, input, command) });
        if (name === 'TodoWrite' && Array.isArray(input.todos)) {
          const steps = input.todos.filter(isRecord).map((todo) => ({ text: stringField(todo, 'content') ?? '', status: planStatus(todo.status) }));
          events.push({ type: 'plan', at, steps: steps.filter((step) => step.text !== '') });
        } else if (name === 'TaskCreate') {
          const subject = stringField(input, 'subject');
          if (subject) pendingTasks.set(id, subject);
        } else if (name === 'TaskUpdate') {
          const task = tasks.get(stringField(input, 'taskId') ?? '');
          if (task) {
            if (input.status === 'deleted') tasks.delete(stringField(input, 'taskId') ?? '');
            else if (input.status !== undefined) task.status = planStatus(input.status);
            const subject = stringField(input, 'subject');
            if (subject) task.text = subject;
            events.push({ type: 'plan', at, steps: [...tasks.values()].map((step) => ({ ...step })) });
          }
        } else if (name === 'AskUserQuestion' && Array.isArray(input.questions)) {
          const text = input.questions.filter(isRecord).map((question) => stringField(question, 'question') ?? '').filter(Boolean).join('\n');
          if (text) {
            askIds.add(id);
            events.push({ type: 'assistant', at, text: text.slice(0, MESSAGE_CHARS), asksQuestion: true });
          }
        }
      }
    }
    if (message.stop_reason === 'end_turn') pushTurnEnd(events, at);
  }
  return events;
}

function pushUserText(events: AgentEvent[], text: string, at: number | undefined): void {
  if (INTERRUPTED.test(text)) pushTurnEnd(events, at);
  if (text.trim() === '' || INJECTED_USER_TEXT.test(text) || INTERRUPTED.test(text)) return;
  events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
}

/** One turn end per turn: Claude Code writes two records at the end of some turns. */
function pushTurnEnd(events: AgentEvent[], at: number | undefined): void {
  if (events.at(-1)?.type !== 'turn-end') events.push({ type: 'turn-end', at });
}

/** Origins of a queued command that a person typed (or spoke); no origin is the user at the prompt. */
const TYPED_ORIGINS = new Set(['human', 'person', 'voice-call']);

/** The text of a queued command the user typed, or undefined. */
function queuedMessage(attachment: unknown): string | undefined {
  if (!isRecord(attachment) || attachment.type !== 'queued_command' || attachment.isMeta === true) return undefined;
  const origin = isRecord(attachment.origin) ? stringField(attachment.origin, 'kind') : undefined;
  if (origin !== undefined && !TYPED_ORIGINS.has(origin)) return undefined;
  const prompt = attachment.prompt;
  return typeof prompt === 'string' ? prompt : contentText(prompt);
}

function filesOfCall(name: string, input: Record<string, unknown>, command: string | undefined): FileTouch[] {
  if (name === 'Edit' || name === 'MultiEdit') return pathTouch(stringField(input, 'file_path'), 'edited');
  if (name === 'Write') return pathTouch(stringField(input, 'file_path'), 'created');
  if (name === 'NotebookEdit') return pathTouch(stringField(input, 'notebook_path'), 'edited');
  if (command !== undefined) return filesOfCommand(command);
  return [];
}

/** A Write's result says whether it created the file or updated one. */
function filesOfResult(result: Record<string, unknown> | undefined): FileTouch[] | undefined {
  if (!result) return undefined;
  const path = stringField(result, 'filePath');
  if (path === undefined) return undefined;
  if (result.type === 'create') return [{ path, change: 'created' }];
  if (result.type === 'update') return [{ path, change: 'edited' }];
  return undefined;
}

function pathTouch(path: string | undefined, change: FileTouch['change']): FileTouch[] {
  return path ? [{ path, change }] : [];
}

/**
 * Claude Code writes a failed Bash result as "Exit code N\n<output>"; a successful one has no
 * code. An interrupted command has none either.
 */
function exitCodeOf(output: string, isError: boolean, result: Record<string, unknown> | undefined): number | undefined {
  const match = /^Exit code (-?\d+)/.exec(output);
  if (match) return Number(match[1]);
  if (result && typeof result.stdout === 'string' && !isError && result.interrupted !== true) return 0;
  return undefined;
}

/** The result's text; Bash's structured result when the block text is empty. */
function resultOutput(output: string, result: Record<string, unknown> | undefined): string {
  if (output.trim() !== '' || !result) return output;
  return [stringField(result, 'stdout'), stringField(result, 'stderr')].filter(Boolean).join('\n');
}
