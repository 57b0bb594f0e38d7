// Recovery-context speed (issue 11): every beads CLI call made to cost 250 ms (the stand-in's
// slow fault), then, side by side in one run, `beads-recovery context` as a hook runs it against
// five sequential single calls (what the seed did), and the CLI processes and dependent steps of
// one context and one sidebar refresh, counted from the stand-in's call log.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCliBackend } from '../../src/beads/cliBackend';
import { DEFAULT_LIMITS } from '../../src/core/viewModel';
import { loadSnapshot, type ProjectSnapshot } from '../../src/services/snapshot';
import { makeWorkspace, SCENARIO } from '../../test/fixtures/make-workspace.mjs';
import { describeCalls, dependentSteps, readCalls, type CallRecord } from './callLog';

const CALL_MS = 250;
const RUNS = 3;

export async function benchRecoveryContextSpeed({ repo }: { repo: string }): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'beads-bench-context-'));
  const logFile = path.join(dir, 'calls.log');
  const bin = path.join(repo, 'test/fixtures/bin');
  const br = path.join(bin, 'br');
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_STANDIN_FAULT: `slow:${CALL_MS}`, BEADS_STANDIN_LOG: logFile };
  try {
    await makeWorkspace({ dir, dialect: 'br', data: 'scenario', git: true });
    const cli = path.join(repo, 'dist/cli.js');
    const timed = (run: () => void): { ms: number; calls: CallRecord[] } => {
      rmSync(logFile, { force: true });
      const started = performance.now();
      run();
      return { ms: performance.now() - started, calls: readCalls(logFile) };
    };
    // The seed: where, the in-progress list, show of the focus, show of its dependents, the ready list — one after another.
    const single = (args: string[]) => execFileSync(br, args, { cwd: dir, env, stdio: 'pipe' });
    const sequential = () => {
      single(['where', '--json']);
      single(['list', '-s', 'in_progress', '--json', '--limit', '0']);
      single(['show', '--json', SCENARIO.inProgress]);
      single(['show', '--json', 'demo-5', 'demo-6']);
      single(['ready', '--json', '--limit', '0']);
    };
    const context = () => execFileSync(process.execPath, [cli, 'context'], { cwd: dir, env, stdio: 'pipe' });

    const cold = timed(context);
    const rows: { five: number; context: number; calls: CallRecord[] }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const five = timed(sequential);
      const warm = timed(context);
      rows.push({ five: five.ms, context: warm.ms, calls: warm.calls });
    }
    const five = median(rows.map((row) => row.five));
    const warm = median(rows.map((row) => row.context));
    const last = rows[rows.length - 1]!;
    console.log(`stand-in br, every call slowed by ${CALL_MS} ms; scenario workspace, ${SCENARIO.inProgress} in progress; median of ${RUNS}, alternating`);
    console.log(`five sequential single calls: ${five.toFixed(0)} ms`);
    console.log(`beads-recovery context (warm: where and the last context's ids remembered): ${warm.toFixed(0)} ms — ratio ${(warm / five).toFixed(2)} (goal ≤ 0.5)`);
    console.log(`  CLI processes ${last.calls.length}, dependent steps ${dependentSteps(last.calls)}: ${describeCalls(last.calls)}`);
    console.log(`beads-recovery context (cold: first run in the repository): ${cold.ms.toFixed(0)} ms — ratio ${(cold.ms / five).toFixed(2)}`);
    console.log(`  CLI processes ${cold.calls.length}, dependent steps ${dependentSteps(cold.calls)}: ${describeCalls(cold.calls)}`);

    // One sidebar refresh: the snapshot alone (git status runs beside it and is not a beads call).
    const backend = createCliBackend({ dialect: 'br', command: br, root: dir, timeoutMs: 60_000, env: { BEADS_STANDIN_FAULT: `slow:${CALL_MS}`, BEADS_STANDIN_LOG: logFile } });
    const options = { focusedId: SCENARIO.inProgress, alwaysReady: true, readyDetails: DEFAULT_LIMITS.ready, ancestors: true };
    let previous: ProjectSnapshot | undefined;
    for (const label of ['first (no hints)', 'next (hints from the last)', 'settled']) {
      rmSync(logFile, { force: true });
      const started = performance.now();
      previous = await loadSnapshot(backend, { ...options, hints: previous?.contextIds });
      const ms = performance.now() - started;
      const calls = readCalls(logFile);
      console.log(`sidebar refresh, ${label}: ${ms.toFixed(0)} ms, CLI processes ${calls.length}, dependent steps ${dependentSteps(calls)}${previous.incomplete ? ', asks for one more refresh' : ''}: ${describeCalls(calls)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
