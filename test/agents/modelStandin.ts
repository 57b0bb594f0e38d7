// Model stand-ins for the real-agent suite: one HTTP server per API family (Anthropic Messages,
// OpenAI Responses, Gemini generateContent) on 127.0.0.1, answering in that API's streaming shape
// from a script, and recording every request (method, path, headers, body) for assertions.
//
// A script is a list of steps, each keyed by the word the user's prompt starts with: when the
// newest user prompt of a request has a line that starts with `when`, the stand-in answers with
// `turns[n]`, n being how many model turns the conversation already holds after that prompt. (A
// line, not anywhere: the recovery context the hooks add quotes the session's own request, and a
// quote must not count as the prompt.) So the answer is a function of the
// request alone (a retried request gets the same answer), and one stand-in serves several sessions.
// A request that asks for a compaction summary (found by the agent's own compaction prompt) gets
// `summary`; any other request (a title, a quota probe, a prompt no step names) gets a short text.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ModelTurn = (
  | { text: string }
  /** A tool call that runs one shell command in the agent's own shell tool. */
  | { shell: string }
  /** A tool call that writes a whole file (relative to the session's folder) with the agent's own file tool. */
  | { write: { path: string; content: string } }
) & {
  /**
   * The context size the answer reports (usage tokens), default 100: a large figure is how an
   * agent that compacts by its own measure (Codex, Gemini CLI) is made to compact.
   */
  tokens?: number;
  /**
   * Milliseconds the stand-in waits before it answers, as a model takes its time: Copilot CLI
   * compacts in the background beside the turn and drops a compaction still running when `-p` ends.
   */
  delayMs?: number;
  /**
   * The stand-in holds the answer until the test opens this gate (`standin.open(gate)`), as a model
   * still thinking keeps the session's run going: how a test keeps one session live while another
   * one starts, compacts or resumes beside it. An open gate stays open (a retried request passes).
   */
  gate?: string;
};

export interface ScriptStep {
  /** The word a line of the user prompt this step answers starts with. */
  when: string;
  turns: ModelTurn[];
  /**
   * Once the compaction summary follows this step's prompt, the step goes on with these turns
   * (counted from the summary) instead: the agent drops the earlier tool calls when it compacts.
   * The same prompt sent again after a summary is a new turn, and starts from `turns` again.
   */
  afterCompaction?: ModelTurn[];
}

export type ApiFamily = 'anthropic' | 'openai' | 'gemini';

/**
 * turn: a step of the conversation; compaction: the agent asks for its summary; side: a request
 * the agent makes beside the conversation for its own use (Gemini CLI's model router asks for a
 * JSON verdict on every prompt, opencode for a title); other: anything else (token counts, model
 * lists, package lookups).
 */
export type RequestKind = 'turn' | 'compaction' | 'side' | 'other';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The body as received. */
  text: string;
  kind: RequestKind;
  /** Milliseconds since the epoch when the request arrived. */
  at: number;
}

export interface ModelStandin {
  family: ApiFamily;
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  requests: RecordedRequest[];
  /** Hosts the agent tried to reach through the proxy it was given (refused): anything not 127.0.0.1. */
  egress: string[];
  /** Requests that carried the conversation (turns and compactions), in order. */
  conversationRequests(): RecordedRequest[];
  /** Resolves with the next request that arrives (for start-up timing). */
  nextRequest(): Promise<RecordedRequest>;
  /** Resolves once a request waits at the gate (a turn's `gate`), or at once if one did. */
  reached(gate: string): Promise<void>;
  /** Opens the gate: every answer held there goes out, and any later one is not held. */
  open(gate: string): void;
  close(): Promise<void>;
}

export const COMPACTION_SUMMARY = 'Summary of the conversation so far: the agent wrote notes.txt and ran a command; the work continues on demo-1.';

/** The compaction prompts of the agents under test, as each one words it in the request's last user message. */
const COMPACTION_PROMPTS = [
  /create a detailed summary of the conversation/i, // Claude Code's /compact and auto-compact
  /CONTEXT CHECKPOINT COMPACTION/, // Codex's compact prompt
  /<state_snapshot>/, // Gemini CLI's compression prompt (and the check of the snapshot it wrote)
  /summarize the conversation|summary of our conversation|conversation summary/i, // Copilot CLI
  // opencode 1.18: "Create a new anchored summary from the conversation history…", or, with an
  // earlier summary, "<prior-summary>…Construct a new summary that combines both".
  /anchored summary from the conversation history|Construct a new summary that combines both/,
];

