import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockDigest, withBlockMark } from '../../../src/core/blockMark';
import { replayGeminiChat } from '../../../src/core/geminiChat';
import { GEMINI_COMPRESSION_ACK, geminiHistory } from '../../../src/core/geminiHistory';
import { transcriptRecords } from '../../../src/core/transcriptLines';
import { geminiEvents } from '../../../src/core/transcriptGemini';

// Records as Gemini CLI 0.61 writes them (the real-agent suite's chat files; see
// test/fixtures/transcripts/gemini for a whole one).
const meta = { sessionId: 'g1', projectHash: 'p', startTime: '2026-11-26T10:00:00.000Z', lastUpdated: '2026-11-26T10:00:00.000Z', kind: 'main' };
const sessionContext = { id: 'ctx', timestamp: '2026-11-26T10:00:00.000Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] };
const user = (id: string, ...texts: string[]) => ({ id, timestamp: '2026-11-26T10:00:01.000Z', type: 'user', content: texts.map((text) => ({ text })) });
const model = (id: string, text: string) => ({ id, timestamp: '2026-11-26T10:00:02.000Z', type: 'gemini', content: text, tokens: { input: 100, output: 20, total: 120 }, model: 'gemini' });
const toolResult = (id: string, output: string) => ({ id, timestamp: '2026-11-26T10:00:03.000Z', type: 'user', content: [{ functionResponse: { id: 'call-1', name: 'run_shell_command', response: { output } } }] });
const ack = (id: string) => ({ id, timestamp: '2026-11-26T10:00:04.000Z', type: 'gemini', content: [{ text: GEMINI_COMPRESSION_ACK }] });
const summary = (id: string) => user(id, '<state_snapshot>\n<overall_goal>parse the config</overall_goal>\n</state_snapshot>');
const lines = (...records: object[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
const BLOCK = withBlockMark('## Resuming: demo-1 — Parse widget config\n');
const BLOCK_DIGEST = blockDigest('## Resuming: demo-1 — Parse widget config\n');

describe('geminiHistory: what a Gemini CLI session sends, from its chat file', () => {
  it('a new session: its turns, no compression, no block until a hook gave one (inside the prompt or a tool result)', () => {
    const start = [meta, { $set: { messages: [sessionContext] } }, user('u1', 'STEP1 write the notes'), model('m1', 'Done.')];
    expect(geminiHistory(lines(...start))).toEqual({ turns: 3, compression: undefined, heldBlock: undefined, whole: true });
    expect(geminiHistory(lines(...start, user('u2', 'go on', `<hook_context>${BLOCK}</hook_context>`))).heldBlock).toBe(BLOCK_DIGEST);
    expect(geminiHistory(lines(...start, toolResult('r1', `ok\n\n<hook_context>${BLOCK}</hook_context>`))).heldBlock).toBe(BLOCK_DIGEST);
    // The newest block in the history's order names what the session holds: a correction after the block, until a rewind cuts it.
    const CORRECTION = "## Correction: this session's issue is now demo-8";
    const corrected = [...start, user('u2', 'go on', `<hook_context>${BLOCK}</hook_context>`), user('u3', 'and on', `<hook_context>${withBlockMark(CORRECTION)}</hook_context>`)];
    expect(geminiHistory(lines(...corrected)).heldBlock).toBe(blockDigest(CORRECTION));
    expect(geminiHistory(lines(...corrected, { $rewindTo: 'u3' })).heldBlock).toBe(BLOCK_DIGEST);
    // The block's words without its mark are not a block of ours.
    expect(geminiHistory(lines(...start, user('u2', '## Resuming: demo-1'))).heldBlock).toBeUndefined();
  });

  it('a compression: the history is replaced whole, and the summary turn before the acknowledgement names it; what it dropped no longer counts', () => {
    const before = [meta, { $set: { messages: [sessionContext] } }, user('u1', 'STEP1', `<hook_context>${BLOCK}</hook_context>`), model('m1', 'Done.'), user('u2', 'COMPACT-NOW')];
    expect(geminiHistory(lines(...before)).heldBlock).toBe(BLOCK_DIGEST);
    const compressed = [...before, { $set: { sessionId: 'g1' } }, { $set: { messages: [sessionContext, summary('s1'), ack('a1'), user('k1', 'COMPACT-NOW')] } }];
    expect(geminiHistory(lines(...compressed))).toEqual({ turns: 4, compression: 's1', heldBlock: undefined, whole: true });
    // Later turns and a resume (the same messages, the same ids) keep naming the same compression.
    const resumed = [...compressed, model('m2', 'Compacted.'), meta, { $set: { messages: [sessionContext] } }, { $set: { messages: [sessionContext, summary('s1'), ack('a1'), user('k1', 'COMPACT-NOW'), model('m2', 'Compacted.')] } }];
    expect(geminiHistory(lines(...resumed))).toEqual({ turns: 5, compression: 's1', heldBlock: undefined, whole: true });
    // A second compression writes new ids, even when the model wrote the same summary.
    const again = [...resumed, user('u3', 'COMPACT-NOW'), { $set: { messages: [sessionContext, summary('s2'), ack('a2'), user('k2', 'COMPACT-NOW')] } }];
    expect(geminiHistory(lines(...again)).compression).toBe('s2');
  });

  it('a message written again under its id replaces it in place; a rewind cuts the history there', () => {
    const written = [meta, { $set: { messages: [sessionContext] } }, model('m1', ''), { ...model('m1', ''), toolCalls: [{ id: 'call-1', name: 'run_shell_command' }] }, toolResult('r1', 'ok')];
    expect(geminiHistory(lines(...written)).turns).toBe(3);
    const rewound = [meta, { $set: { messages: [sessionContext] } }, user('u1', 'one', `<hook_context>${BLOCK}</hook_context>`), model('m1', 'Done.'), { $rewindTo: 'u1' }];
    expect(geminiHistory(lines(...rewound))).toEqual({ turns: 1, compression: undefined, heldBlock: undefined, whole: true });
  });

  it('the acknowledgement counts only right after a user turn, and only as the model says it', () => {
    expect(geminiHistory(lines({ $set: { messages: [sessionContext, model('m0', 'Hi.'), ack('a1')] } })).compression).toBeUndefined();
    expect(geminiHistory(lines({ $set: { messages: [sessionContext, summary('s1'), user('a1', GEMINI_COMPRESSION_ACK)] } })).compression).toBeUndefined();
    expect(geminiHistory(lines({ $set: { messages: [summary('s1'), ack('a1')] } })).compression).toBe('s1');
  });

  it("reads the end of a file (a cut first line), an older session's single document, and nothing usable as an empty history", () => {
    const text = lines(meta, { $set: { messages: [sessionContext, summary('s1'), ack('a1')] } }, user('u2', 'go', `<hook_context>${BLOCK}</hook_context>`));
    // The tail starts inside the `$set` record: only the turn after it is read.
    expect(geminiHistory(text.slice(text.indexOf('\n') + 5))).toEqual({ turns: 1, compression: undefined, heldBlock: BLOCK_DIGEST, whole: false });
    expect(geminiHistory(JSON.stringify({ sessionId: 'g0', messages: [sessionContext, summary('s1'), ack('a1')] }, null, 2))).toEqual({ turns: 3, compression: 's1', heldBlock: undefined, whole: true });
    for (const garbage of ['', 'not json', '[1,2]', 'null\n{"$set":{"messages":"no"}}', '{"id":1,"type":"user"}']) {
      expect(geminiHistory(garbage)).toEqual({ turns: 0, compression: undefined, heldBlock: undefined, whole: false });
    }
  });

  it('a real Gemini CLI 0.61 session that compressed inside its COMPACT-NOW turn', () => {
    const text = readFileSync(path.join(__dirname, '../../fixtures/transcripts/gemini/nested-keys.jsonl'), 'utf8');
    const history = geminiHistory(text);
    expect(history.compression).toMatch(/^[0-9a-f-]{36}$/);
    const records = text.trim().split('\n').map((line) => JSON.parse(line) as { $set?: { messages?: { id: string; content: unknown }[] } });
    const compressed = [...records].reverse().find((record) => record.$set?.messages?.some((message) => JSON.stringify(message.content).includes('<state_snapshot>')));
    expect(compressed?.$set?.messages?.find((message) => message.id === history.compression)?.content).toEqual([{ text: expect.stringMatching(/^<state_snapshot>/) }]);
  });
});

describe("one reader of Gemini CLI's chat file: the hooks' history and the session's thread replay it alike", () => {
  it('a message written again keeps its place, a rewind cuts it and what follows, in both', () => {
    const text = lines(meta, user('u1', 'first'), model('m1', 'draft'), user('u2', 'second'), model('m1', 'final'), { $rewindTo: 'u2' }, user('u3', 'third'));
    const history = replayGeminiChat(transcriptRecords(text, true).records, { message: (record, key) => `${key}:${JSON.stringify(record.content)}`, set: () => undefined });
    expect([...history.entries.keys()]).toEqual(['u1', 'm1', 'u3']);
    expect(geminiHistory(text).turns).toBe(3);
    const thread = geminiEvents(transcriptRecords(text, true).records);
    expect(thread.map((event) => (event.type === 'user' || event.type === 'assistant' ? event.text : event.type))).toEqual(['first', 'final', 'third']);
  });

  it('an older whole-document file is the whole history for both', () => {
    const document = `${JSON.stringify({ sessionId: 'g1', messages: [user('u1', 'first'), model('m1', 'answer')] }, null, 2)}\n`;
    expect(geminiHistory(document)).toMatchObject({ turns: 2, whole: true });
    expect(geminiEvents(transcriptRecords(document, true).records).map((event) => event.type)).toEqual(['user', 'assistant']);
  });
});
