// Recovery-context speed (issue 11): every beads CLI call made to cost 250 ms (the stand-in's
// slow fault), then, side by side in one run, `beads-recovery context` as a hook runs it — cold
// (first run in the repository), warm, and over br's current issues.jsonl — against five
// sequential single calls (what the seed did), and the CLI processes and dependent steps of one
// context and one sidebar refresh, counted from the stand-in's call log.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BeadsBackend } from '../../src/beads/backend';
import { createCliBackend } from '../../src/beads/cliBackend';
import { detectProject } from '../../src/beads/detect';
import { DEFAULT_LIMITS } from '../../src/core/viewModel';
import { loadSnapshot, type ProjectSnapshot } from '../../src/services/snapshot';
import { makeWorkspace, SCENARIO } from '../../test/fixtures/make-workspace.mjs';
import { describeCalls, dependentSteps, readCalls, type CallRecord } from './callLog';

const CALL_MS = 250;

interface Timed {
  ms: number;
  calls: CallRecord[];
}
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
    const timed = (run: () => void): Timed => {
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
    // What one run leaves for the next (the last context's ids); gone, the next run is a first one.
    const forget = () => rmSync(path.join(dir, '.git', 'beads-recovery', 'project-cache.json'), { force: true });
    const coldContext = () => {
      forget();
      context();
    };

    const rows: { five: number; warm: Timed; cold: Timed }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const five = timed(sequential);
      const cold = timed(coldContext);
      const warm = timed(context);
      rows.push({ five: five.ms, warm, cold });
    }
    const five = median(rows.map((row) => row.five));
    console.log(`stand-in br, every call slowed by ${CALL_MS} ms; scenario workspace, ${SCENARIO.inProgress} in progress; median of ${RUNS}, alternating`);
    console.log(`five sequential single calls: ${five.toFixed(0)} ms`);
    const report = (label: string, runs: Timed[]) => {
      const ms = median(runs.map((run) => run.ms));
      const last = runs[runs.length - 1]!;
      console.log(`beads-recovery context (${label}): ${ms.toFixed(0)} ms — ratio ${(ms / five).toFixed(2)} (goal ≤ 0.5)`);
      console.log(`  CLI processes ${last.calls.length}, dependent steps ${dependentSteps(last.calls)}${last.calls.length > 0 ? `: ${describeCalls(last.calls)}` : ''}`);
    };
    report('cold: first run in the repository, no database beside issues.jsonl so the CLI answers', rows.map((row) => row.cold));
    report('warm: the last context\'s ids remembered', rows.map((row) => row.warm));

    // br's own layout: a database the JSONL was flushed after (as br does after every write), so
    // the file is current and read directly.
    const database = path.join(dir, '.beads', 'beads.db');
    writeFileSync(database, '');
    const flushed = new Date();
    utimesSync(database, new Date(flushed.getTime() - 1000), new Date(flushed.getTime() - 1000));
    utimesSync(path.join(dir, '.beads', 'issues.jsonl'), flushed, flushed);
    const direct = Array.from({ length: RUNS }, () => timed(coldContext));
    report('cold, br with issues.jsonl current: read from the file', direct);

    // One sidebar refresh: the snapshot alone (git status runs beside it and is not a beads call).
    const standinEnv = { BEADS_STANDIN_FAULT: `slow:${CALL_MS}`, BEADS_STANDIN_LOG: logFile };
    const refreshes = async (what: string, backend: BeadsBackend) => {
      const options = { focusedId: SCENARIO.inProgress, alwaysReady: true, readyDetails: DEFAULT_LIMITS.ready, ancestors: true };
      let previous: ProjectSnapshot | undefined;
      for (const label of ['first (no hints)', 'next (hints from the last)', 'settled']) {
        rmSync(logFile, { force: true });
        const started = performance.now();
        previous = await loadSnapshot(backend, { ...options, hints: previous?.contextIds });
        const ms = performance.now() - started;
        const calls = readCalls(logFile);
        const described = calls.length > 0 ? `: ${describeCalls(calls)}` : '';
        console.log(`sidebar refresh${what}, ${label}: ${ms.toFixed(0)} ms, CLI processes ${calls.length}, dependent steps ${dependentSteps(calls)}${previous.incomplete ? ', asks for one more refresh' : ''}${described}`);
      }
    };
    // The extension's backend for a br project (its one `where` at detection is not a refresh's).
    const detection = await detectProject(dir, { trusted: true, timeoutMs: 60_000, pathEnv: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, preferred: 'br', env: standinEnv });
    if (detection.kind !== 'cli') throw new Error(`expected the stand-in br to serve ${dir}`);
    await refreshes(' (br, issues.jsonl current)', detection.backend);
    rmSync(database);
    await refreshes(' (CLI)', createCliBackend({ dialect: 'br', command: br, root: dir, timeoutMs: 60_000, env: standinEnv }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
