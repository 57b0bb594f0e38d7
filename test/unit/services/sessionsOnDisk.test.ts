// The sessions the agents keep on disk for a folder, read only to show them: Claude Code's
// project transcripts and Codex rollouts whose session ran in the folder, changed within the idle
// time, with the compactions their ends show. Another folder's sessions are not listed.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeProjectSlug, sessionsOnDisk } from '../../../src/services/sessionsOnDisk';

const home = mkdtempSync(path.join(tmpdir(), 'beads-sessions-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const folder = path.join(home, 'work', 'my.project');
const now = Date.now();
const line = (record: unknown) => `${JSON.stringify(record)}\n`;

function write(file: string, text: string, ageMinutes = 0): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  const at = (now - ageMinutes * 60_000) / 1000;
  utimesSync(file, at, at);
}

describe('sessionsOnDisk', () => {
  it("finds Claude Code's and Codex's sessions of the folder, with their compactions", async () => {
    const claudeDir = path.join(home, '.claude', 'projects', claudeProjectSlug(folder));
    write(path.join(claudeDir, 'aaaa-1111.jsonl'), line({ type: 'user', timestamp: new Date(now).toISOString(), message: { role: 'user', content: 'hi' } }) + line({ type: 'system', subtype: 'compact_boundary', timestamp: new Date(now).toISOString(), compactMetadata: { trigger: 'manual' } }), 2);
    write(path.join(claudeDir, 'old.jsonl'), line({ type: 'user', message: { content: 'x' } }), 24 * 60);
    const day = new Date(now);
    const codexDir = path.join(home, '.codex', 'sessions', String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, '0'), String(day.getDate()).padStart(2, '0'));
    write(path.join(codexDir, 'rollout-2026-x-codex-1.jsonl'), line({ timestamp: new Date(now).toISOString(), type: 'session_meta', payload: { id: 'codex-1', cwd: folder } }), 5);
    write(path.join(codexDir, 'rollout-2026-y-codex-2.jsonl'), line({ timestamp: new Date(now).toISOString(), type: 'session_meta', payload: { id: 'codex-2', cwd: path.join(home, 'elsewhere') } }), 5);

    const found = await sessionsOnDisk(folder, { now, idleMs: 12 * 60 * 60_000, home, env: {} });
    expect(found.map(({ agent, sessionId, compactions, turnEndedAt }) => ({ agent, sessionId, compactions, turnEndedAt }))).toEqual([
      { agent: 'claude', sessionId: 'aaaa-1111', compactions: 1, turnEndedAt: undefined },
      { agent: 'codex', sessionId: 'codex-1', compactions: 0, turnEndedAt: undefined },
    ]);
  });

  it("says when a session's last turn ended: its transcript's last record hands the prompt back", async () => {
    const other = path.join(home, 'work', 'waiting');
    const claudeDir = path.join(home, '.claude', 'projects', claudeProjectSlug(other));
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
    write(path.join(claudeDir, 'answered.jsonl'), line({ type: 'user', timestamp: at(3), message: { role: 'user', content: 'fix it' } }) + line({ type: 'assistant', timestamp: at(2), message: { role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Fixed; 10 tests pass.' }] } }), 2);
    write(path.join(claudeDir, 'running.jsonl'), line({ type: 'user', timestamp: at(3), message: { role: 'user', content: 'fix it' } }) + line({ type: 'assistant', timestamp: at(2), message: { role: 'assistant', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } }), 2);
    const found = await sessionsOnDisk(other, { now, idleMs: 60 * 60_000, home, env: {} });
    expect(Object.fromEntries(found.map((session) => [session.sessionId, session.turnEndedAt]))).toEqual({ answered: Date.parse(at(2)), running: undefined });
  });

  it('says nothing (and does not fail) where the agents keep nothing', async () => {
    expect(await sessionsOnDisk(path.join(home, 'nothing-here'), { now, idleMs: 60_000, home: path.join(home, 'no-home'), env: {} })).toEqual([]);
  });
});
