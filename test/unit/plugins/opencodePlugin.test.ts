// The opencode plugin's source (src/plugins/opencode.js) as an install writes it, loaded as opencode
// loads it, with its launcher pointed at a recorder instead of our command line: what it sends to
// `beads-recovery hook opencode <event>` for each of opencode's hooks, the transcript it writes
// for the hook, and what it does with the answer.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCODE_PLUGIN_MARKER, opencodePluginText, readOpencodePlugin } from '../../../src/core/opencodePlugin';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-opencode-plugin-'));
const LOG = path.join(scratch, 'hook-runs.jsonl');
// The user's private state folder as our command line names it (src/io/privateFolder.ts), under the test's temp folder.
const TRANSCRIPTS = path.join(scratch, process.platform === 'win32' ? 'beads-recovery' : `beads-recovery-${process.getuid?.() ?? 'user'}`, 'transcripts');
// Our command line's stand-in: logs its arguments, its stdin and the transcript that stdin names, and answers a context naming the event.
const RECORDER = `const fs = require('node:fs');
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const sent = JSON.parse(input);
  const transcript = sent.transcript_path ? fs.readFileSync(sent.transcript_path, 'utf8') : undefined;
  fs.appendFileSync(${JSON.stringify(LOG)}, JSON.stringify({ args: process.argv.slice(2), sent, transcript }) + '\\n');
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { additionalContext: '## Resuming: demo-8 (' + process.argv[4] + ')' } }));
});
`;

interface HookRun {
  args: string[];
  sent: Record<string, unknown>;
  transcript?: string;
}
const runs = (): HookRun[] => readFileSync(LOG, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as HookRun);

type Hook = (input: Record<string, unknown>, output: Record<string, unknown>) => Promise<void>;

const message = (id: string, role: string, parts: Record<string, unknown>[], info: Record<string, unknown> = {}) => ({ info: { id, sessionID: 'ses_1', role, ...info }, parts });
const MESSAGES = [
  message('msg_1', 'user', [{ type: 'text', text: 'claim it and fix the parser' }], { summary: { diffs: [{ file: 'parser.py', patch: 'the whole diff' }] } }),
  message('msg_2', 'assistant', [
    { type: 'step-start', snapshot: 'abc' },
    { type: 'reasoning', text: 'thinking' },
    { type: 'tool', callID: 'c1', tool: 'bash', state: { status: 'completed', input: { command: 'br update demo-8 --claim' }, output: 'ok', metadata: { exit: 0 } } },
    { type: 'tool', callID: 'c2', tool: 'bash', state: { status: 'completed', input: { command: 'pytest' }, output: `${'x'.repeat(20_000)}\n1 failed, 9 passed`, metadata: { exit: 1 } } },
    { type: 'patch', hash: 'abc', files: ['parser.py'] },
  ], { parentID: 'msg_1' }),
];

