// Where the session's thread goes (issue 29, item 4; README "Where the thread goes"): into the
// pre-compaction checkpoint's beads comment (`beads`), kept on this machine only and shown in its
// contexts (`local`), or nowhere, the transcript not read for it (`off`). Chosen by the setting
// VS Code writes beside the sessions, or BEADS_RECOVERY_THREAD for the hooks and the command line;
// applied in the one checkpoint flow. The hooks run as the agents run them, against the stand-in br.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryContextFor } from '../../../src/bin/context';
import { runHook } from '../../../src/bin/hook';
import { emptyAgentSessions, withSessionSettings } from '../../../src/core/agentSessions';
import type { ThreadDestination } from '../../../src/core/threadDestination';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'thread-destination-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeAll(() => ensureCliBuilt(), 120_000);
const baseEnv = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_RECOVERY_THREAD: '' };
const SESSION = '9b6e54c6-81b3-4370-a287-524b3aa700c6';
const RECORDED = path.join(__dirname, '..', '..', 'fixtures', 'transcripts', 'claude', 'nested-keys.jsonl');
/** The thread's own words in the recorded session: its request and the test that failed. */
const THREAD_LINE = /^\s*- Request: RESUME go on/m;

/** A workspace with one edit since the claim (so a comment is due whatever the thread does) and the session's own transcript. */
function workspace(name: string): { dir: string; transcript: string } {
  const dir = makeWorkspace({ dir: path.join(scratch, name), dialect: 'br', data: 'scenario', git: true }).dir;
  writeFileSync(path.join(dir, 'work.ts'), 'export {};\n');
  const transcript = path.join(scratch, `${name}.jsonl`);
  writeFileSync(transcript, readFileSync(RECORDED, 'utf8').split('/project').join(JSON.stringify(dir).slice(1, -1)));
  return { dir, transcript };
}

/** What VS Code writes beside the ledger when the setting changes (src/adapters/agentSessions.ts). */
function settingWritten(dir: string, threadDestination: ThreadDestination): void {
  const file = path.join(dir, '.git', 'beads-recovery', 'sessions.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(withSessionSettings(emptyAgentSessions(), { idleMinutes: 720, threadDestination })));
}

async function hook(event: 'PreCompact' | 'SessionStart', dir: string, transcript: string, env: NodeJS.ProcessEnv = {}) {
  const notes: string[] = [];
  const input = { event, cwd: dir, session: SESSION, transcript, ...(event === 'SessionStart' ? { source: 'compact' } : {}) };
  const stdout = await runHook('claude', event, { readInput: async () => input, env: { ...baseEnv, ...env }, note: (line) => notes.push(line) });
  return { stdout, notes: notes.join('\n') };
}

function comments(dir: string): string[] {
  const record = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] })
    .find((issue) => issue.id === SCENARIO.inProgress);
  return (record?.comments ?? []).map((comment) => comment.text).filter((text) => text.startsWith('Auto-checkpoint (pre-compaction)'));
}

const keptFile = (dir: string) => path.join(dir, '.git', 'beads-recovery', 'threads.json');

