// Agent hooks under faults, as an agent runs them: the built dist/cli.js, a stand-in CLI that
// misbehaves, a damaged ledger. Whatever happens, a hook answers valid output and exits 0 within
// its deadline, and leaves no process behind.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hook-faults-'));
const standinEnv = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };

beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function workspace(name: string): string {
  return makeWorkspace({ dir: path.join(scratch, name), dialect: 'br', data: 'scenario', git: true }).dir;
}

function sessionStart(dir: string, env: NodeJS.ProcessEnv) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [CLI_SCRIPT, 'context', '--format', 'claude-hook'], {
    cwd: dir,
    input: JSON.stringify({ session_id: 's', cwd: dir, hook_event_name: 'SessionStart', source: 'compact' }),
    env: { ...process.env, ...standinEnv, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const output = JSON.parse(result.stdout) as { hookSpecificOutput?: { hookEventName: string; additionalContext: string } };
  expect(output.hookSpecificOutput, `the hook answered ${result.stdout.trim()}; it said: ${result.stderr}`).toBeDefined();
  return { status: result.status, stderr: result.stderr, context: output.hookSpecificOutput?.additionalContext ?? '', elapsed: Date.now() - started };
}

describe('SessionStart hook under faults', { timeout: 60_000 }, () => {
  it('answers with the context and exit 0 when .git/beads-recovery/ledger.json is a directory', () => {
    const dir = workspace('ledger-dir');
    mkdirSync(path.join(dir, '.git', 'beads-recovery', 'ledger.json'), { recursive: true });
    const hook = sessionStart(dir, {});
    expect(hook.status).toBe(0);
    expect(hook.context).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress}`, 'm'));
    expect(hook.stderr).toMatch(/ledger could not be read.*EISDIR/);
  });

  it('answers from .beads/issues.jsonl within its deadline when the CLI hangs, and exits 0', () => {
    const dir = workspace('hang');
    const log = path.join(scratch, 'hang.log');
    // The deadline leaves the fallback its full 3 s: the unit suite runs beside the fault test's
    // busy loops, and with 0.6 s the reading of .beads sometimes missed it there. The CLI's
    // own timeout is far later, so only the deadline can have ended the wait: the bound on the time
    // (process start-up included) tells a hook that waited for the CLI from one that did not.
    const deadlineMs = 12_000;
    const hook = sessionStart(dir, { BEADS_STANDIN_FAULT: 'hang', BEADS_STANDIN_LOG: log, BEADS_RECOVERY_TIMEOUT_MS: '50000', BEADS_RECOVERY_HOOK_DEADLINE_MS: String(deadlineMs) });
    expect(hook.status).toBe(0);
    expect(hook.elapsed).toBeLessThan(deadlineMs + 5_000);
    // The read-only reading still knows the in-progress issue.
    expect(hook.context).toContain(SCENARIO.inProgress);
    expect(hook.stderr).toMatch(/ran out of time/);
    // The hung stand-in was killed (it logs its signal as it dies).
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { signal?: string });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.signal === 'SIGTERM')).toBe(true);
  });
});

describe.skipIf(process.platform === 'win32')('hooks and FIFOs', { timeout: 60_000 }, () => {
  // A FIFO with no writer blocks an ordinary open() for ever: the hook answered `{}` but never exited.
  const fifoAt = (file: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    rmSync(file, { force: true });
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
  };
  const hook = (dir: string, event: 'SessionStart' | 'PreCompact', env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', event], {
      cwd: dir,
      input: JSON.stringify({ session_id: 's', cwd: dir, hook_event_name: event, source: 'compact', trigger: 'auto' }),
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it.each([
    ['the issues file', '.beads/issues.jsonl', { PATH: path.dirname(process.execPath), BEADS_RECOVERY_CLI: 'br' }],
    ['the ledger', '.git/beads-recovery/ledger.json', standinEnv],
    ['the outbox', '.git/beads-recovery/outbox.json', standinEnv],
  ])('exits 0 with valid output when %s is a FIFO', (_name, relative, env) => {
    const dir = workspace(`fifo-${relative.replace(/\W/g, '-')}`);
    fifoAt(path.join(dir, relative));
    let said = '';
    for (const event of ['SessionStart', 'PreCompact'] as const) {
      const run = hook(dir, event, env);
      expect(run.signal, `${event} was still running after 20 s`).toBeNull();
      expect(run.status, run.stderr).toBe(0);
      // Claude Code's PreCompact answers with plain lines for its compaction prompt (or nothing), never a half-written JSON.
      if (event === 'PreCompact') expect(run.stdout.trim()).toMatch(/^$|^Beads recovery: /);
      else expect(() => JSON.parse(run.stdout) as unknown).not.toThrow();
      said += run.stdout + run.stderr;
    }
    // Said where it was read (SessionStart reads no outbox; PreCompact reads all three).
    expect(said).toMatch(/named pipe \(FIFO\), not a regular file/);
  });
});
