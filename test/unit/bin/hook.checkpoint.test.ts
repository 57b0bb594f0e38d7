// How the PreCompact hook reaches the checkpoint: the checkpoint flow called as a function under
// the hook's own signal and deadline (no command-line parser, no second guard with a fresh
// deadline), so a hung CLI is ended when the hook answers, and its lines carry one prefix.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCalls } from '../../../scripts/bench/callLog';
import { runHook } from '../../../src/bin/hook';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';

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
    expect(await run).toBe('{}');
    expect(notes).toContainEqual(expect.stringMatching(new RegExp(`^checkpoint written on ${SCENARIO.inProgress}: Auto-checkpoint \\(pre-compaction\\)`)));
    // The hook's note adds "beads-recovery: " itself; nothing it is given carries one already.
    expect(notes.filter((line) => line.startsWith('beads-recovery:'))).toEqual([]);
  });

  it('ends a hung CLI when the hook answers, not at a fresh deadline of its own', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'hang'), dialect: 'br', data: 'scenario', git: true }).dir;
    writeFileSync(path.join(dir, 'work.ts'), 'export {};\n');
    const log = path.join(scratch, 'hang.jsonl');
    const deadlineMs = 4_000;
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
    expect(Date.now() - started).toBeLessThan(deadlineMs + 1_000);
    // A hung stand-in logs its signal as it dies: the hook's own abort ended it, a moment after
    // the answer, long before a second full deadline would have.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const calls = readCalls(log);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => (call as { signal?: string }).signal === 'SIGTERM')).toBe(true);
  });
});
