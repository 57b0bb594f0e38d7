import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEvents } from '../../../src/core/transcriptClaude';
import { commandPurpose, failingNow, formatCounts, lastTestRun, sessionThread, testCounts } from '../../../src/core/transcriptThread';
import { threadFactLines } from '../../../src/core/threadFacts';
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
    expect(failed.files.map((file) => file.path)).toEqual(['late.ts', 'early.ts']);
  });

  it('lists files newest touch first: the task in progress leads, a file touched again moves up', () => {
    const thread = sessionThread(
      claudeEvents([
        claude.user('req'),
        claude.tool('a', 'Edit', { file_path: 'a.ts' }),
        claude.result('a', 'ok'),
        claude.tool('b', 'Write', { file_path: 'b.ts' }),
        claude.result('b', 'ok', false, { type: 'create', filePath: 'b.ts' }),
        claude.tool('c', 'Bash', { command: 'git commit -am "a and b"' }),
        claude.result('c', '[main 1234567] a and b'),
        claude.tool('d', 'Edit', { file_path: 'c.ts' }),
        claude.result('d', 'ok'),
        claude.tool('e', 'Edit', { file_path: 'a.ts' }),
        claude.result('e', 'ok'),
      ]),
    );
    expect(thread.files).toEqual([
      { path: 'a.ts', change: 'edited' },
      { path: 'c.ts', change: 'edited' },
      { path: 'b.ts', change: 'created' },
    ]);
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
    ['ExUnit', 'Finished in 3.2 seconds\n359 tests, 0 failures (3 excluded)', '359 passed, 3 skipped'],
    ['RSpec', '10 examples, 1 failure, 2 pending', '1 failed, 9 passed, 2 skipped'],
    ['unittest', 'Ran 12 tests in 0.004s\n\nFAILED (failures=1, errors=1)', '2 failed, 10 passed'],
  ])('%s counts', (_runner, output, expected) => {
    const counts = testCounts(output);
    expect(counts && formatCounts(counts)).toBe(expected);
  });

  it('no counts in output that has none', () => {
    expect(testCounts('hello\nworld')).toBeUndefined();
  });
});

