import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readSessionThread, transcriptAgentOf } from '../../../../src/services/transcripts/sessionThread';
import { keepCompactSummary } from '../../../../src/services/transcripts/compactSummaries';
import { claude, jsonl } from '../../support/transcriptLines';

const dir = mkdtempSync(path.join(tmpdir(), 'session-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readSessionThread', () => {
  it("reads the thread from the session's transcript", async () => {
    const file = path.join(dir, 'session.jsonl');
    writeFileSync(file, jsonl([claude.user('make it work'), claude.text('Which way?')]));
    const thread = await readSessionThread({ transcript: file, agent: 'claude' });
    expect(thread).toMatchObject({ requests: ['make it work'], openQuestion: 'Which way?' });
  });

  it('no transcript, a missing or an empty one: no thread, and a note saying why', async () => {
    const notes: string[] = [];
    await expect(readSessionThread({ agent: 'claude' })).resolves.toBeUndefined();
    await expect(readSessionThread({ transcript: path.join(dir, 'gone.jsonl'), agent: 'claude', note: (line) => notes.push(line) })).resolves.toBeUndefined();
    expect(notes).toEqual(["the session's transcript was not read: no transcript file"]);
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    await expect(readSessionThread({ transcript: empty, agent: 'codex' })).resolves.toBeUndefined();
  });

  it('the summary the PostCompact hook kept makes a thread even without a readable transcript', async () => {
    const conversation = `thread-${process.pid}-${Date.now()}`;
    await keepCompactSummary(conversation, 'Summary: nested keys, one test failing.');
    await expect(readSessionThread({ agent: 'claude', conversation })).resolves.toMatchObject({ compactionSummary: 'Summary: nested keys, one test failing.' });
  });

  it('Claude Code, Codex and Gemini CLI name their own format; other agents are told from the lines', () => {
    expect(transcriptAgentOf('claude')).toBe('claude');
    expect(transcriptAgentOf('codex')).toBe('codex');
    expect(transcriptAgentOf('gemini')).toBe('gemini');
    expect(transcriptAgentOf('copilot')).toBe('auto');
    expect(transcriptAgentOf('cursor')).toBe('auto');
  });
});
