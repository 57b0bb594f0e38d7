// How the PreCompact hook reaches the checkpoint: the checkpoint flow called as a function under
// the hook's own signal and deadline (no command-line parser, no second guard with a fresh
// deadline), so a hung CLI is ended when the hook answers, and its lines carry one prefix.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCalls } from '../../../scripts/bench/callLog';
import { runHook } from '../../../src/bin/hook';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'hook-checkpoint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function preCompact(dir: string, env: NodeJS.ProcessEnv) {
  const notes: string[] = [];
  const input = { event: 'PreCompact', cwd: dir, session: 's1' };
  const run = runHook('claude', 'PreCompact', { readInput: async () => input, env: { ...process.env, ...env }, note: (line) => notes.push(line) });
  return { run, notes };
}

describe.skipIf(process.platform === 'win32')('the PreCompact hook and the checkpoint flow', { timeout: 30_000 }, () => {
  it('writes the checkpoint and says so in one line with one prefix', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'plain'), dialect: 'br', data: 'scenario', git: true }).dir;
    writeFileSync(path.join(dir, 'work.ts'), 'export {};\n');
    const { run, notes } = preCompact(dir, { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' });
    // What Claude Code puts into its compaction prompt: the issue, in plain words.
    expect(await run).toMatch(new RegExp(`^Beads recovery: .*\nThe beads issue in progress is ${SCENARIO.inProgress}:`));
    expect(notes).toContainEqual(expect.stringMatching(new RegExp(`^checkpoint written on ${SCENARIO.inProgress}: Auto-checkpoint \\(pre-compaction\\)`)));
    // The hook's note adds "beads-recovery: " itself; nothing it is given carries one already.
    expect(notes.filter((line) => line.startsWith('beads-recovery:'))).toEqual([]);
  });

  it('ends a hung CLI when the hook answers, not at a fresh deadline of its own', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'hang'), dialect: 'br', data: 'scenario', git: true }).dir;
    writeFileSync(path.join(dir, 'work.ts'), 'export {};\n');
    const log = path.join(scratch, 'hang.jsonl');
    const deadlineMs = 8_000;
    const started = Date.now();
    const { run } = preCompact(dir, {
      PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
      BEADS_RECOVERY_CLI: 'br',
      BEADS_STANDIN_FAULT: 'hang',
      BEADS_STANDIN_LOG: log,
      BEADS_RECOVERY_TIMEOUT_MS: '60000',
      BEADS_RECOVERY_HOOK_DEADLINE_MS: String(deadlineMs),
    });
    expect(await run).toBe('{}');
    // Process start-up included, and well before a second full deadline.
    expect(Date.now() - started).toBeLessThan(deadlineMs + 5_000);
    // A hung stand-in logs its signal as it dies: the hook's own abort ended it, a moment after
    // the answer, long before a second full deadline would have.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const calls = readCalls(log);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => (call as { signal?: string }).signal === 'SIGTERM')).toBe(true);
  });
});

/** The git commands a run started, from GIT_TRACE (one `built-in: git …` line per process). */
function gitCommands(traceFile: string): string[] {
  let text: string;
  try {
    text = readFileSync(traceFile, 'utf8');
  } catch {
    return [];
  }
  return [...text.matchAll(/trace: built-in: (git .*)$/gm)].map((match) => match[1] as string);
}

describe.skipIf(process.platform === 'win32')('processes a PreCompact hook and a context start (issue 18, item 11)', { timeout: 60_000 }, () => {
  beforeAll(() => ensureCliBuilt(), 120_000);

  /** A br workspace whose issues.jsonl is current (br rewrote it after its last write), so reads need no process. */
  function currentWorkspace(name: string): string {
    const dir = makeWorkspace({ dir: path.join(scratch, name), dialect: 'br', data: 'scenario', git: true }).dir;
    const database = path.join(dir, '.beads', 'beads.db');
    writeFileSync(database, '');
    const earlier = new Date(Date.now() - 60_000);
    utimesSync(database, earlier, earlier);
    return dir;
  }

  function run(dir: string, args: string[], input: object, name: string) {
    const log = path.join(scratch, `${name}.calls.jsonl`);
    const trace = path.join(scratch, `${name}.git.trace`);
    const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], {
      cwd: dir,
      input: JSON.stringify(input),
      env: { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_STANDIN_LOG: log, GIT_TRACE: trace },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { result, beads: readCalls(log).map((call) => call.args.slice(0, 2).join(' ')), git: gitCommands(trace) };
  }

  it('PreCompact runs one beads process, the write (no `where`), and no git command twice', () => {
    const dir = currentWorkspace('count-precompact');
    writeFileSync(path.join(dir, 'work.ts'), 'export {};\n');
    const { result, beads, git } = run(dir, ['hook', 'claude', 'PreCompact'], { session_id: 's', cwd: dir, hook_event_name: 'PreCompact', trigger: 'auto' }, 'precompact');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/checkpoint written on demo-1/);
    expect(beads).toEqual(['comments add']);
    expect(new Set(git).size, git.join('\n')).toBe(git.length);
    expect(git.length, git.join('\n')).toBeLessThanOrEqual(3);
  });

  it('a context runs at most two git processes, none repeated', () => {
    const dir = currentWorkspace('count-context');
    const { result, git } = run(dir, ['context'], {}, 'context');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/## Resuming: demo-1/);
    expect(new Set(git).size, git.join('\n')).toBe(git.length);
    expect(git.length, git.join('\n')).toBeLessThanOrEqual(2);
  });
});
