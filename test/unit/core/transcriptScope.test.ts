// A transcript read for one session in one folder (issue 26 items 4 and 5, issue 29 item 3): only
// that session's lines; file changes from every kind of tool, shell commands included, named
// relative to the session's folder, with files outside it left out; and a transcript of another
// session or another folder told apart.
import { describe, expect, it } from 'vitest';
import { filesOfCommand, type AgentEvent } from '../../../src/core/agentEvents';
import { foreignTranscript, sameOrInside, transcriptEvents, transcriptOrigin } from '../../../src/core/transcript';
import { sessionThread } from '../../../src/core/transcriptThread';
import { claude, codex } from '../support/transcriptLines';

const users = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === 'user' ? [event.text] : []));
const files = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === 'tool-call' ? event.files : []));
const inSession = <T extends object>(line: T, sessionId: string, cwd = '/w/app') => ({ ...line, sessionId, cwd });

describe("a session's own lines", () => {
  // Claude Code writes a resumed conversation's earlier lines, under the earlier id, into the new session's file.
  const resumed = [
    inSession(claude.user('unify the Go version'), 'old'),
    inSession(claude.tool('t1', 'Edit', { file_path: '/w/app/go.mod', old_string: 'a', new_string: 'b' }), 'old'),
    inSession(claude.result('t1', 'ok'), 'old'),
    inSession(claude.user('now write the pydantic guide'), 'new'),
    inSession(claude.tool('t2', 'Write', { file_path: '/w/app/guide.md', content: 'x' }), 'new'),
    inSession(claude.result('t2', 'File created'), 'new'),
  ];

  it('Claude Code: a file holding two sessions gives each only its own lines', () => {
    expect(users(transcriptEvents('claude', resumed, { sessionId: 'new' }))).toEqual(['now write the pydantic guide']);
    expect(files(transcriptEvents('claude', resumed, { sessionId: 'new' }))).toEqual([{ path: '/w/app/guide.md', change: 'created' }]);
    expect(users(transcriptEvents('claude', resumed, { sessionId: 'old' }))).toEqual(['unify the Go version']);
    expect(transcriptOrigin('claude', resumed)).toEqual({ sessionIds: ['old', 'new'], folders: ['/w/app'] });
  });

  it('a file that names only other sessions gives nothing; one that names none is read whole', () => {
    expect(transcriptEvents('claude', resumed, { sessionId: 'a-third' })).toEqual([]);
    const unnamed = [claude.user('no id here')].map(({ sessionId: _dropped, ...line }) => line);
    expect(users(transcriptEvents('claude', unnamed, { sessionId: 'any' }))).toEqual(['no id here']);
  });

  it('Codex, Copilot CLI and Gemini CLI: the lines after a session opens its part are its own', () => {
    const rollout = [
      codex.line('session_meta', { id: 'c1', cwd: '/w/app' }),
      codex.user('first'),
      codex.line('session_meta', { id: 'c2', cwd: '/w/app' }),
      codex.user('second'),
    ];
    expect(users(transcriptEvents('codex', rollout, { sessionId: 'c2' }))).toEqual(['second']);
    expect(users(transcriptEvents('codex', rollout, { sessionId: 'c1' }))).toEqual(['first']);

    const events = (sessionId: string) => [
      { type: 'session.start', data: { sessionId, context: { cwd: '/w/app' } }, id: `s-${sessionId}`, timestamp: '2026-11-26T10:00:00Z' },
      { type: 'user.message', data: { content: `asked in ${sessionId}` }, id: `u-${sessionId}`, timestamp: '2026-11-26T10:00:01Z' },
    ];
    expect(users(transcriptEvents('copilot', [...events('p1'), ...events('p2')], { sessionId: 'p2' }))).toEqual(['asked in p2']);
    expect(transcriptOrigin('copilot', events('p1'))).toEqual({ sessionIds: ['p1'], folders: ['/w/app'] });

    const chat = (sessionId: string, text: string) => [
      { sessionId, projectHash: 'h', startTime: '2026-11-26T10:00:00Z' },
      { id: `m-${sessionId}`, timestamp: '2026-11-26T10:00:01Z', type: 'user', content: [{ text }] },
    ];
    expect(users(transcriptEvents('gemini', [...chat('g1', 'one'), ...chat('g2', 'two')], { sessionId: 'g1' }))).toEqual(['one']);
    // An older Gemini CLI session is one document under one id.
    const document = { sessionId: 'g3', projectHash: 'h', messages: [{ id: 'a', timestamp: '2026-11-26T10:00:00Z', type: 'user', content: 'old format' }] };
    expect(users(transcriptEvents('gemini', [document], { sessionId: 'g3' }))).toEqual(['old format']);
    expect(transcriptEvents('gemini', [document], { sessionId: 'g4' })).toEqual([]);
  });
});

