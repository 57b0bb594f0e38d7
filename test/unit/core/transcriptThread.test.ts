import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEvents } from '../../../src/core/transcriptClaude';
import { formatCounts, sessionThread, testCounts } from '../../../src/core/transcriptThread';
import type { AgentEvent } from '../../../src/core/agentEvents';
import { claude } from '../support/transcriptLines';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'transcripts');
const recorded = (file: string) =>
  readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);

describe('the session thread of a real Claude Code transcript (recorded: nested keys, then /compact)', () => {
  const events = claudeEvents(recorded('claude/nested-keys.jsonl'));

  it('after the compaction, the thread is what the compaction ended: request, failing run, edit, open question, summary', () => {
    const thread = sessionThread(events.slice(0, events.findIndex((event) => event.type === 'user' && event.text.startsWith('RESUME'))));
    expect(thread.requests).toEqual(['NESTED Make the parser accept nested keys like a.b = 1 (get(config, "a.b") must work).']);
    expect(thread.commands).toMatchObject([
      { command: 'python3 test_parser.py', exitCode: 1, failed: true, tests: { failed: 1, passed: 9 }, failingTest: 'test_parser.py::test_nested_keys', errorLine: "KeyError: 'a'" },
    ]);
    expect(thread.files).toEqual([{ path: 'parser.py', change: 'edited' }]);
    expect(thread.openQuestion).toBe('Should deeper keys like a.b.c.d be rejected or flattened?');
    expect(thread.compactions).toBe(1);
    expect(thread.compactionSummary).toContain('Summary');
    expect(thread.unanswered).toEqual([]);
  });

  it('once the user writes again after the compaction, that is the thread', () => {
    const thread = sessionThread(events);
    expect(thread.requests).toEqual(['RESUME go on']);
    expect(thread.openQuestion).toBeUndefined();
    expect(thread.commands).toEqual([]);
  });
});

