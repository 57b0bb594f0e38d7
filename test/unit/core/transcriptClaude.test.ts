import { describe, expect, it } from 'vitest';
import { claudeEvents } from '../../../src/core/transcriptClaude';
import { endsWithQuestion, filesOfCommand, excerpt } from '../../../src/core/agentEvents';
import { claude } from '../support/transcriptLines';

describe('Claude Code transcript events', () => {
  it('reads the user, the agent, tool calls with their commands and files, and results with exit codes', () => {
    const events = claudeEvents([
      claude.user('Make the parser accept nested keys'),
      claude.tool('t1', 'Bash', { command: 'python -m pytest -q' }),
      claude.result('t1', 'Exit code 1\nFAILED tests/test_parser.py::test_nested - KeyError: a.b\n1 failed, 9 passed in 0.1s', true),
      claude.tool('t2', 'Edit', { file_path: 'src/parser.py', old_string: 'a', new_string: 'b' }),
      claude.result('t2', 'The file src/parser.py has been updated.'),
      claude.tool('t3', 'Write', { file_path: 'src/keys.py', content: '' }),
      claude.result('t3', 'File created', false, { type: 'create', filePath: 'src/keys.py' }),
      claude.text('Should deeper keys be rejected or flattened?'),
    ]);
    expect(events.map((event) => event.type)).toEqual(['user', 'tool-call', 'tool-result', 'tool-call', 'tool-result', 'tool-call', 'tool-result', 'assistant']);
    expect(events[0]).toMatchObject({ type: 'user', text: 'Make the parser accept nested keys' });
    expect(events[1]).toMatchObject({ type: 'tool-call', id: 't1', name: 'Bash', command: 'python -m pytest -q', files: [] });
    expect(events[2]).toMatchObject({ type: 'tool-result', id: 't1', exitCode: 1, isError: true });
    expect(events[3]).toMatchObject({ type: 'tool-call', files: [{ path: 'src/parser.py', change: 'edited' }] });
    expect(events[6]).toMatchObject({ type: 'tool-result', files: [{ path: 'src/keys.py', change: 'created' }] });
    expect(events[7]).toMatchObject({ type: 'assistant', asksQuestion: true });
    expect(events[0]?.at).toBeGreaterThan(0);
  });

  it('reads the compaction boundary and the summary Claude Code hands over', () => {
    const events = claudeEvents([claude.user('a'), claude.boundary('auto'), claude.summary('This session is being continued… The user asked for nested keys.')]);
    expect(events.slice(1)).toMatchObject([{ type: 'compaction', trigger: 'auto' }, { type: 'compaction-summary', text: expect.stringContaining('nested keys') }]);
  });

  it('keeps the todo list whole: TodoWrite replaces it, TaskCreate/TaskUpdate change it step by step', () => {
    const todo = claudeEvents([
      claude.tool('p1', 'TodoWrite', {
        todos: [
          { content: 'Reproduce', status: 'completed', activeForm: 'x' },
          { content: 'Fix', status: 'in_progress', activeForm: 'x' },
          { content: 'Document', status: 'pending', activeForm: 'x' },
        ],
      }),
    ]);
    expect(todo.find((event) => event.type === 'plan')).toMatchObject({
      steps: [
        { text: 'Reproduce', status: 'done' },
        { text: 'Fix', status: 'in-progress' },
        { text: 'Document', status: 'pending' },
      ],
    });
    const tasks = claudeEvents([
      claude.tool('c1', 'TaskCreate', { subject: 'Reproduce', description: '' }),
      claude.result('c1', 'Task #1 created', false, { task: { id: '1', subject: 'Reproduce' } }),
      claude.tool('c2', 'TaskCreate', { subject: 'Fix', description: '' }),
      claude.result('c2', 'Task #2 created', false, { task: { id: '2', subject: 'Fix' } }),
      claude.tool('u1', 'TaskUpdate', { taskId: '1', status: 'completed' }),
    ]);
    const plans = tasks.filter((event) => event.type === 'plan');
    expect(plans.at(-1)).toMatchObject({ steps: [{ text: 'Reproduce', status: 'done' }, { text: 'Fix', status: 'pending' }] });
  });

  it('leaves out what the user did not type, subagent lines, thinking and unknown entry types (an interruption only ends the turn)', () => {
    const events = claudeEvents([
      { type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat: the messages below…' } },
      claude.user('<command-name>/compact</command-name>'),
      claude.user('[Request interrupted by user]'),
      { ...claude.user('subagent prompt'), isSidechain: true },
      { type: 'assistant', message: { content: [{ type: 'thinking', thinking: 'hmm' }] } },
      { type: 'file-history-snapshot', snapshot: {} },
      { type: 'summary', summary: 'Session title', leafUuid: 'x' },
      { type: 'a-future-type', message: 42 },
      null,
      'text',
      [],
    ]);
    expect(events).toEqual([{ type: 'turn-end', at: expect.any(Number) }]);
  });

  it('reads a message the user queued while the agent was busy; not one a plugin, a task or the runtime queued', () => {
    const queued = (attachment: Record<string, unknown>) => ({ type: 'attachment', timestamp: '2026-02-12T15:43:47.067Z', attachment: { type: 'queued_command', ...attachment } });
    const events = claudeEvents([
      claude.user('Fix the parser'),
      queued({ prompt: 'also keep the old flag working' }),
      queued({ prompt: [{ type: 'text', text: 'and run the linter' }], origin: { kind: 'human' } }),
      queued({ prompt: 'a plugin note', isMeta: true }),
      queued({ prompt: '<task-notification>done</task-notification>', origin: { kind: 'task-notification' } }),
      queued({ prompt: 'from another agent', origin: { kind: 'peer' } }),
      queued({ prompt: '<system-reminder>x</system-reminder>' }),
      { type: 'attachment', attachment: { type: 'plan_file_reference', planContent: 'not a message' } },
    ]);
    expect(events).toMatchObject([
      { type: 'user', text: 'Fix the parser' },
      { type: 'user', text: 'also keep the old flag working', at: Date.parse('2026-02-12T15:43:47.067Z') },
      { type: 'user', text: 'and run the linter' },
    ]);
    expect(events).toHaveLength(3);
  });

  it('an AskUserQuestion is a question, and its answer is what the user said', () => {
    const events = claudeEvents([
      claude.tool('q1', 'AskUserQuestion', { questions: [{ question: 'Reject or flatten deeper keys?', header: 'Keys', options: [] }] }),
      claude.result('q1', 'User answered: flatten'),
    ]);
    expect(events.filter((event) => event.type === 'assistant' || event.type === 'user')).toMatchObject([
      { type: 'assistant', text: 'Reject or flatten deeper keys?', asksQuestion: true },
      { type: 'user', text: 'User answered: flatten' },
    ]);
  });
});

describe('agent event helpers', () => {
  it('tells a message that ends with a question, past code and markup', () => {
    expect(endsWithQuestion('Done. Should deeper keys be rejected or flattened?')).toBe(true);
    expect(endsWithQuestion('**Which one do you want?**\n')).toBe(true);
    expect(endsWithQuestion('Is this right?\n```\ncode\n```')).toBe(true);
    expect(endsWithQuestion('Why? Because it failed. I fixed it.')).toBe(false);
    expect(endsWithQuestion('')).toBe(false);
  });

  it('reads the files rm and git rm delete, and nothing else', () => {
    expect(filesOfCommand('rm -f a.txt "b c.txt" && git rm -- -odd.txt; echo rm x')).toEqual([
      { path: 'a.txt', change: 'deleted' },
      { path: 'b c.txt', change: 'deleted' },
      { path: '-odd.txt', change: 'deleted' },
    ]);
    expect(filesOfCommand('npm test 2>&1 | tail -5; ls > /dev/null')).toEqual([]);
  });

  it('reads the files a command writes: redirections, tee, touch, cp and mv; never a heredoc body', () => {
    expect(filesOfCommand("cat > 'parser.py' <<'EOF'\nif a > b:\n    x >> y\nEOF")).toEqual([{ path: 'parser.py', change: 'edited' }]);
    expect(filesOfCommand('echo x >> notes.txt && date | tee -a log.txt && touch new.txt')).toEqual([
      { path: 'notes.txt', change: 'edited' },
      { path: 'log.txt', change: 'edited' },
      { path: 'new.txt', change: 'edited' },
    ]);
    expect(filesOfCommand('mv old.ts new.ts; cp a.ts b.ts')).toEqual([
      { path: 'old.ts', change: 'deleted' },
      { path: 'new.ts', change: 'created' },
      { path: 'b.ts', change: 'created' },
    ]);
  });

  it('keeps the start and the end of a long output', () => {
    const text = `FIRST${'x'.repeat(10_000)}LAST`;
    const cut = excerpt(text, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut.startsWith('FIRST')).toBe(true);
    expect(cut.endsWith('LAST')).toBe(true);
  });
});
