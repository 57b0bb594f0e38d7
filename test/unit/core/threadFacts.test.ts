import { describe, expect, it } from 'vitest';
import { threadFactLines, threadFacts } from '../../../src/core/threadFacts';
import { commandPurpose, sessionThread, type CommandRun, type SessionThread } from '../../../src/core/transcriptThread';

const empty: SessionThread = sessionThread([]);
/** A run as the thread records it, its kind and intent read from the command. */
const ran = (run: Omit<CommandRun, 'kind' | 'intent' | 'targets' | 'background'> & Partial<CommandRun>): CommandRun => ({ ...commandPurpose(run.command), background: false, ...run });

describe("the thread's facts", () => {
  it('says nothing for an empty thread', () => {
    expect(threadFacts(empty)).toEqual([]);
  });

  it('names the plan by state and takes the next step from it when no question waits', () => {
    const thread: SessionThread = {
      ...empty,
      plan: [
        { text: 'Reproduce', status: 'done' },
        { text: 'Fix the parser', status: 'in-progress' },
        { text: 'Document', status: 'pending' },
      ],
    };
    expect(threadFactLines(thread)).toEqual(['- Plan: done: Reproduce · in progress: Fix the parser · to do: Document', '- Next: Fix the parser']);
  });

  it('the next step: the open question first, then a reply to check, then the plan, then a failing test', () => {
    const failing = ran({ command: 'npm test', failed: true, pending: false, exitCode: 1, tests: { failed: 1, passed: 3, skipped: 0 }, failingTest: 'parses a.b', errorLine: 'AssertionError: expected 1' });
    const next = (thread: SessionThread) => threadFacts(thread).find((fact) => fact.kind === 'next')?.text;
    expect(next({ ...empty, commands: [failing] })).toBe('make parses a.b pass.');
    expect(next({ ...empty, commands: [failing], plan: [{ text: 'Fix it', status: 'in-progress' }] })).toBe('Fix it');
    expect(next({ ...empty, commands: [failing], repliedQuestion: { question: 'A or B?', reply: 'B' } })).toMatch(/^take the user's message after the last question as its answer/);
    expect(next({ ...empty, commands: [failing], openQuestion: 'A or B?' })).toMatch(/^wait for the user to answer/);
  });

  it('a command that failed and then passed is not failing', () => {
    const run = (failed: boolean) => ran({ command: 'npm test', failed, pending: false, exitCode: failed ? 1 : 0 });
    expect(threadFacts({ ...empty, commands: [run(true), run(false)] }).some((fact) => fact.kind === 'failing')).toBe(false);
    expect(threadFacts({ ...empty, commands: [run(false), run(true)] }).find((fact) => fact.kind === 'failing')?.text).toBe('`npm test` — exit 1');
  });

  it('keeps each line bounded, whatever the transcript held', () => {
    const lines = threadFactLines({ ...empty, requests: ['x'.repeat(10_000)], openQuestion: `${'why '.repeat(3000)}?`, files: Array.from({ length: 50 }, (_, index) => ({ path: `src/file-${index}.ts`, change: 'edited' as const })) });
    // The newest request is kept whole up to its own bound; every other fact is shorter.
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(line.startsWith('- Request:') ? 1220 : 700);
    expect(lines.find((line) => line.startsWith('- Files the session changed:'))).toContain('+42 more');
  });
});