/** One family's reading of a request and writing of a turn. */
interface FamilyCodec {
  /** The user prompts and model turns of the request, in order, flattened to text / 'model'. */
  conversation(body: Record<string, unknown>): { role: 'user' | 'model'; text: string }[];
  isConversation(path: string, body: Record<string, unknown>): boolean;
  streaming(path: string, body: Record<string, unknown>): boolean;
  /** The answer to a side request (a JSON verdict, a title), or undefined for a conversation turn. */
  side?(body: Record<string, unknown>): string | undefined;
  /** Writes one model turn as the API's response (streamed or whole). */
  reply(res: http.ServerResponse, turn: ModelTurn, stream: boolean, body: Record<string, unknown>): void;
  /** A request that is not the conversation (token counts, model lists…). */
  other(res: http.ServerResponse, path: string, body: Record<string, unknown>): boolean;
}

export async function startModelStandin(family: ApiFamily, script: ScriptStep[] = []): Promise<ModelStandin> {
  const codec = CODECS[family];
  const requests: RecordedRequest[] = [];
  const waiters: ((request: RecordedRequest) => void)[] = [];
  const egress: string[] = [];
  const gates = new Map<string, { open: boolean; reached: boolean; held: (() => void)[]; onReach: (() => void)[] }>();
  const gateOf = (name: string) => {
    let gate = gates.get(name);
    if (!gate) gates.set(name, (gate = { open: false, reached: false, held: [], onReach: [] }));
    return gate;
  };
  const server = http.createServer((req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    // An absolute URL is a plain-HTTP proxy request for another host: refused and recorded.
    if (/^https?:\/\//i.test(req.url ?? '')) {
      egress.push(req.url ?? '');
      res.writeHead(403).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? {} : JSON.parse(text);
      } catch {
        // kept as text
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const object = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
      const isConversation = req.method === 'POST' && codec.isConversation(path, object);
      const conversation = isConversation ? codec.conversation(object) : [];
      const compaction = isConversation && asksForSummary(conversation);
      const sideAnswer = isConversation && !compaction ? codec.side?.(object) : undefined;
      const kind: RequestKind = !isConversation ? 'other' : compaction ? 'compaction' : sideAnswer !== undefined ? 'side' : 'turn';
      const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, text, kind, at: Date.now() };
      requests.push(recorded);
      for (const waiter of waiters.splice(0)) waiter(recorded);
      try {
        if (!isConversation) {
          if (!codec.other(res, path, object)) {
            res.writeHead(404, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: { message: `the model stand-in has no ${req.method} ${path}` } }));
          }
          return;
        }
        if (sideAnswer !== undefined) {
          codec.reply(res, { text: sideAnswer }, codec.streaming(path, object), object);
          return;
        }
        const turn = kind === 'compaction' ? { text: summaryFor(family) } : nextTurn(script, conversation, text.includes(COMPACTION_SUMMARY));
        const answer = () => codec.reply(res, turn, codec.streaming(path, object), object);
        const delayed = () => {
          if (turn.delayMs) setTimeout(() => (res.destroyed ? undefined : answer()), turn.delayMs);
          else answer();
        };
        const gate = turn.gate === undefined ? undefined : gateOf(turn.gate);
        if (gate && !gate.open) {
          gate.reached = true;
          for (const resolve of gate.onReach.splice(0)) resolve();
          gate.held.push(() => (res.destroyed ? undefined : delayed()));
        } else delayed();
      } catch (error) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      }
    });
  });
  // HTTPS through the proxy: CONNECT host:port, refused and recorded.
  server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    egress.push(`CONNECT ${req.url ?? ''}`);
    // The agent may drop the connection first: that is no failure of the stand-in.
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    family,
    url: `http://127.0.0.1:${port}`,
    requests,
    egress,
    conversationRequests: () => requests.filter((request) => request.kind === 'turn' || request.kind === 'compaction'),
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    reached: (name) => {
      const gate = gateOf(name);
      return gate.reached ? Promise.resolve() : new Promise<void>((resolve) => gate.onReach.push(resolve));
    },
    open: (name) => {
      const gate = gateOf(name);
      gate.open = true;
      for (const release of gate.held.splice(0)) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether the request's newest user message is the agent's compaction prompt (earlier ones are history). */
function asksForSummary(conversation: { role: 'user' | 'model'; text: string }[]): boolean {
  for (let index = conversation.length - 1; index >= 0; index--) {
    const entry = conversation[index];
    if (entry?.role === 'user') return COMPACTION_PROMPTS.some((pattern) => pattern.test(entry.text));
  }
  return false;
}

function summaryFor(family: ApiFamily): string {
  if (family === 'anthropic') return `<analysis>Nothing more to add.</analysis>\n<summary>${COMPACTION_SUMMARY}</summary>`;
  if (family === 'gemini') return `<state_snapshot>\n<overall_goal>${COMPACTION_SUMMARY}</overall_goal>\n</state_snapshot>`;
  return COMPACTION_SUMMARY;
}

function nextTurn(script: ScriptStep[], conversation: { role: 'user' | 'model'; text: string }[], compacted: boolean): ModelTurn {
  // The newest user prompt that a step names (tool results are not prompts: codecs drop them).
  for (let index = conversation.length - 1; index >= 0; index--) {
    const entry = conversation[index];
    if (entry?.role !== 'user') continue;
    // opencode sends `run`'s message in quotes.
    const lines = entry.text.split('\n').map((line) => line.replace(/^[\s"']+/, ''));
    const step = script.find((candidate) => lines.some((line) => line.startsWith(candidate.when)));
    if (!step) continue;
    // The step's own turn was compacted (the summary came after its prompt, or quotes it, as Copilot
    // CLI's does): it goes on from the summary. A prompt after the summary is a new turn, a second
    // compaction's included.
    const summaryAt = compacted ? conversation.map((earlier) => earlier.text.includes(COMPACTION_SUMMARY)).lastIndexOf(true) : -1;
    if (step.afterCompaction && summaryAt >= index) {
      const taken = conversation.slice(summaryAt + 1).filter((later) => later.role === 'model').length;
      return step.afterCompaction[taken] ?? { text: 'Done.' };
    }
    const taken = conversation.slice(index + 1).filter((later) => later.role === 'model').length;
    return step.turns[taken] ?? { text: 'Done.' };
  }
  return { text: 'OK.' };
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const { event, data } of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  res.end();
}

function json(res: http.ServerResponse, data: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(data));
}

let callCounter = 0;
const callId = (prefix: string) => `${prefix}_standin_${++callCounter}`;

/** A tool the agent offered: its name and the JSON schema of its input. */
interface OfferedTool {
  name: string;
  schema: Record<string, unknown>;
}

const SHELL_TOOL = /^(bash|shell|run_shell_command|exec_command|shell_command|run_in_terminal)$/i;
const WRITE_TOOL = /^(write|create|write_file|create_file)$/i;

/**
 * The agent's own tool call for a scripted turn: its shell tool for a command, its file-writing tool
 * for a file (else a shell command that writes it), with the arguments named as its schema names
 * them. Every agent names them its own way (Claude Code Bash/Write, Codex exec_command, Gemini CLI
 * run_shell_command/write_file, Copilot CLI bash/create, …).
 */
function toolCallFor(turn: ModelTurn, tools: OfferedTool[]): { name: string; input: Record<string, unknown> } {
  if ('write' in turn) {
    const writer = tools.find((tool) => WRITE_TOOL.test(tool.name));
    if (writer) {
      const properties = Object.keys((writer.schema.properties ?? {}) as Record<string, unknown>);
      const pathKey = properties.find((key) => /^(file_?path|path|filePath|absolute_path)$/i.test(key)) ?? 'file_path';
      const contentKey = properties.find((key) => /^(content|file_text|text|contents)$/i.test(key)) ?? 'content';
      return { name: writer.name, input: { [pathKey]: turn.write.path, [contentKey]: turn.write.content } };
    }
  }
  const command = 'shell' in turn ? turn.shell : 'write' in turn ? `cat > '${turn.write.path}' <<'STANDIN_EOF'\n${turn.write.content}STANDIN_EOF` : '';
  const shell = tools.find((tool) => SHELL_TOOL.test(tool.name));
  if (!shell) throw new Error(`the agent offered no shell tool (${tools.map((tool) => tool.name).join(', ')})`);
  const properties = (shell.schema.properties ?? {}) as Record<string, { type?: string }>;
  const commandKey = Object.keys(properties).find((key) => /^(command|cmd)$/i.test(key)) ?? 'command';
  const input: Record<string, unknown> = { [commandKey]: properties[commandKey]?.type === 'array' ? ['bash', '-lc', command] : command };
  const required = Array.isArray(shell.schema.required) ? (shell.schema.required as string[]) : [];
  if ('description' in properties || required.includes('description')) input.description = 'Scripted command';
  return { name: shell.name, input };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages: POST /v1/messages (stream: true → SSE), /v1/messages/count_tokens.

function anthropicText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is { type: string; text: string } => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
}

function anthropicTools(body: Record<string, unknown>): OfferedTool[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string; input_schema?: Record<string, unknown> }[]) : [];
  return tools.map((tool) => ({ name: String(tool.name ?? ''), schema: tool.input_schema ?? {} }));
}

const anthropic: FamilyCodec = {
  isConversation: (path) => /\/v1\/messages$/.test(path),
  // A request that offers no tools is no step of the agent's loop (opencode's title, for one).
  side: (body) => (Array.isArray(body.tools) && body.tools.length > 0 ? undefined : 'Stand-in title'),
  streaming: (_path, body) => body.stream === true,
  conversation(body) {
    const messages = Array.isArray(body.messages) ? (body.messages as { role: string; content: unknown }[]) : [];
    const out: { role: 'user' | 'model'; text: string }[] = [];
    for (const message of messages) {
      if (message.role === 'assistant') out.push({ role: 'model', text: anthropicText(message.content) });
      else if (message.role === 'user') {
        const text = anthropicText(message.content);
        // A message of tool results alone is the agent's, not a prompt.
        if (text !== '') out.push({ role: 'user', text });
      }
    }
    return out;
  },
  reply(res, turn, stream, body) {
    const model = typeof body.model === 'string' ? body.model : 'claude-standin';
    const block: Record<string, unknown> =
      'text' in turn
        ? { type: 'text', text: turn.text }
        : { type: 'tool_use', id: callId('toolu'), ...toolCallFor(turn, anthropicTools(body)) };
    const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: turn.tokens ?? 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const id = callId('msg');
    if (!stream) {
      json(res, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stopReason, stop_sequence: null, usage });
      return;
    }
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    const delta = block.type === 'text' ? { type: 'text_delta', text: block.text } : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    sse(res, [
      { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  },
  other(res, path) {
    if (path.endsWith('/count_tokens')) {
      json(res, { input_tokens: 100 });
      return true;
    }
    return false;
  },
};

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: POST /v1/responses (stream: true → SSE of response.* events).

function responsesText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The tool names the agent offered, so a shell call uses the agent's own shell tool. */
function offeredTools(body: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return new Map(tools.map((tool) => [String(tool.name ?? tool.type), tool]));
}

const openai: FamilyCodec = {
  isConversation: (path) => /\/responses$/.test(path),
  streaming: (_path, body) => body.stream === true,
  conversation(body) {
    const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const out: { role: 'user' | 'model'; text: string }[] = [];
    for (const item of input) {
      if (item.type === 'message' || (item.type === undefined && item.role)) {
        if (item.role === 'user') out.push({ role: 'user', text: responsesText(item.content) });
        else if (item.role === 'assistant') out.push({ role: 'model', text: responsesText(item.content) });
      } else if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'local_shell_call') {
        out.push({ role: 'model', text: '' });
      }
    }
    return out;
  },
  reply(res, turn, stream, body) {
    const tools = offeredTools(body);
    const id = callId('resp');
    let item: Record<string, unknown>;
    if ('text' in turn) {
      item = { type: 'message', id: callId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    } else {
      if ('write' in turn && tools.has('apply_patch') && tools.get('apply_patch')?.type === 'custom') {
        const patch = `*** Begin Patch\n*** Add File: ${turn.write.path}\n${turn.write.content.replace(/\n$/, '').split('\n').map((line) => `+${line}`).join('\n')}\n*** End Patch\n`;
        item = { type: 'custom_tool_call', id: callId('ctc'), call_id: callId('call'), name: 'apply_patch', input: patch, status: 'completed' };
      } else {
        const functions = [...tools.values()].filter((tool) => tool.type === 'function').map((tool) => ({ name: String(tool.name), schema: (tool.parameters ?? {}) as Record<string, unknown> }));
        const call = toolCallFor(turn, functions);
        item = { type: 'function_call', id: callId('fc'), call_id: callId('call'), name: call.name, arguments: JSON.stringify(call.input), status: 'completed' };
      }
    }
    const inputTokens = turn.tokens ?? 100;
    const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + 20 };
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model: body.model, output: [item], usage };
    if (!stream) {
      json(res, response);
      return;
    }
    sse(res, [
      { event: 'response.created', data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } } },
      { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item } },
      ...(item.type === 'message' ? [{ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: (turn as { text: string }).text } }] : []),
      { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
      { event: 'response.completed', data: { type: 'response.completed', response } },
    ]);
  },
  other(res, path) {
    if (path.endsWith('/models')) {
      json(res, { object: 'list', data: [], models: [] });
      return true;
    }
    return false;
  },
};

