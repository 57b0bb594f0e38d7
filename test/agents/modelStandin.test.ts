// The model stand-in on its own (no agent): the scripted turns, each family's shape, how requests
// are told apart, and the refused egress. The agent scenarios rely on all of it.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPACTION_SUMMARY, startModelStandin, type ModelStandin, type ScriptStep } from './modelStandin';

const SCRIPT: ScriptStep[] = [
  { when: 'STEP1', turns: [{ shell: 'ls' }, { write: { path: 'a.txt', content: 'a\n' } }, { text: 'Done one.' }] },
  { when: 'COMPACT-NOW', turns: [{ shell: 'true', tokens: 900_000 }, { text: 'Filled.' }], afterCompaction: [{ text: 'After.' }] },
];

let standin: ModelStandin | undefined;
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

async function post(path: string, body: unknown): Promise<string> {
  const response = await fetch(`${standin?.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.text();
}

/** The data of each server-sent event, parsed. */
const events = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

const ANTHROPIC_TOOLS = [
  { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] } },
  { name: 'Write', input_schema: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } } },
];

describe('Anthropic Messages', () => {
  it('answers each step of a prompt in turn, with the tools the agent offered, named by their schema', async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    // In quotes, as opencode sends its `run` message.
    const user = { role: 'user', content: [{ type: 'text', text: '"STEP1 go"' }] };
    const toolUse = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] });
    const toolResult = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });

    const first = events(await post('/v1/messages', { stream: true, tools: ANTHROPIC_TOOLS, messages: [user] }));
    expect(first.find((event) => event.type === 'content_block_start')?.content_block).toMatchObject({ type: 'tool_use', name: 'Bash' });
    expect(first.find((event) => event.type === 'content_block_delta')?.delta).toMatchObject({ partial_json: JSON.stringify({ command: 'ls', description: 'Scripted command' }) });

    const second = events(await post('/v1/messages', { stream: true, tools: ANTHROPIC_TOOLS, messages: [user, toolUse('t1'), toolResult('t1')] }));
    expect(second.find((event) => event.type === 'content_block_delta')?.delta).toMatchObject({ partial_json: JSON.stringify({ file_path: 'a.txt', content: 'a\n' }) });

    const third = JSON.parse(await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [user, toolUse('t1'), toolResult('t1'), toolUse('t2'), toolResult('t2')] })) as { content: unknown[]; stop_reason: string };
    expect(third).toMatchObject({ content: [{ type: 'text', text: 'Done one.' }], stop_reason: 'end_turn' });
    expect(standin.requests.map((request) => request.kind)).toEqual(['turn', 'turn', 'turn']);
  });

  it('a gated answer waits until the test opens its gate, and an open gate holds nothing more', async () => {
    standin = await startModelStandin('anthropic', [{ when: 'HOLD', turns: [{ text: 'Released.', gate: 'hold' }] }]);
    let answered = false;
    const held = post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'HOLD on' }] }).then((text) => ((answered = true), text));
    await standin.reached('hold');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    standin.open('hold');
    expect(JSON.parse(await held)).toMatchObject({ content: [{ type: 'text', text: 'Released.' }] });
    expect(JSON.parse(await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'HOLD on' }] }))).toMatchObject({ content: [{ type: 'text', text: 'Released.' }] });
  });

  it('a step answers the prompt that starts with its word, not a later hook context that quotes it', async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    const quoted = { role: 'user', content: [{ type: 'text', text: '# Beads Workflow Context\n- Request: STEP1 go' }, { type: 'text', text: 'COMPACT-NOW fill' }] };
    const answer = JSON.parse(await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'STEP1 go' }, { role: 'assistant', content: 'Done one.' }, quoted] })) as { content: { name?: string; input?: unknown }[] };
    expect(answer.content[0]).toMatchObject({ name: 'Bash', input: { command: 'true' } });
  });

  it('a compaction is the summary prompt in the last user message; the same words earlier are history', async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    const ask = { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' };
    const summary = JSON.parse(await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'STEP1 go' }, ask] })) as { content: { text: string }[] };
    expect(summary.content[0]?.text).toContain(COMPACTION_SUMMARY);
    await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages: [ask, { role: 'assistant', content: 'x' }, { role: 'user', content: 'go on' }] });
    expect(standin.requests.map((request) => request.kind)).toEqual(['compaction', 'turn']);
  });

  it('a request that offers no tools is a side request (a title), not a turn', async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    await post('/v1/messages', { messages: [{ role: 'user', content: 'STEP1 go' }] });
    expect(standin.requests.map((request) => request.kind)).toEqual(['side']);
    expect(standin.conversationRequests()).toEqual([]);
  });
});

describe('OpenAI Responses', () => {
  it('calls the shell tool the agent offered and reports the scripted context size; after the summary the step goes on from afterCompaction', async () => {
    standin = await startModelStandin('openai', SCRIPT);
    const tools = [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }];
    const prompt = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'COMPACT-NOW fill' }] };
    const stream = events(await post('/v1/responses', { stream: true, tools, input: [prompt] }));
    expect(stream.map((event) => event.type)).toEqual(['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed']);
    expect(stream[2]?.item).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'true' }) });
    expect((stream[3]?.response as { usage: { input_tokens: number } }).usage.input_tokens).toBe(900_000);

    const compacted = [prompt, { type: 'message', role: 'user', content: [{ type: 'input_text', text: COMPACTION_SUMMARY }] }];
    const after = JSON.parse(await post('/v1/responses', { tools, input: compacted })) as { output: { content: { text: string }[] }[] };
    expect(after.output[0]?.content[0]?.text).toBe('After.');

    // The same prompt again after the summary is a new turn (a second compaction): it starts over.
    const again = [...compacted, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'After.' }] }, prompt];
    const second = events(await post('/v1/responses', { stream: true, tools, input: again }));
    expect(second[2]?.item).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'true' }) });
    expect((second[3]?.response as { usage: { input_tokens: number } }).usage.input_tokens).toBe(900_000);
  });
});

describe('a compaction and the one after it (opencode\'s prompts, Anthropic Messages)', () => {
  it("tells opencode's summary requests, first and combining, and starts a step anew when its prompt comes after the summary", async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    const text = (value: string) => [{ type: 'text', text: value }];
    const answer = async (messages: unknown[]) => {
      const body = JSON.parse(await post('/v1/messages', { tools: ANTHROPIC_TOOLS, messages })) as { content: { type: string; text?: string; name?: string }[]; usage: { input_tokens: number } };
      return { block: body.content[0], tokens: body.usage.input_tokens };
    };
    const first = 'Here is the conversation so far:\n\n<conversation>\n[User]: COMPACT-NOW fill\n</conversation>\n\nCreate a new anchored summary from the conversation history in the <conversation> tags above so another coding agent can continue the work.';
    const combining = 'Here is the summary of the conversation before the <conversation> above:\n\n<prior-summary>\nold\n</prior-summary>\n\nThe <prior-summary> summarizes everything that happened before the <conversation>. Construct a new summary that combines both.';
    for (const prompt of [first, combining]) expect((await answer([{ role: 'user', content: text(prompt) }])).block?.text).toContain(COMPACTION_SUMMARY);
    expect(standin.requests.map((request) => request.kind)).toEqual(['compaction', 'compaction']);

    const summary = [{ role: 'user', content: text('What did we do so far?') }, { role: 'assistant', content: text(COMPACTION_SUMMARY) }];
    // The prompt the compaction interrupted, before the summary: its step goes on from afterCompaction.
    expect((await answer([{ role: 'user', content: text('COMPACT-NOW fill') }, ...summary, { role: 'user', content: text('Continue') }])).block?.text).toBe('After.');
    // The same prompt in a later turn, after the summary: the step anew, so a second compaction comes.
    const again = await answer([...summary, { role: 'user', content: text('COMPACT-NOW fill') }]);
    expect(again).toMatchObject({ block: { type: 'tool_use', name: 'Bash' }, tokens: 900_000 });
  });
});

describe('Gemini', () => {
  it('answers a request with a response schema by the schema (a side request), and a turn with the function the agent declared', async () => {
    standin = await startModelStandin('gemini', SCRIPT);
    const routed = JSON.parse(
      await post('/v1beta/models/m:generateContent', {
        contents: [{ role: 'user', parts: [{ text: 'STEP1 go' }] }],
        generationConfig: { responseJsonSchema: { type: 'OBJECT', properties: { reasoning: { type: 'STRING' }, score: { type: 'INTEGER' } } } },
      }),
    ) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(routed.candidates[0]?.content.parts[0]?.text ?? '')).toEqual({ reasoning: 'stand-in', score: 1 });

    const tools = [{ functionDeclarations: [{ name: 'run_shell_command', parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } } } }] }];
    const turn = events(await post('/v1beta/models/m:streamGenerateContent', { tools, contents: [{ role: 'user', parts: [{ text: 'STEP1 go' }] }] }));
    const candidates = turn[0]?.candidates as { content: { parts: { functionCall: unknown }[] } }[];
    expect(candidates[0]?.content.parts[0]?.functionCall).toMatchObject({ name: 'run_shell_command', args: { command: 'ls' } });
    expect(standin.requests.map((request) => request.kind)).toEqual(['side', 'turn']);
  });
});

describe('egress', () => {
  it('refuses and records a CONNECT to another host, and a proxied plain-HTTP request', async () => {
    standin = await startModelStandin('anthropic', SCRIPT);
    const { port } = new URL(standin.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http.request({ host: '127.0.0.1', port, method: 'CONNECT', path: 'example.com:443' }).on('connect', (response, socket) => {
        socket.destroy();
        resolve(response.statusCode);
      }).on('error', reject).end();
    });
    expect(status).toBe(403);
    const proxied = await new Promise<number | undefined>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: 'http://example.com/telemetry' }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on('error', reject);
    });
    expect(proxied).toBe(403);
    expect(standin.egress).toEqual(['CONNECT example.com:443', 'http://example.com/telemetry']);
  });
});
