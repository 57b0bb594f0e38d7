// Codex's rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, the hooks'
// `transcript_path`) as agent events. One `{timestamp, type, payload}` per line (openai/codex,
// `RolloutItem` in codex-rs/protocol: `#[serde(tag = "type", content = "payload")]`):
//
//   session_meta, turn_context                   — left out
//   response_item  message{role, content[input_text|output_text]}, function_call{name, arguments, call_id},
//                  function_call_output{call_id, output}, custom_tool_call{name, input, call_id},
//                  custom_tool_call_output, local_shell_call{call_id, action{command[]}}
//   event_msg      user_message{message}, agent_message{message}, exec_command_end{call_id, exit_code, …},
//                  context_compacted, task_complete | turn_aborted (the turn ended)
//   compacted      {message}: the compaction's summary
//
// The user's own words come from event_msg user_message when the file has them: the response
// items of role user also carry what Codex injects (AGENTS.md, environment context). Pure.

import {
  contentText,
  filesOfCommand,
  endsWithQuestion,
  excerpt,
  isRecord,
  MESSAGE_CHARS,
  parseJson,
  patchFiles,
  planStatus,
  stringField,
  type AgentEvent,
  type FileTouch,
} from './agentEvents';
import { parseTimestamp } from './time';


const SHELL_TOOLS = new Set(['shell', 'container.exec', 'exec_command', 'shell_command', 'local_shell']);
/** What Codex puts in a user-role message that the user did not type. */
const INJECTED_USER_TEXT = /^\s*(?:<(?:environment_context|user_instructions|permissions instructions|INSTRUCTIONS|turn_aborted|user_shell_command)\b|# AGENTS\.md instructions)/;

export function codexEvents(records: readonly unknown[]): AgentEvent[] {
  const lines = records.filter(isRecord);
  const hasUserEvents = lines.some((line) => line.type === 'event_msg' && isRecord(line.payload) && line.payload.type === 'user_message');
  const hasAgentEvents = lines.some((line) => line.type === 'event_msg' && isRecord(line.payload) && line.payload.type === 'agent_message');
  const events: AgentEvent[] = [];
  for (const line of lines) {
    const payload = isRecord(line.payload) ? line.payload : undefined;
    if (!payload) continue;
    const at = parseTimestamp(stringField(line, 'timestamp'));
    if (line.type === 'compacted') {
      events.push({ type: 'compaction', at });
      const summary = stringField(payload, 'message')?.trim();
      if (summary) events.push({ type: 'compaction-summary', at, text: summary });
    } else if (line.type === 'event_msg') {
      eventMessage(events, payload, at, hasUserEvents, hasAgentEvents);
    } else if (line.type === 'response_item') {
      responseItem(events, payload, at, hasUserEvents, hasAgentEvents);
    }
  }
  return events;
}

function eventMessage(events: AgentEvent[], payload: Record<string, unknown>, at: number | undefined, hasUserEvents: boolean, hasAgentEvents: boolean): void {
  const text = stringField(payload, 'message') ?? '';
  if (payload.type === 'user_message' && hasUserEvents && text.trim() !== '' && !INJECTED_USER_TEXT.test(text)) {
    events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
  } else if (payload.type === 'agent_message' && hasAgentEvents && text.trim() !== '') {
    events.push({ type: 'assistant', at, text: text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(text) });
  } else if (payload.type === 'exec_command_end') {
    const exitCode = typeof payload.exit_code === 'number' ? payload.exit_code : undefined;
    const output = stringField(payload, 'aggregated_output', 'formatted_output') || [stringField(payload, 'stdout'), stringField(payload, 'stderr')].filter(Boolean).join('\n');
    events.push({ type: 'tool-result', at, id: stringField(payload, 'call_id') ?? '', exitCode, isError: exitCode !== undefined && exitCode !== 0, output: excerpt(output) });
  } else if (payload.type === 'context_compacted') {
    events.push({ type: 'compaction', at });
  } else if (payload.type === 'task_complete' || payload.type === 'turn_aborted') {
    events.push({ type: 'turn-end', at });
  }
}

function responseItem(events: AgentEvent[], payload: Record<string, unknown>, at: number | undefined, hasUserEvents: boolean, hasAgentEvents: boolean): void {
  const type = payload.type;
  if (type === 'message') {
    const text = contentText(payload.content);
    if (text.trim() === '') return;
    if (payload.role === 'user' && !hasUserEvents && !INJECTED_USER_TEXT.test(text)) events.push({ type: 'user', at, text: text.slice(0, MESSAGE_CHARS) });
    if (payload.role === 'assistant' && !hasAgentEvents) events.push({ type: 'assistant', at, text: text.slice(0, MESSAGE_CHARS), asksQuestion: endsWithQuestion(text) });
    return;
  }
  if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
    const id = stringField(payload, 'call_id', 'id') ?? '';
    const name = stringField(payload, 'name') ?? (type === 'local_shell_call' ? 'local_shell' : '');
    const args = type === 'function_call' ? parseJson(payload.arguments) : type === 'local_shell_call' ? payload.action : undefined;
    const input = isRecord(args) ? args : {};
    const command = SHELL_TOOLS.has(name) ? commandText(input) : undefined;
    const patch = name === 'apply_patch' ? (type === 'custom_tool_call' ? stringField(payload, 'input') : stringField(input, 'input', 'patch')) : undefined;
    const files: FileTouch[] = patch !== undefined ? patchFiles(patch) : command !== undefined ? filesOfCommand(command) : [];
    events.push({ type: 'tool-call', at, id, name, command, files });
    if (name === 'update_plan' && Array.isArray(input.plan)) {
      const steps = input.plan.filter(isRecord).map((step) => ({ text: stringField(step, 'step') ?? '', status: planStatus(step.status) }));
      events.push({ type: 'plan', at, steps: steps.filter((step) => step.text !== '') });
    }
    return;
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    const raw = payload.output;
    const structured = parseJson(raw);
    const body = isRecord(structured) ? structured : undefined;
    const output = body ? (stringField(body, 'output') ?? '') : typeof raw === 'string' ? raw : contentText(raw);
    const metadata = body && isRecord(body.metadata) ? body.metadata : undefined;
    const exitCode = typeof metadata?.exit_code === 'number' ? metadata.exit_code : exitCodeInText(output);
    const failed = isRecord(raw) && raw.success === false;
    events.push({ type: 'tool-result', at, id: stringField(payload, 'call_id') ?? '', exitCode, isError: failed || (exitCode !== undefined && exitCode !== 0), output: excerpt(output) });
  }
}

/** A shell call's command line: `command` as an argv (`["bash", "-lc", "…"]`) or a string, or `cmd`. */
function commandText(input: Record<string, unknown>): string | undefined {
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (!Array.isArray(command)) return undefined;
  const argv = command.map(String);
  // `bash -lc "<script>"`: the script is the command the agent wrote.
  if (argv.length >= 3 && /(?:^|\/)(?:ba|z)?sh$/.test(argv[0] as string) && /^-\w*c$/.test(argv[1] as string)) return argv.slice(2).join(' ');
  return argv.join(' ');
}

/** The exit status Codex writes into a text result ("Exit code: 1", "Process exited with code 1"). */
function exitCodeInText(output: string): number | undefined {
  const match = /^(?:Exit code:|Process exited with code)\s*(-?\d+)/m.exec(output.slice(0, 2000));
  return match ? Number(match[1]) : undefined;
}
