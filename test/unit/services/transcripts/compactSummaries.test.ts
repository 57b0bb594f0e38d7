import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keepCompactSummary, keptCompactSummary } from '../../../../src/services/transcripts/compactSummaries';
import { runHook } from '../../../../src/bin/hook';

const dir = mkdtempSync(path.join(tmpdir(), 'compact-summaries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('compaction summaries kept per conversation', () => {
  it('keeps the latest summary of a conversation, and only for it', async () => {
    await keepCompactSummary('session-a', 'first', 1, dir);
    await keepCompactSummary('session-a', 'second', 2, dir);
    await keepCompactSummary('session-b', 'other', 3, dir);
    await expect(keptCompactSummary('session-a', dir)).resolves.toEqual({ text: 'second', savedAt: 2 });
    await expect(keptCompactSummary('session-c', dir)).resolves.toBeUndefined();
    await expect(keptCompactSummary(undefined, dir)).resolves.toBeUndefined();
    if (process.platform !== 'win32') for (const name of readdirSync(dir).filter((file) => file.endsWith('.summary.json'))) expect(statSync(path.join(dir, name)).mode & 0o077).toBe(0);
  });

  it('a damaged file reads as no summary', async () => {
    await keepCompactSummary('session-d', 'x', 1, dir);
    for (const name of readdirSync(dir)) if (name.endsWith('.summary.json')) writeFileSync(path.join(dir, name), '{not json');
    await expect(keptCompactSummary('session-d', dir)).resolves.toBeUndefined();
  });

  it("Claude Code's PostCompact hook keeps the compact_summary it hands over and answers {}", async () => {
    const session = `post-compact-${process.pid}-${Date.now()}`;
    const project = path.join(dir, 'project');
    mkdirSync(path.join(project, '.beads'), { recursive: true });
    writeFileSync(path.join(project, '.beads', 'issues.jsonl'), '');
    const notes: string[] = [];
    const answer = await runHook('claude', 'PostCompact', {
      readInput: () => Promise.resolve({ event: 'PostCompact', trigger: 'manual', session, cwd: project, compactSummary: 'The user asked for nested keys.' }),
      note: (line) => notes.push(line),
    });
    expect(answer).toBe('{}');
    expect(notes).toEqual([]);
    await expect(keptCompactSummary(session)).resolves.toMatchObject({ text: 'The user asked for nested keys.' });
  });
});
