// Builders of transcript lines in each agent's format, for tests. They follow the shapes the
// readers document (src/core/transcript*.ts); the recorded real transcripts in
// test/fixtures/transcripts hold the agents to them.

let clock = Date.parse('2026-11-26T10:00:00Z');
const stamp = () => new Date((clock += 1000)).toISOString();

export const claude = {
  user: (text: string) => ({ type: 'user', uuid: `u${clock}`, sessionId: 's1', timestamp: stamp(), message: { role: 'user', content: text } }),
  text: (text: string) => ({ type: 'assistant', uuid: `a${clock}`, sessionId: 's1', timestamp: stamp(), message: { role: 'assistant', content: [{ type: 'text', text }] } }),
  tool: (id: string, name: string, input: Record<string, unknown>) => ({
    type: 'assistant',
    uuid: `t${clock}`,
    sessionId: 's1',
    timestamp: stamp(),
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  }),
  result: (id: string, content: string, isError = false, toolUseResult?: Record<string, unknown>) => ({
    type: 'user',
    uuid: `r${clock}`,
    sessionId: 's1',
    timestamp: stamp(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
    ...(toolUseResult ? { toolUseResult } : {}),
  }),
  boundary: (trigger = 'manual') => ({ type: 'system', subtype: 'compact_boundary', uuid: `c${clock}`, sessionId: 's1', timestamp: stamp(), compactMetadata: { trigger, preTokens: 1000 } }),
  summary: (text: string) => ({ type: 'user', uuid: `cs${clock}`, sessionId: 's1', timestamp: stamp(), isCompactSummary: true, message: { role: 'user', content: text } }),
};

export const codex = {
  line: (type: string, payload: Record<string, unknown>) => ({ timestamp: stamp(), type, payload }),
  meta: () => codex.line('session_meta', { id: 'x', cwd: '.', cli_version: '0.149.0' }),
  user: (message: string) => codex.line('event_msg', { type: 'user_message', message }),
  agent: (message: string) => codex.line('event_msg', { type: 'agent_message', message }),
  call: (call_id: string, name: string, args: Record<string, unknown>) => codex.line('response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id }),
  patch: (call_id: string, input: string) => codex.line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input, call_id }),
  output: (call_id: string, output: string) => codex.line('response_item', { type: 'function_call_output', call_id, output }),
  compacted: (message: string) => codex.line('compacted', { message }),
};

/** The lines as a JSONL file's text. */
export function jsonl(records: readonly unknown[]): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + '\n';
}
