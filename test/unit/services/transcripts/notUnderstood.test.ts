// A transcript the readers cannot make out (a renamed field, entry types they do not know, a
// damaged file) gives no silent empty thread: the thread says "thread unavailable: <why>", which
// the pre-compaction checkpoint carries, and the hook's stderr says the same (issue 26, item 8).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TranscriptAgent } from '../../../../src/core/agentEvents';
import { threadFactLines } from '../../../../src/core/threadFacts';
import { readSessionThread } from '../../../../src/services/transcripts/sessionThread';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-not-understood-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures', 'transcripts');

/** Each agent's format with its message field renamed or its entry types unknown: a newer format, say. */
const UNKNOWN_SHAPES: Record<TranscriptAgent, unknown[]> = {
  claude: [
    { type: 'user', sessionId: 's-1', uuid: 'u-1', timestamp: '2026-11-01T10:00:00Z', msg: { role: 'user', content: 'Fix the parser' } },
    { type: 'assistant_turn', sessionId: 's-1', uuid: 'u-2', timestamp: '2026-11-01T10:00:05Z', msg: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'npm test' } }] } },
  ],
  codex: [
    { timestamp: '2026-11-01T10:00:00Z', type: 'session_meta', payload: { id: 's-1' } },
    { timestamp: '2026-11-01T10:00:01Z', type: 'turn_item', payload: { kind: 'user_text', body: 'Fix the parser' } },
  ],
  gemini: [
    { sessionId: 's-1', projectHash: 'h' },
    { id: 'm-1', timestamp: '2026-11-01T10:00:00Z', type: 'human', text: 'Fix the parser' },
  ],
  copilot: [
    { type: 'session.start', data: { sessionId: 's-1' }, timestamp: '2026-11-01T10:00:00Z' },
    { type: 'user.said', data: { words: 'Fix the parser' }, timestamp: '2026-11-01T10:00:01Z' },
  ],
  opencode: [{ info: { id: 'msg-1', sessionID: 's-1', role: 'human', time: { created: 1 } }, parts: [{ id: 'p-1', type: 'words', body: 'Fix the parser' }] }],
};

async function threadOf(agent: TranscriptAgent, text: string) {
  const file = path.join(scratch, `${agent}-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  const notes: string[] = [];
  const thread = await readSessionThread({ transcript: file, agent, session: 's-1', note: (line) => notes.push(line) });
  return { thread, notes, file };
}

describe('a transcript that was not understood', () => {
  it.each(Object.keys(UNKNOWN_SHAPES) as TranscriptAgent[])('%s: says "thread unavailable" and why, in the checkpoint lines and on stderr, with no path', async (agent) => {
    const { thread, notes, file } = await threadOf(agent, `${UNKNOWN_SHAPES[agent].map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(thread?.unavailable).toMatch(/reader found no request and no tool call in \d+ entr(?:y|ies)\b/);
    const lines = threadFactLines(thread!);
    expect(lines).toContainEqual(expect.stringMatching(/^- Thread unavailable: the .+ reader found no request and no tool call/));
    expect(notes).toContainEqual(expect.stringMatching(/^thread unavailable: /));
    for (const text of [...lines, ...notes]) {
      expect(text).not.toContain(scratch);
      expect(text).not.toContain(path.basename(file));
      expect(text).not.toContain('Fix the parser');
    }
  });

  it('a damaged file (no line is JSON) is said so', async () => {
    const { thread, notes } = await threadOf('claude', '\u0000\u0001garbage{{{\nnot json either\n');
    expect(thread?.unavailable).toBe("none of the transcript's 2 lines is JSON (a damaged file?)");
    expect(notes).toEqual(["thread unavailable: none of the transcript's 2 lines is JSON (a damaged file?)"]);
  });

  it.each(['claude', 'codex', 'gemini', 'copilot', 'opencode'] as const)('%s: a transcript it reads says nothing of the kind', async (agent) => {
    const notes: string[] = [];
    const thread = await readSessionThread({ transcript: path.join(FIXTURES, agent, 'nested-keys.jsonl'), agent, note: (line) => notes.push(line) });
    expect(thread?.requests.length).toBeGreaterThan(0);
    expect(thread?.unavailable).toBeUndefined();
    expect(notes.join('\n')).not.toMatch(/thread unavailable/);
  });

  it('an empty or missing file is no transcript to understand: no line', async () => {
    const { thread, notes } = await threadOf('codex', '');
    expect(thread).toBeUndefined();
    expect(notes.join('\n')).not.toMatch(/thread unavailable/);
  });
});