describe('the opencode plugin, from its source file', () => {
  let hooks: Record<string, Hook>;
  const prompts: unknown[] = [];
  // The SDK client the plugin is handed: one test swaps what its session's messages are.
  const pluginClient: { session: { messages: (request: { path: { id: string } }) => Promise<unknown>; prompt: (request: unknown) => Promise<unknown> } } = {
    session: { messages: () => Promise.resolve({ data: [] }), prompt: () => Promise.resolve({}) },
  };
  const saved = { TMPDIR: process.env.TMPDIR, LOCALAPPDATA: process.env.LOCALAPPDATA };

  beforeAll(async () => {
    writeFileSync(path.join(scratch, 'recorder.cjs'), RECORDER);
    writeFileSync(LOG, '');
    // The plugin writes its transcripts into the temp folder: the test's own.
    process.env.TMPDIR = scratch;
    process.env.LOCALAPPDATA = scratch;
    const text = opencodePluginText({ runtime: process.execPath, script: path.join(scratch, 'recorder.cjs'), electron: false });
    const file = path.join(scratch, 'beads-recovery.mjs');
    writeFileSync(file, text);
    const module = (await import(pathToFileURL(file).href)) as { default: { id: string; server: (input: object) => Promise<Record<string, Hook>> } };
    expect(module.default.id).toBe('beads-recovery');
    const client = pluginClient;
    Object.assign(client, {
      session: {
        messages: ({ path: { id } }: { path: { id: string } }) => Promise.resolve({ data: id === 'ses_empty' ? [] : MESSAGES }),
        prompt: (request: unknown) => (prompts.push(request), Promise.resolve({})),
      },
    });
    hooks = await module.default.server({ client, directory: '/w/app' });
  });

  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is the install text: marked as ours, its launcher on one line, readable back', () => {
    const launcher = { runtime: '/opt/node $1', script: 'C:\\tools\\cli.js', electron: true };
    const text = opencodePluginText(launcher);
    expect(text.startsWith(OPENCODE_PLUGIN_MARKER)).toBe(true);
    expect(readOpencodePlugin(text)).toEqual(launcher);
    // The source's own placeholder launcher is replaced, not kept beside.
    expect(text.match(/^const LAUNCHER = /gm)).toHaveLength(1);
  });

  it("a session's first message: `session.resumed` with its id, folder and transcript; the answer is added to the message, once", async () => {
    const output = { message: {}, parts: [{ type: 'text', text: 'go on' }] };
    await hooks['chat.message']!({ sessionID: 'ses_1' }, output);
    const [run] = runs();
    expect(run!.args).toEqual(['hook', 'opencode', 'session.resumed']);
    expect(run!.sent).toMatchObject({ hook_event_name: 'session.resumed', session_id: 'ses_1', cwd: '/w/app', source: 'resume' });
    expect(run!.sent.transcript_path).toBe(path.join(TRANSCRIPTS, 'opencode-ses_1.jsonl'));
    expect(output.parts[0]!.text).toBe('go on\n\n## Resuming: demo-8 (session.resumed)');
    await hooks['chat.message']!({ sessionID: 'ses_1' }, { message: {}, parts: [{ type: 'text', text: 'again' }] });
    expect(runs()).toHaveLength(1);
  });

  it("a new session's first message: its transcript is the message opencode is about to store, so the hook names it; each run carries its own time", async () => {
    const before = runs().length;
    const incoming = { id: 'msg_new', sessionID: 'ses_empty', role: 'user' };
    const output = { message: incoming, parts: [{ type: 'text', text: 'claim your issue' }] };
    await hooks['chat.message']!({ sessionID: 'ses_empty' }, output);
    // The message opencode stores keeps the user's words alone (the block goes into each request's copy, below).
    expect(output.parts[0]!.text).toBe('claim your issue');
    const [run] = runs().slice(before);
    expect(run!.sent.transcript_path).toBe(path.join(TRANSCRIPTS, 'opencode-ses_empty.jsonl'));
    expect((run!.transcript ?? '').trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([{ info: incoming, parts: [{ type: 'text', text: 'claim your issue' }] }]);
    // A start and a resume a few seconds later are two events, not one start seen twice (src/bin/hook.ts deliveryFor).
    expect(typeof run!.sent.timestamp).toBe('number');
    expect(run!.sent.timestamp).not.toBe(runs()[0]!.sent.timestamp);
  });

  it("a new session's block is not stored in its first message (opencode's title request sends that message whole): it goes into a copy of it in each request's messages", async () => {
    const stored = { info: { id: 'msg_new', sessionID: 'ses_empty', role: 'user' }, parts: [{ type: 'text', text: 'claim your issue' }] };
    const other = { info: { id: 'msg_other', role: 'user' }, parts: [{ type: 'text', text: 'another session' }] };
    // What the title request was handed: the loop's array before the transform.
    const titleSlice = [stored];
    const messages = [stored, other];
    await hooks['experimental.chat.messages.transform']!({}, { messages });
    expect(messages[0]).not.toBe(stored);
    expect(messages[0]!.parts[0]!.text).toBe('claim your issue\n\n## Resuming: demo-8 (session.resumed)');
    expect(messages[1]).toBe(other);
    expect(stored.parts[0]!.text).toBe('claim your issue');
    expect(titleSlice[0]!.parts[0]!.text).toBe('claim your issue');
    // Every request of this process carries it; a compaction ends it (the block after it is the session's one).
    const again = [stored];
    await hooks['experimental.chat.messages.transform']!({}, { messages: again });
    expect(again[0]!.parts[0]!.text).toContain('## Resuming: demo-8');
    await hooks['experimental.session.compacting']!({ sessionID: 'ses_empty' }, { context: [] });
    const after = [stored];
    await hooks['experimental.chat.messages.transform']!({}, { messages: after });
    expect(after[0]).toBe(stored);
  });

  it('the transcript: one message a line, only the parts that tell what the session did, long strings cut, no diffs', () => {
    const lines = (runs()[0]!.transcript ?? '').trim().split('\n').map((line) => JSON.parse(line) as { info: Record<string, unknown>; parts: { type: string; state?: { output: string } }[] });
    expect(lines.map((line) => line.info.id)).toEqual(['msg_1', 'msg_2']);
    expect(lines[0]!.info.summary).toBeUndefined();
    expect(lines[1]!.parts.map((part) => part.type)).toEqual(['tool', 'tool']);
    const output = lines[1]!.parts[1]!.state!.output;
    expect(output.length).toBeLessThan(8_100);
    expect(output.endsWith('1 failed, 9 passed')).toBe(true);
  });

  it('before a compaction: `session.compacting`, and the summary request gets nothing; after it, `session.compacted` and the block as a message of its own', async () => {
    const before = runs().length;
    const output = { context: [] as string[] };
    await hooks['experimental.session.compacting']!({ sessionID: 'ses_1' }, output);
    expect(output).toEqual({ context: [] });
    await hooks['experimental.compaction.autocontinue']!({ sessionID: 'ses_1', overflow: false }, { enabled: true });
    const sent = runs().slice(before);
    expect(sent.map((run) => [run.args[2], run.sent.source])).toEqual([['session.compacting', 'compacting'], ['session.compacted', 'compact']]);
    for (const run of sent) expect(run.transcript).toContain('br update demo-8 --claim');
    expect(prompts).toEqual([{ path: { id: 'ses_1' }, body: { noReply: true, parts: [{ type: 'text', text: '## Resuming: demo-8 (session.compacted)' }] } }]);
  });

  it('a shell command naming br or bd writes the transcript again, without a hook run; other tools do neither', async () => {
    const file = path.join(TRANSCRIPTS, 'opencode-ses_1.jsonl');
    rmSync(file);
    const before = runs().length;
    await hooks['tool.execute.after']!({ tool: 'read', sessionID: 'ses_1', callID: 'c3', args: { filePath: 'br' } }, {});
    await hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c4', args: { command: 'brew list' } }, {});
    expect(() => readFileSync(file)).toThrow();
    await hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c5', args: { command: 'cd sub && br close demo-8 --reason done' } }, {});
    expect(readFileSync(file, 'utf8')).toContain('br update demo-8 --claim');
    expect(runs()).toHaveLength(before);
  });

  it('a br command opencode has not stored as completed yet is written completed, with the result the hook is handed', async () => {
    const running = { type: 'tool', callID: 'c9', tool: 'bash', state: { status: 'running', input: { command: 'br update demo-9 --claim --json' }, time: { start: 5 } } };
    const messages = [...MESSAGES, message('msg_3', 'assistant', [running], { parentID: 'msg_1' })];
    const { session } = pluginClient;
    pluginClient.session = { ...session, messages: () => Promise.resolve({ data: messages }) };
    try {
      await hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c9', args: running.state.input }, { title: 'claim', output: '[{"id":"demo-9"}]', metadata: { exit: 0, output: '[{"id":"demo-9"}]' } });
    } finally {
      pluginClient.session = session;
    }
    const lines = readFileSync(path.join(TRANSCRIPTS, 'opencode-ses_1.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { parts: { callID?: string; state?: Record<string, unknown> }[] });
    const state = lines.at(-1)!.parts[0]!.state!;
    expect(state).toMatchObject({ status: 'completed', input: { command: 'br update demo-9 --claim --json' }, output: '[{"id":"demo-9"}]', metadata: { exit: 0 }, time: { start: 5 } });
    // The parts opencode had stored as completed are as they were.
    expect(lines[1]!.parts[0]!.state).toMatchObject({ status: 'completed', output: 'ok', metadata: { exit: 0 } });
  });

  it('a session id names no other place: its file stays in the sessions folder; a session without messages names none', async () => {
    await hooks['experimental.session.compacting']!({ sessionID: '../../evil' }, { context: [] });
    const run = runs().at(-1)!;
    expect(run.sent.session_id).toBe('../../evil');
    expect(run.sent.transcript_path).toBe(path.join(TRANSCRIPTS, 'opencode-______evil.jsonl'));
    expect(readdirSync(TRANSCRIPTS).sort()).toEqual(['opencode-______evil.jsonl', 'opencode-ses_1.jsonl', 'opencode-ses_empty.jsonl']);
    await hooks['experimental.session.compacting']!({ sessionID: 'ses_empty' }, { context: [] });
    expect(runs().at(-1)!.sent).not.toHaveProperty('transcript_path');
  });

  it.skipIf(process.platform === 'win32')('a transcripts folder open to others is not written into: the hook gets no transcript', async () => {
    chmodSync(TRANSCRIPTS, 0o777);
    try {
      await hooks['experimental.session.compacting']!({ sessionID: 'ses_1' }, { context: [] });
      expect(runs().at(-1)!.sent).not.toHaveProperty('transcript_path');
    } finally {
      chmodSync(TRANSCRIPTS, 0o700);
    }
  });
});