describe.skipIf(process.platform === 'win32')('beadsRecovery.thread.destination', { timeout: 120_000 }, () => {
  it('beads (the default): the pre-compaction comment carries the thread, nothing is kept apart', async () => {
    const { dir, transcript } = workspace('beads');
    await hook('PreCompact', dir, transcript);
    expect(comments(dir)).toHaveLength(1);
    expect(comments(dir)[0]).toMatch(THREAD_LINE);
    expect(existsSync(keptFile(dir))).toBe(false);
  });

  it("local, as VS Code's setting wrote it: beads gets the files alone; this machine keeps the thread and its contexts show it", async () => {
    const { dir, transcript } = workspace('local');
    settingWritten(dir, 'local');
    const { notes } = await hook('PreCompact', dir, transcript);
    expect(notes).toContain('kept on this machine only (beadsRecovery.thread.destination: local)');
    const [shared] = comments(dir);
    expect(shared).toContain('work.ts');
    expect(shared).not.toMatch(THREAD_LINE);
    expect(readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8')).not.toContain('RESUME go on');
    // Kept beside the ledger, in the git directory, which no one commits.
    const kept = JSON.parse(readFileSync(keptFile(dir), 'utf8')) as { threads: { issueId: string; full: string; shared?: string }[] };
    expect(kept.threads).toHaveLength(1);
    expect(kept.threads[0]).toMatchObject({ issueId: SCENARIO.inProgress, shared });
    expect(kept.threads[0]?.full).toMatch(THREAD_LINE);
    // A new session on this machine (no thread of its own) reads the checkpoint as it was, thread included.
    const context = await recoveryContextFor(dir, { env: baseEnv, budget: 16_000 });
    expect(context.markdown).toContain('### Latest Checkpoint');
    expect(context.markdown).toMatch(THREAD_LINE);
    // Another machine has beads alone: the same context without this machine's threads.
    rmSync(keptFile(dir));
    expect((await recoveryContextFor(dir, { env: baseEnv, budget: 16_000 })).markdown).not.toMatch(THREAD_LINE);
  });

  it('local with only the thread new: no second comment in beads, the thread still kept on this machine', async () => {
    const { dir, transcript } = workspace('local-only-thread');
    await hook('PreCompact', dir, transcript, { BEADS_RECOVERY_THREAD: 'local' });
    rmSync(keptFile(dir));
    const { notes } = await hook('PreCompact', dir, transcript, { BEADS_RECOVERY_THREAD: 'local' });
    expect(notes).toMatch(/nothing new on .*; no checkpoint written\. The session's thread was kept on this machine only/);
    expect(comments(dir)).toHaveLength(1);
    const kept = JSON.parse(readFileSync(keptFile(dir), 'utf8')) as { threads: { full: string; shared?: string }[] };
    expect(kept.threads).toHaveLength(1);
    expect(kept.threads[0]?.shared).toBeUndefined();
    expect(kept.threads[0]?.full).toMatch(THREAD_LINE);
    expect((await recoveryContextFor(dir, { env: baseEnv, budget: 16_000 })).markdown).toMatch(THREAD_LINE);
  });

  it('off, by BEADS_RECOVERY_THREAD over a setting of beads: the transcript is not read for it; no comment, prompt or context carries it', async () => {
    const { dir, transcript } = workspace('off');
    settingWritten(dir, 'beads');
    const compact = await hook('PreCompact', dir, transcript, { BEADS_RECOVERY_THREAD: 'off' });
    expect(compact.notes).toContain("the session's thread is off (beadsRecovery.thread.destination): its transcript was not read for it.");
    expect(compact.stdout).not.toContain('RESUME go on');
    expect(comments(dir)).toHaveLength(1);
    expect(comments(dir)[0]).not.toMatch(THREAD_LINE);
    expect(existsSync(keptFile(dir))).toBe(false);
    const start = await hook('SessionStart', dir, transcript, { BEADS_RECOVERY_THREAD: 'off' });
    expect(start.stdout).toContain(SCENARIO.inProgress);
    expect(start.stdout).not.toContain("This Session's Thread");
    expect(start.stdout).not.toContain('RESUME go on');
  });

  it('off as the setting VS Code wrote; a BEADS_RECOVERY_THREAD that names no destination is said and not used', async () => {
    const { dir, transcript } = workspace('off-setting');
    settingWritten(dir, 'off');
    const { notes } = await hook('PreCompact', dir, transcript, { BEADS_RECOVERY_THREAD: 'nowhere' });
    expect(notes).toContain('BEADS_RECOVERY_THREAD="nowhere" is not one of beads, local, off; it is not used.');
    expect(notes).toContain('its transcript was not read for it');
    expect(comments(dir)[0]).not.toMatch(THREAD_LINE);
  });

  it('the built command line honours BEADS_RECOVERY_THREAD as a hook runs it', () => {
    const { dir, transcript } = workspace('cli');
    const input = { session_id: SESSION, transcript_path: transcript, cwd: dir, hook_event_name: 'PreCompact', trigger: 'auto' };
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', 'PreCompact'], { cwd: dir, env: { ...baseEnv, BEADS_RECOVERY_THREAD: 'local' }, input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('kept on this machine only');
    expect(comments(dir)[0]).not.toMatch(THREAD_LINE);
    expect(readFileSync(keptFile(dir), 'utf8')).toContain('RESUME go on');
  });
});