describe('sessionThread', () => {
  const events = (...records: unknown[]): AgentEvent[] => claudeEvents(records);

  it('a question the user answered is not open; a tool call without a result is listed', () => {
    const answered = sessionThread(events(claude.user('do it'), claude.text('Which one?'), claude.user('the first')));
    expect(answered.openQuestion).toBeUndefined();
    const pending = sessionThread(events(claude.user('do it'), claude.tool('t1', 'Bash', { command: 'npm test' })));
    expect(pending.unanswered).toEqual([{ name: 'Bash', command: 'npm test' }]);
    expect(pending.commands).toMatchObject([{ command: 'npm test', pending: true, failed: false }]);
  });

  it('a question the user wrote once after is kept with that reply: it may or may not be the answer', () => {
    const replied = sessionThread(events(claude.user('do it'), claude.text('Reject or flatten deeper keys?'), claude.user('COMPACT-NOW: fill the context')));
    expect(replied.openQuestion).toBeUndefined();
    expect(replied.repliedQuestion).toEqual({ question: 'Reject or flatten deeper keys?', reply: 'COMPACT-NOW: fill the context' });
    const talkedOn = sessionThread(events(claude.text('Which one?'), claude.user('the first'), claude.text('Done.'), claude.user('now the tests')));
    expect(talkedOn.repliedQuestion).toBeUndefined();
  });

  it('a failed edit changed nothing; a created then deleted file leaves nothing; rm after success deletes', () => {
    const thread = sessionThread(
      events(
        claude.tool('e1', 'Edit', { file_path: 'a.ts' }),
        claude.result('e1', 'String not found', true),
        claude.tool('w1', 'Write', { file_path: 'tmp.txt' }),
        claude.result('w1', 'ok', false, { type: 'create', filePath: 'tmp.txt' }),
        claude.tool('b1', 'Bash', { command: 'rm tmp.txt old.txt' }),
        claude.result('b1', '', false, { stdout: '', stderr: '', interrupted: false }),
      ),
    );
    expect(thread.files).toEqual([{ path: 'old.txt', change: 'deleted' }]);
  });

  it('reads the commits a git commit printed', () => {
    const thread = sessionThread(events(claude.tool('c1', 'Bash', { command: 'git commit -am "Parse nested keys"' }), claude.result('c1', '[main 1a2b3c4] Parse nested keys\n 1 file changed', false, { stdout: 'x', stderr: '', interrupted: false })));
    expect(thread.commits).toEqual([{ hash: '1a2b3c4', subject: 'Parse nested keys' }]);
  });

  it('keeps the last plan, and the requests before a compaction when none came after it', () => {
    const thread = sessionThread(
      events(
        claude.user('first request'),
        claude.tool('p', 'TodoWrite', { todos: [{ content: 'A', status: 'completed' }, { content: 'B', status: 'in_progress' }] }),
        claude.boundary(),
        claude.summary('summary'),
        claude.tool('t', 'Bash', { command: 'ls' }),
        claude.result('t', 'x', false, { stdout: 'x', stderr: '', interrupted: false }),
      ),
    );
    expect(thread.requests).toEqual(['first request']);
    expect(thread.requestsBeforeCompaction).toBe(true);
    expect(thread.plan).toEqual([
      { text: 'A', status: 'done' },
      { text: 'B', status: 'in-progress' },
    ]);
    expect(thread.commands).toHaveLength(1);
  });

  it("since the agent's own checkpoint: earlier commands and files are in beads already, the request stays", () => {
    const ok = { stdout: '', stderr: '', interrupted: false };
    const list = events(
      claude.user('req'),
      claude.tool('a', 'Edit', { file_path: 'early.ts' }),
      claude.result('a', 'ok'),
      claude.tool('c', 'Bash', { command: 'br comments add demo-1 "Done: early.ts; Next: late.ts"' }),
      claude.result('c', 'Comment added', false, ok),
      claude.tool('b', 'Edit', { file_path: 'late.ts' }),
      claude.result('b', 'ok'),
    );
    const thread = sessionThread(list);
    expect(thread.files).toEqual([{ path: 'late.ts', change: 'edited' }]);
    expect(thread.commands).toEqual([]);
    expect(thread.requests).toEqual(['req']);
    // A checkpoint command that failed put nothing into beads.
    const failed = sessionThread(list.map((event) => (event.type === 'tool-result' && event.id === 'c' ? { ...event, isError: true, exitCode: 1 } : event)));
    expect(failed.files.map((file) => file.path)).toEqual(['early.ts', 'late.ts']);
  });

  it('a summary handed over by the hook wins over none', () => {
    expect(sessionThread([], { compactionSummary: 'from PostCompact' }).compactionSummary).toBe('from PostCompact');
    expect(sessionThread([])).toMatchObject({ requests: [], commands: [], files: [], commits: [], unanswered: [] });
  });
});

describe('test runner output', () => {
  it.each([
    ['pytest', '==== 1 failed, 9 passed in 0.12s ====', '1 failed, 9 passed'],
    ['jest', 'Tests:       1 failed, 2 skipped, 9 passed, 12 total', '1 failed, 9 passed, 2 skipped'],
    ['vitest', ' Tests  2 failed | 40 passed (42)', '2 failed, 40 passed'],
    ['vitest in colour', '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m1 failed\u001b[39m\u001b[22m\u001b[2m | \u001b[22m\u001b[1m\u001b[32m9 passed\u001b[39m', '1 failed, 9 passed'],
    ['cargo', 'test result: FAILED. 9 passed; 1 failed; 0 ignored; 0 measured', '1 failed, 9 passed'],
    ['mocha', '  9 passing (20ms)\n  1 failing\n', '1 failed, 9 passed'],
    ['go', '--- FAIL: TestNested (0.00s)\n--- PASS: TestFlat (0.00s)\nFAIL', '1 failed, 1 passed'],
  ])('%s counts', (_runner, output, expected) => {
    const counts = testCounts(output);
    expect(counts && formatCounts(counts)).toBe(expected);
  });

  it('no counts in output that has none', () => {
    expect(testCounts('hello\nworld')).toBeUndefined();
  });
});