describe('one model of file changes', () => {
  it('paths are relative to the session folder; files outside it (home, plans, temp, a sibling) are left out', () => {
    const lines = [
      claude.tool('a', 'Edit', { file_path: '/home/me/app/src/a.ts', old_string: 'x', new_string: 'y' }),
      claude.tool('b', 'Write', { file_path: '/home/me/.claude/plans/drifting.md', content: 'plan' }),
      claude.tool('c', 'Bash', { command: 'rm -f ./old.txt /tmp/scratch.log && echo done >> ../other/notes.md' }),
      claude.tool('d', 'Write', { file_path: 'C:\\Users\\me\\app\\b.ts', content: '' }),
    ];
    expect(files(transcriptEvents('claude', lines, { cwd: '/home/me/app' }))).toEqual([
      { path: 'src/a.ts', change: 'edited' },
      { path: 'old.txt', change: 'deleted' },
    ]);
    expect(files(transcriptEvents('claude', lines.slice(3), { cwd: 'C:\\Users\\me\\app' }))).toEqual([{ path: 'b.ts', change: 'created' }]);
    expect(files(transcriptEvents('claude', lines.slice(3), { cwd: 'c:\\Users\\me\\app' }))).toEqual([{ path: 'b.ts', change: 'created' }]);
    // Without a folder the paths stay as the tools named them.
    expect(files(transcriptEvents('claude', lines.slice(0, 1)))).toEqual([{ path: '/home/me/app/src/a.ts', change: 'edited' }]);
  });

  it('Codex: apply_patch run inside the shell tool, as real Codex sessions edit', () => {
    const heredoc = "applypatch << 'PATCH'\n*** Begin Patch\n*** Update File: go.mod\n@@\n-go 1.24.0\n+go 1.24\n*** Add File: docs/notes.md\n+hi\n*** Delete File: TODO.md\n*** End Patch\nPATCH";
    const events = transcriptEvents('codex', [
      codex.call('p1', 'shell', { command: ['bash', '-lc', heredoc] }),
      codex.output('p1', JSON.stringify({ output: 'Success. Updated the following files:\nM go.mod\n', metadata: { exit_code: 0 } })),
      codex.call('p2', 'exec_command', { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b\n*** End Patch\nEOF" }),
      codex.output('p2', 'Exit code: 0\nSuccess.'),
    ]);
    expect(files(events)).toEqual([
      { path: 'go.mod', change: 'edited' },
      { path: 'docs/notes.md', change: 'created' },
      { path: 'TODO.md', change: 'deleted' },
      { path: 'src/main.rs', change: 'edited' },
    ]);
  });

  it('Gemini CLI: a file written then removed with rm is gone, and one appended to with echo >> is edited', () => {
    const call = (id: string, name: string, args: Record<string, unknown>, result = 'ok') => ({ id, name, args, status: 'success', timestamp: '2026-11-26T10:00:00Z', result: [{ functionResponse: { id, name, response: { output: result } } }] });
    const message = { id: 'g1', timestamp: '2026-11-26T10:00:00Z', type: 'gemini', content: '', toolCalls: [
      call('w', 'write_file', { file_path: '/w/app/tmp.txt', content: 'x' }),
      call('r', 'run_shell_command', { command: 'rm tmp.txt' }),
      call('e', 'run_shell_command', { command: 'echo "- item" >> NOTES.md' }),
    ] };
    const thread = sessionThread(transcriptEvents('gemini', [message], { cwd: '/w/app' }));
    expect(thread.files).toEqual([{ path: 'NOTES.md', change: 'edited' }]);
  });

  it('Copilot CLI: the apply_patch tool', () => {
    const events = transcriptEvents('copilot', [
      { type: 'tool.execution_start', data: { toolCallId: 'x', toolName: 'apply_patch', arguments: '*** Begin Patch\n*** Add File: new.ts\n+x\n*** End Patch' }, id: '1', timestamp: '2026-11-26T10:00:00Z' },
    ]);
    expect(files(events)).toEqual([{ path: 'new.ts', change: 'created' }]);
  });

  it('shell commands: sed -i, mv, cp, >, >> outside quotes; a heredoc body is text', () => {
    expect(filesOfCommand("sed -i 's/a/b/' src/a.ts src/b.ts && sed -i.bak -e 's/x/y/' c.ts && sed -n '1,5p' d.ts")).toEqual([
      { path: 'src/a.ts', change: 'edited' },
      { path: 'src/b.ts', change: 'edited' },
      { path: 'c.ts', change: 'edited' },
    ]);
    // A `>` inside quotes writes nothing: real sessions commit with messages that say `a -> b`.
    expect(filesOfCommand('git add -A && git commit -m "feat: x\n\n- map a -> b\n- keep > 2"')).toEqual([]);
    expect(filesOfCommand('echo "a > b" > "out file.txt" 2>/dev/null && cat x 2>&1 >>log.txt')).toEqual([
      { path: 'out file.txt', change: 'edited' },
      { path: 'log.txt', change: 'edited' },
    ]);
    expect(filesOfCommand('mv old.ts new.ts; cp a.ts b.ts; printf x > out.txt')).toEqual([
      { path: 'old.ts', change: 'deleted' },
      { path: 'new.ts', change: 'created' },
      { path: 'b.ts', change: 'created' },
      { path: 'out.txt', change: 'edited' },
    ]);
  });
});

describe("another session's or another project's transcript", () => {
  it('is told apart by the session ids and working folders its lines name', () => {
    expect(foreignTranscript({ sessionIds: ['s1'], folders: ['/w/app'] }, { sessionId: 's1', project: '/w/app' })).toBeUndefined();
    expect(foreignTranscript({ sessionIds: ['s1'], folders: ['/w/app'] }, { sessionId: 's2', project: '/w/app' })).toBe("its lines are session s1's, not this session's (s2)");
    expect(foreignTranscript({ sessionIds: ['s1'], folders: ['/w/other'] }, { sessionId: 's1', project: '/w/app', folder: '/w/app/sub' })).toBe('it was written in /w/other, outside this project');
    // A subfolder of the project is inside it; a transcript that names nothing is read as handed.
    expect(foreignTranscript({ sessionIds: ['s1'], folders: ['/w/app/packages/ui'] }, { sessionId: 's1', project: '/w/app' })).toBeUndefined();
    expect(foreignTranscript({ sessionIds: [], folders: [] }, { sessionId: 's1', project: '/w/app' })).toBeUndefined();
  });

  it('compares folders whatever the slashes, a trailing one or a drive letter\'s case', () => {
    expect(sameOrInside('C:\\w\\app\\src', 'c:/w/app/')).toBe(true);
    expect(sameOrInside('/w/app', '/w/app/')).toBe(true);
    expect(sameOrInside('/w/application', '/w/app')).toBe(false);
  });
});