describe('the state at the end of the session, not its history (issue 26, item 2)', () => {
  const ok = { stdout: 'x', stderr: '', interrupted: false };
  let id = 0;
  /** One Bash call and its result: exit 0 unless a code is given (Claude Code writes "Exit code N" first). */
  const bash = (command: string, output: string, exitCode = 0) => {
    const call = `b${++id}`;
    return exitCode === 0
      ? [claude.tool(call, 'Bash', { command }), claude.result(call, output, false, ok)]
      : [claude.tool(call, 'Bash', { command }), claude.result(call, `Exit code ${exitCode}\n${output}`, true)];
  };
  const threadOf = (...runs: unknown[][]) => sessionThread(claudeEvents([claude.user('fix it'), ...runs.flat()]));
  const failingLine = (...runs: unknown[][]) => threadFactLines(threadOf(...runs)).find((line) => line.startsWith('- Failing:'));

  it('a later run of the same intent that succeeds clears a failure, even with other flags', () => {
    expect(failingLine(bash('npm test', 'Tests  1 failed | 9 passed (10)', 1), bash('npm test -- --reporter=dot 2>&1 | tail -5', 'Tests  10 passed (10)'))).toBeUndefined();
    expect(failingLine(bash('npm run lint', 'src/a.ts\n  3:1  error  no-unused-vars', 1), bash('cd app && npm run lint --silent', ''))).toBeUndefined();
    expect(failingLine(bash('python3 -m pytest tests/test_x.py', 'FAILED tests/test_x.py::test_y - KeyError: a\n1 failed, 3 passed', 1), bash('uv run pytest', '4 passed in 0.1s'))).toBeUndefined();
  });

  it('a narrower passing run does not clear a failure it does not cover; one that names the failing file does', () => {
    const broad = bash('pytest', 'FAILED tests/test_x.py::test_y - KeyError: a\n1 failed, 40 passed', 1);
    expect(failingLine(broad, bash('pytest tests/test_other.py', '3 passed'))).toMatch(/^- Failing: tests\/test_x\.py::test_y — KeyError: a/);
    expect(failingLine(broad, bash('pytest tests/test_x.py', '5 passed'))).toBeUndefined();
  });

  it('exploratory and version-control commands are no failures of the work', () => {
    const thread = threadOf(
      bash('ls missing/', 'ls: cannot access', 2),
      bash('grep -rn TODO src', '', 1),
      bash('git push', 'fatal: The current branch has no upstream branch.', 128),
      bash('git push --set-upstream origin main', 'branch set up'),
      bash('git merge feature', 'CONFLICT (content): Merge conflict in a.ts', 1),
    );
    expect(failingNow(thread.commands)).toEqual([]);
    expect(threadFactLines(thread).some((line) => line.startsWith('- Failing:'))).toBe(false);
    expect(commandPurpose('cd app && git status').kind).toBe('vcs');
    expect(commandPurpose('sed -n 1,20p src/a.ts').kind).toBe('explore');
  });

  it('a failure that is still the last run of its intent stays failing, the newest first', () => {
    expect(failingLine(bash('npm test', 'Tests  10 passed (10)'), bash('npm test', ' FAIL  test/a.test.ts > parses a.b\nAssertionError: expected 1\n Tests  1 failed | 9 passed (10)', 1))).toBe(
      '- Failing: test/a.test.ts > parses a.b — AssertionError: expected 1 (`npm test`: 1 failed, 9 passed)',
    );
  });

  it('the last test run is stated, green included', () => {
    const lines = threadFactLines(threadOf(bash('npm test', ' Tests  2 failed | 408 passed (410)', 1), bash('npm test', ' Tests  410 passed (410)'), bash('ls', 'a b')));
    expect(lines).toContain('- Last test run: `npm test`: exit 0: 410 passed');
    expect(lines.some((line) => line.startsWith('- Failing:'))).toBe(false);
  });

  it('a run the user refused is no failure', () => {
    const thread = threadOf([claude.tool('r1', 'Bash', { command: 'mix test' }), claude.result('r1', "The user doesn't want to proceed with this tool use. The tool use was rejected.", true)]);
    expect(failingNow(thread.commands)).toEqual([]);
    expect(lastTestRun(thread.commands)).toBeUndefined();
  });

  it('a command sent to the background is running, not passed, and no failure', () => {
    const thread = threadOf(bash('npm test', 'Tests  1 failed | 9 passed', 1), bash('npm test &', ''), [
      claude.tool('bg', 'Bash', { command: 'npm run test:e2e', run_in_background: true }),
      claude.result('bg', 'Command running in background with ID: bash_3', false, ok),
    ]);
    expect(lastTestRun(thread.commands)).toMatchObject({ command: 'npm run test:e2e', background: true, failed: false });
    const lines = threadFactLines(thread);
    expect(lines).toContain('- Last test run: `npm run test:e2e`: sent to the background, still running (no result seen)');
    expect(lines.find((line) => line.startsWith('- Activity:'))).not.toMatch(/test:e2e` \((?:ok|exit 0)/);
    // The failing run is not cleared by a run that has not come back.
    expect(lines.find((line) => line.startsWith('- Failing:'))).toMatch(/`npm test`/);
  });
});

describe("the user's words, whole and newest first (issue 26, item 3)", () => {
  it('keeps the newest request whole, and earlier ones after it, newest first', () => {
    const long = `${'earlier context '.repeat(60)}end`;
    const newest = `Now ${'please rename the flag and keep the old one as an alias '.repeat(8)}done.`;
    const lines = threadFactLines(sessionThread(claudeEvents([claude.user(long), claude.user('second ask'), claude.user(newest)])));
    expect(lines[0]).toBe(`- Request: ${newest}`);
    expect(lines[1]).toMatch(/^- Earlier requests \(newest first\): “second ask” “earlier context/);
  });

  it("never takes runtime notices, reminders, hook output or command echoes for the user's words", () => {
    const thread = sessionThread(
      claudeEvents([
        claude.user('add the --strict flag'),
        claude.user('<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>'),
        claude.user('<command-name>/clear</command-name>'),
        claude.user('<local-command-stdout>done</local-command-stdout>'),
        claude.user('also document it<system-reminder>The TodoWrite tool hasn\'t been used recently.</system-reminder>'),
        claude.user('Stop hook feedback:\nrun the linter'),
      ]),
    );
    expect(thread.requests).toEqual(['add the --strict flag', 'also document it']);
  });
});

describe('questions anywhere in the last message, and the next step (issue 26, item 6)', () => {
  it('a question followed by words that hand the turn over is open', () => {
    const thread = sessionThread(claudeEvents([claude.user('go'), claude.text('The parser now reads a.b. Should deeper keys like a.b.c be rejected or flattened? I will wait for your answer.')]));
    expect(thread.openQuestion).toBe('Should deeper keys like a.b.c be rejected or flattened?');
  });

  it('a question the agent answered itself is none', () => {
    const thread = sessionThread(claudeEvents([claude.user('go'), claude.text('Why did it fail? The key was missing. I fixed it and all tests pass.')]));
    expect(thread.openQuestion).toBeUndefined();
  });

  it("the next step from the agent's last message, when nothing came after it", () => {
    const thread = sessionThread(claudeEvents([claude.user('go'), claude.text('The tokenizer is done. Next, I will wire it into the CLI flag parser.')]));
    expect(thread.nextStep).toBe('wire it into the CLI flag parser');
    expect(threadFactLines(thread)).toContain('- Next: wire it into the CLI flag parser');
  });
});
