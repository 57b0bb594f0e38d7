import { describe, expect, it } from 'vitest';
import { patchFiles } from '../../../src/core/agentEvents';
import { codexEvents } from '../../../src/core/transcriptCodex';
import { codex } from '../support/transcriptLines';

describe('Codex rollout events', () => {
  it('reads the user, shell calls with exit codes, patches, plans, the agent and the compaction', () => {
    const events = codexEvents([
      codex.meta(),
      codex.line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }] }),
      codex.line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Make the parser accept nested keys' }] }),
      codex.user('Make the parser accept nested keys'),
      codex.call('c1', 'shell', { command: ['bash', '-lc', 'pytest -q'] }),
      codex.output('c1', JSON.stringify({ output: '1 failed, 9 passed', metadata: { exit_code: 1, duration_seconds: 0.3 } })),
      codex.call('c2', 'exec_command', { cmd: 'npm test' }),
      codex.output('c2', 'Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 0\nOutput:\nok'),
      codex.patch('c3', '*** Begin Patch\n*** Update File: src/parser.py\n@@\n-a\n+b\n*** Add File: src/keys.py\n+x\n*** Delete File: old.py\n*** End Patch'),
      codex.call('c4', 'update_plan', { plan: [{ step: 'Reproduce', status: 'completed' }, { step: 'Fix', status: 'in_progress' }] }),
      codex.agent('Should deeper keys be rejected or flattened?'),
      codex.line('turn_context', { cwd: '.' }),
      codex.line('event_msg', { type: 'token_count', info: null }),
      codex.compacted('Summary: nested keys work in progress'),
    ]);
    expect(events.filter((event) => event.type === 'user')).toEqual([expect.objectContaining({ text: 'Make the parser accept nested keys' })]);
    expect(events.find((event) => event.type === 'tool-call' && event.id === 'c1')).toMatchObject({ command: 'pytest -q' });
    expect(events.find((event) => event.type === 'tool-result' && event.id === 'c1')).toMatchObject({ exitCode: 1, isError: true, output: '1 failed, 9 passed' });
    expect(events.find((event) => event.type === 'tool-call' && event.id === 'c2')).toMatchObject({ command: 'npm test' });
    expect(events.find((event) => event.type === 'tool-result' && event.id === 'c2')).toMatchObject({ exitCode: 0, isError: false });
    expect(events.find((event) => event.type === 'tool-call' && event.id === 'c3')).toMatchObject({
      files: [
        { path: 'src/parser.py', change: 'edited' },
        { path: 'src/keys.py', change: 'created' },
        { path: 'old.py', change: 'deleted' },
      ],
    });
    expect(events.find((event) => event.type === 'plan')).toMatchObject({ steps: [{ text: 'Reproduce', status: 'done' }, { text: 'Fix', status: 'in-progress' }] });
    expect(events.find((event) => event.type === 'assistant')).toMatchObject({ asksQuestion: true });
    expect(events.slice(-2)).toMatchObject([{ type: 'compaction' }, { type: 'compaction-summary', text: 'Summary: nested keys work in progress' }]);
  });

  it('takes the user from response items when the file has no user events (older rollouts)', () => {
    const events = codexEvents([
      codex.line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the bug' }] }),
      codex.line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
    ]);
    expect(events).toMatchObject([
      { type: 'user', text: 'Fix the bug' },
      { type: 'assistant', text: 'Done.', asksQuestion: false },
    ]);
  });

  it('skips unknown lines and payloads', () => {
    expect(codexEvents([null, 1, { type: 'response_item' }, codex.line('world_state', {}), codex.line('response_item', { type: 'reasoning', summary: [] })])).toEqual([]);
  });

  it('reads the moves of a patch as files created', () => {
    expect(patchFiles('*** Update File: a.ts\n*** Move to: b.ts\n')).toEqual([
      { path: 'a.ts', change: 'edited' },
      { path: 'b.ts', change: 'created' },
    ]);
  });
});
