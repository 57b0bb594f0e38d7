// A session's attributed work comes from its own lines of its transcript only (issue 26 item 5):
// Claude Code writes a resumed conversation's earlier lines, under the earlier session id, into the
// new session's file; those edits are the earlier session's, not this one's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentSessionsStore, observeSession } from '../../../src/services/agentSessions';
import { claude, jsonl } from '../support/transcriptLines';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-own-lines-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a session's work, from its own lines", () => {
  it('edits the file shows under an earlier session id are not counted as this session\'s', async () => {
    const root = path.join(scratch, 'repo');
    const line = <T extends object>(record: T, sessionId: string) => ({ ...record, sessionId, cwd: root, timestamp: new Date().toISOString() });
    const transcript = path.join(scratch, 'resumed.jsonl');
    writeFileSync(
      transcript,
      jsonl([
        line(claude.tool('t1', 'Edit', { file_path: path.join(root, 'go.mod'), old_string: 'a', new_string: 'b' }), 'earlier'),
        line(claude.result('t1', 'ok'), 'earlier'),
        line(claude.tool('t2', 'Write', { file_path: path.join(root, 'guide.md'), content: 'x' }), 'resumed'),
        line(claude.result('t2', 'File created'), 'resumed'),
      ]),
    );
    const store = new AgentSessionsStore({ file: path.join(scratch, 'sessions.json'), root });
    const state = await observeSession(store, { agent: 'claude', sessionId: 'resumed', transcript }, { now: Date.now() });
    expect(Object.keys(state.sessions['claude:resumed']?.files ?? {})).toEqual(['guide.md']);
  });
});
