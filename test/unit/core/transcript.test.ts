// Real transcripts of each supported agent (test/fixtures/transcripts, recorded by the real-agent
// suite: nested keys, a failing test run, an edit, a question, then a compaction) parse into the
// same thread, damaged ones too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_AGENTS, type TranscriptAgent } from '../../../src/core/agentEvents';
import { detectTranscriptAgent, transcriptEvents } from '../../../src/core/transcript';
import { sessionThread } from '../../../src/core/transcriptThread';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'transcripts');
const textOf = (agent: TranscriptAgent) => readFileSync(path.join(FIXTURES, agent, 'nested-keys.jsonl'), 'utf8');
const parse = (text: string) =>
  text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });

/** The session as it stood before the user wrote again after its compaction. */
function beforeResume(agent: TranscriptAgent, text = textOf(agent)) {
  const events = transcriptEvents(agent, parse(text));
  const resume = events.findIndex((event) => event.type === 'user' && event.text.startsWith('RESUME'));
  return resume < 0 ? events : events.slice(0, resume);
}

describe.each(TRANSCRIPT_AGENTS)('a real %s transcript', (agent) => {
  it('is told apart by its lines', () => {
    expect(detectTranscriptAgent(parse(textOf(agent)))).toBe(agent);
  });

  it('gives the request in the user\'s words, the failing run with its counts, first failure and error line, and the edited file', () => {
    const thread = sessionThread(beforeResume(agent));
    expect(thread.requests.join('\n')).toContain('NESTED Make the parser accept nested keys like a.b = 1');
    expect(thread.requests.join('\n')).not.toMatch(/Beads Workflow Context|environment_context|hook_context/);
    const failing = thread.commands.find((run) => run.command === 'python3 test_parser.py');
    expect(failing).toMatchObject({ exitCode: 1, failed: true, tests: { failed: 1, passed: 9 }, failingTest: 'test_parser.py::test_nested_keys', errorLine: "KeyError: 'a'" });
    // Copilot CLI's own `create` refused to overwrite parser.py ("Path already exists"): no edit happened.
    if (agent === 'copilot') expect(thread.files).toEqual([]);
    else expect(thread.files).toEqual([{ path: 'parser.py', change: 'edited' }]);
  });

  it('sees the question the agent asked', () => {
    const events = beforeResume(agent);
    expect(events.some((event) => event.type === 'assistant' && event.asksQuestion && event.text.includes('rejected or flattened?'))).toBe(true);
  });

  it('parses cut short in the middle of a line, with garbage and unknown lines in it', () => {
    const text = textOf(agent);
    const lines = text.split('\n');
    const damaged = [...lines.slice(0, 5), '{"type":', 'not json at all', JSON.stringify({ type: 'from-a-future-version', payload: { x: 1 } }), ...lines.slice(5)].join('\n');
    const cut = damaged.slice(0, Math.floor(damaged.length * 0.6));
    expect(() => transcriptEvents(agent, parse(cut))).not.toThrow();
    expect(sessionThread(beforeResume(agent, damaged)).requests.join('\n')).toContain('NESTED Make the parser accept nested keys');
  });
});

describe('compactions in real transcripts', () => {
  it('Claude Code and Codex record theirs with the summary; Gemini CLI its state snapshot; Copilot CLI only a compaction that succeeded; opencode one whose summary is done', () => {
    const count = (agent: TranscriptAgent) => transcriptEvents(agent, parse(textOf(agent))).filter((event) => event.type === 'compaction').length;
    expect(count('claude')).toBe(1);
    expect(count('codex')).toBeGreaterThanOrEqual(1);
    expect(count('gemini')).toBe(1);
    // The recorded Copilot CLI compaction was cancelled (session.compaction_complete success: false).
    expect(count('copilot')).toBe(0);
    // opencode's: its compaction message, once its summary answered it.
    expect(count('opencode')).toBe(1);
    expect(transcriptEvents('gemini', parse(textOf('gemini'))).find((event) => event.type === 'compaction-summary')).toMatchObject({ text: expect.stringMatching(/^<state_snapshot>/) });
  });
});

describe('Gemini CLI records', () => {
  it('a message written again under its id replaces it; $rewindTo drops it and what follows', () => {
    const message = (id: string, text: string) => ({ id, timestamp: '2026-11-26T10:00:00Z', type: 'user', content: [{ text }] });
    expect(transcriptEvents('gemini', [message('a', 'first'), message('b', 'second'), message('a', 'first, edited')]).map((event) => (event.type === 'user' ? event.text : ''))).toEqual(['first, edited', 'second']);
    expect(transcriptEvents('gemini', [message('a', 'kept'), message('b', 'dropped'), message('c', 'dropped too'), { $rewindTo: 'b' }]).map((event) => (event.type === 'user' ? event.text : ''))).toEqual(['kept']);
  });

  it('reads an older whole-document session file', () => {
    const events = transcriptEvents('gemini', [{ sessionId: 's', projectHash: 'p', messages: [{ id: 'a', timestamp: '2026-11-26T10:00:00Z', type: 'user', content: 'old format' }] }]);
    expect(events).toMatchObject([{ type: 'user', text: 'old format' }]);
  });
});
