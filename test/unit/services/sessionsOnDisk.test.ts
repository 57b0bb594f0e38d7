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
    expect(found.map(({ agent, sessionId, compactions }) => ({ agent, sessionId, compactions }))).toEqual([
      { agent: 'claude', sessionId: 'aaaa-1111', compactions: 1 },
      { agent: 'codex', sessionId: 'codex-1', compactions: 0 },
    ]);
  });

  it('says nothing (and does not fail) where the agents keep nothing', async () => {
    expect(await sessionsOnDisk(path.join(home, 'nothing-here'), { now, idleMs: 60_000, home: path.join(home, 'no-home'), env: {} })).toEqual([]);
  });
});
