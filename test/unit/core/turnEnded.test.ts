// Whether an agent waits for the user: its transcript's last record ends a turn. Read from real
// transcripts (recorded by the real-agent suite, and public ones in test/fixtures/transcripts/real)
// and from the records that end a turn in each reader.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { turnEnded } from '../../../src/core/agentEvents';
import { transcriptEvents } from '../../../src/core/transcript';
import { claudeEvents } from '../../../src/core/transcriptClaude';
import { codexEvents } from '../../../src/core/transcriptCodex';
import { claude, codex } from '../support/transcriptLines';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'transcripts');
const records = (file: string) =>
  readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);

describe('turnEnded', () => {
  it("sees the end of the last turn in real transcripts: Claude Code's end_turn, its end-of-turn records, an interruption, Codex's task_complete", () => {
    // Claude Code 2.1.332 (real-agent suite): the last assistant message stopped with end_turn.
    expect(turnEnded(transcriptEvents('claude', records('claude/nested-keys.jsonl')))).toBeDefined();
    // Claude Code 2.1.39: stop_hook_summary and turn_duration after the answer.
    expect(turnEnded(transcriptEvents('claude', records('real/claude/spotter-4te.jsonl')))?.at).toBe(Date.parse('2026-02-12T15:05:00.685Z'));
    // The user interrupted the agent: the prompt is theirs again.
    expect(turnEnded(transcriptEvents('claude', records('real/claude/spotter-xterm-interrupted.jsonl')))).toBeDefined();
    expect(turnEnded(transcriptEvents('codex', records('codex/nested-keys.jsonl')))).toBeDefined();
  });

  it('sees no end where the transcript stops mid-turn or does not say', () => {
    // Claude Code 1.0.95, cut after a tool result: the agent was still at work.
    expect(turnEnded(transcriptEvents('claude', records('real/claude/vct-pydantic-guide.jsonl')))).toBeUndefined();
    // A Codex rollout that ends with the user's request being answered: no task_complete yet.
    expect(turnEnded(transcriptEvents('codex', records('real/codex/simonw-homelab-just-asked.jsonl')))).toBeUndefined();
  });

  it('a turn that ended is over once the user writes or the agent calls a tool; a stop for a tool call ends nothing', () => {
    const ended = { ...claude.text('Done: 10 tests pass.'), message: { role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Done: 10 tests pass.' }] } };
    expect(turnEnded(claudeEvents([claude.user('fix it'), ended]))).toBeDefined();
    expect(turnEnded(claudeEvents([claude.user('fix it'), ended, claude.user('now the docs')]))).toBeUndefined();
    const toolStop = { ...claude.tool('t1', 'Bash', { command: 'npm test' }), message: { role: 'assistant', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } };
    expect(turnEnded(claudeEvents([claude.user('fix it'), toolStop]))).toBeUndefined();
    const summary = { type: 'system', subtype: 'stop_hook_summary', timestamp: new Date().toISOString() };
    expect(turnEnded(claudeEvents([claude.user('fix it'), claude.text('Done.'), summary, { ...summary, subtype: 'turn_duration' }]))).toBeDefined();
    expect(claudeEvents([claude.text('Done.'), summary, { ...summary, subtype: 'turn_duration' }]).filter((event) => event.type === 'turn-end')).toHaveLength(1);
    expect(turnEnded(codexEvents([codex.user('fix it'), codex.agent('Done.'), codex.line('event_msg', { type: 'task_complete', turn_id: '1' })]))).toBeDefined();
    expect(turnEnded(codexEvents([codex.user('fix it'), codex.line('event_msg', { type: 'turn_aborted', reason: 'interrupted' })]))).toBeDefined();
    expect(turnEnded(codexEvents([codex.user('fix it'), codex.agent('Done.'), codex.line('event_msg', { type: 'task_complete' }), codex.user('and the docs')]))).toBeUndefined();
  });
});