// ---------------------------------------------------------------------------------------------
// Gemini: POST /v1beta/models/<model>:generateContent | :streamGenerateContent (?alt=sse),
// :countTokens.

function geminiText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .filter((part): part is { text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** A value of a JSON schema's shape (Gemini's OBJECT/STRING/… or JSON Schema's lower-case types). */
function valueFor(schema: Record<string, unknown> | undefined): unknown {
  const type = String(schema?.type ?? 'object').toLowerCase();
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum[0];
  if (type === 'object') {
    const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valueFor(property)]));
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  return 'stand-in';
}

function geminiTools(body: Record<string, unknown>): OfferedTool[] {
  const groups = Array.isArray(body.tools) ? (body.tools as { functionDeclarations?: { name?: string; parameters?: Record<string, unknown>; parametersJsonSchema?: Record<string, unknown> }[] }[]) : [];
  return groups.flatMap((group) => group.functionDeclarations ?? []).map((tool) => ({ name: String(tool.name ?? ''), schema: tool.parametersJsonSchema ?? tool.parameters ?? {} }));
}

const gemini: FamilyCodec = {
  isConversation: (path) => /:(stream)?generateContent$/i.test(path),
  side(body) {
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    const schema = (config.responseJsonSchema ?? config.responseSchema) as Record<string, unknown> | undefined;
    return schema ? JSON.stringify(valueFor(schema)) : undefined;
  },
  streaming: (path) => /:streamGenerateContent$/i.test(path),
  conversation(body) {
    const contents = Array.isArray(body.contents) ? (body.contents as { role?: string; parts?: unknown[] }[]) : [];
    const out: { role: 'user' | 'model'; text: string }[] = [];
    for (const content of contents) {
      if (content.role === 'model') out.push({ role: 'model', text: geminiText(content.parts) });
      else {
        const text = geminiText(content.parts);
        if (text !== '') out.push({ role: 'user', text });
      }
    }
    return out;
  },
  reply(res, turn, stream, body) {
    const part =
      'text' in turn
        ? { text: turn.text }
        : (() => {
            const call = toolCallFor(turn, geminiTools(body));
            return { functionCall: { id: callId('gfc'), name: call.name, args: call.input } };
          })();
    const response = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: turn.tokens ?? 100, candidatesTokenCount: 20, totalTokenCount: (turn.tokens ?? 100) + 20 },
      modelVersion: 'gemini-standin',
    };
    if (!stream) {
      json(res, response);
      return;
    }
    sse(res, [{ data: response }]);
  },
  other(res, path) {
    if (/:countTokens$/i.test(path)) {
      json(res, { totalTokens: 100 });
      return true;
    }
    return false;
  },
};

const CODECS: Record<ApiFamily, FamilyCodec> = { anthropic, openai, gemini };
