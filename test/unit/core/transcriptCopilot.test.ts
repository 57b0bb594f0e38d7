import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactedInThisRun, copilotEvents } from '../../../src/core/transcriptCopilot';
import { transcriptRecords } from '../../../src/core/transcriptLines';

// Lines as Copilot CLI 1.0.102 writes them to session-state/<id>/events.jsonl (data shortened).
const line = (value: object) => `${JSON.stringify(value)}\n`;
const resume = line({ type: 'session.resume', data: { resumeTime: '2026-11-26T16:20:12.797Z', eventCount: 26 } });
const preCompact = line({ type: 'hook.start', data: { hookInvocationId: 'h1', hookType: 'preCompact', input: { trigger: 'auto' } } });
const compacted = line({ type: 'session.compaction_complete', data: { success: true, outcome: 'applied' } });
const prompt = line({ type: 'user.message', data: { content: 'go on' } });
/** The question as the hook asks it: of the log's records, parsed from the end of the file. */
const compactedRun = (text: string) => compactedInThisRun(transcriptRecords(text, true).records);

describe("Copilot CLI's session log: was the last compaction in the run still going?", () => {
  it('says yes after a PreCompact with no run begun since, applied or not', () => {
    expect(compactedRun(resume + preCompact)).toBe(true);
    expect(compactedRun(resume + preCompact + compacted + prompt)).toBe(true);
  });

  it('says no once a later run began (its SessionStart gives the block), and without any PreCompact', () => {
    expect(compactedRun(resume + preCompact + compacted + resume)).toBe(false);
    expect(compactedRun(resume + prompt)).toBe(false);
    expect(compactedRun('')).toBe(false);
  });

  it("reads a real log: the recorded session's compaction, then the resume that followed it", () => {
    const events = readFileSync(path.join(__dirname, '../../fixtures/transcripts/copilot/nested-keys.jsonl'), 'utf8');
    const compaction = events.lastIndexOf('"hookType":"preCompact"');
    const nextLine = events.indexOf('\n', compaction) + 1;
    expect(compactedRun(events.slice(0, nextLine))).toBe(true);
    expect(compactedRun(events)).toBe(false);
  });

  it('is one reader of the file: the thread reads the same records, and a PreCompact quoted in a message is no PreCompact', () => {
    const quoted = line({ type: 'user.message', data: { content: 'what does "hookType":"preCompact" mean?' } });
    expect(compactedRun(resume + quoted)).toBe(false);
    expect(copilotEvents(transcriptRecords(resume + preCompact + compacted + quoted, true).records)).toMatchObject([{ type: 'compaction' }, { type: 'user', text: 'what does "hookType":"preCompact" mean?' }]);
  });
});
