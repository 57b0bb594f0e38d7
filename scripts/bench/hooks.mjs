// What an agent waits for: a SessionStart hook (the recovery context) and a PreCompact hook with
// new work (a checkpoint written), each end to end through the built dist/cli.js as a new process,
// against the stand-in `br` slowed to 100 ms a call, side by side with a single call of that CLI.
// Prints p50 and p95, asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

const RUNS = 12;
const CLI_DELAY_MS = 100;

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];
}

function timed(runs, prepare, command, args, options) {
  const times = [];
  for (let index = 0; index < runs; index++) {
    prepare?.(index);
    const started = performance.now();
    const result = spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 60_000 });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return times.sort((a, b) => a - b);
}

export async function benchHooks({ repo }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hooks-'));
  try {
    const workspace = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = {
      ...process.env,
      PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
      BEADS_RECOVERY_CLI: 'br',
      BEADS_STANDIN_FAULT: `slow:${CLI_DELAY_MS}`,
    };
    const cli = path.join(repo, 'dist', 'cli.js');
    const hookInput = (event) => JSON.stringify({ session_id: 'bench', cwd: workspace, hook_event_name: event, ...(event === 'PreCompact' ? { trigger: 'auto' } : { source: 'compact' }) });
    const options = { cwd: workspace, env };

    const single = timed(RUNS, undefined, path.join(STANDIN_BIN_DIR, 'br'), ['list', '-s', 'in_progress', '--json'], options);
    const sessionStart = timed(RUNS, undefined, process.execPath, [cli, 'context', '--format', 'claude-hook'], { ...options, input: hookInput('SessionStart') });
    // New work before every run, so each PreCompact hook writes a checkpoint comment.
    const preCompact = timed(
      RUNS,
      (index) => writeFileSync(path.join(workspace, `work-${index}.ts`), `export const step = ${index};\n`),
      process.execPath,
      [cli, 'checkpoint', '--auto', '--pre-compact'],
      { ...options, input: hookInput('PreCompact') },
    );

    const row = (name, times) => `${name.padEnd(40)} ${times.length.toString().padStart(4)} ${percentile(times, 0.5).toFixed(0).padStart(8)} ${percentile(times, 0.95).toFixed(0).padStart(8)}`;
    console.log(`stand-in br slowed to ${CLI_DELAY_MS} ms per call; new process per run`);
    console.log(`${'what'.padEnd(40)} ${'runs'.padStart(4)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
    console.log(row('single CLI call (br list)', single));
    console.log(row('SessionStart hook (context)', sessionStart));
    console.log(row('PreCompact hook, new work (checkpoint)', preCompact));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
