// What an agent waits for: a SessionStart hook (the recovery context) and a PreCompact hook with
// new work (a checkpoint written), each end to end through the built dist/cli.js as a new process,
// against the stand-in `br` slowed to 100 ms a call, side by side with a single call of that CLI.
// Prints p50 and p95, and for the PreCompact hook the beads and git processes each run started
// (the stand-in's call log and GIT_TRACE), asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

const RUNS = 12;
const CLI_DELAY_MS = 100;

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];
}

function timed(runs, prepare, command, args, options, after) {
  const times = [];
  for (let index = 0; index < runs; index++) {
    prepare?.(index);
    const started = performance.now();
    const result = spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 60_000 });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    after?.(index, result);
  }
  return times.sort((a, b) => a - b);
}

/** Lines in a file (0 when there is none), then the file emptied for the next run. */
function takeLines(file, pattern) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  writeFileSync(file, '');
  return text.split('\n').filter((line) => pattern.test(line)).length;
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
    // New work before every run, so each PreCompact hook writes a checkpoint comment; the processes
    // each run starts are counted from the stand-in's call log and git's trace.
    const callLog = path.join(dir, 'calls.jsonl');
    const gitTrace = path.join(dir, 'git.trace');
    const counted = { ...env, BEADS_STANDIN_LOG: callLog, GIT_TRACE: gitTrace };
    const preCompactRow = (storeCurrent) => {
      const processes = [];
      const times = timed(
        RUNS,
        (index) => {
          writeFileSync(path.join(workspace, `work-${storeCurrent ? 'c' : 'n'}-${index}.ts`), `export const step = ${index};\n`);
          // br rewrites issues.jsonl after every write: a database older than the file means the file is current.
          const database = path.join(workspace, '.beads', 'beads.db');
          if (storeCurrent) {
            writeFileSync(database, '');
            const earlier = new Date(Date.now() - 60_000);
            utimesSync(database, earlier, earlier);
          } else rmSync(database, { force: true });
          takeLines(callLog, /./);
          takeLines(gitTrace, /./);
        },
        process.execPath,
        [cli, 'hook', 'claude', 'PreCompact'],
        { ...options, env: counted, input: hookInput('PreCompact') },
        () => processes.push({ beads: takeLines(callLog, /"args"/), git: takeLines(gitTrace, /trace: built-in: git /) }),
      );
      const median = (key) => processes.map((run) => run[key]).sort((a, b) => a - b)[Math.floor(processes.length / 2)];
      return { times, beads: median('beads'), git: median('git') };
    };
    const preCompactCurrent = preCompactRow(true);
    const preCompactCli = preCompactRow(false);

    const row = (name, times, processes = '') => `${name.padEnd(52)} ${times.length.toString().padStart(4)} ${percentile(times, 0.5).toFixed(0).padStart(8)} ${percentile(times, 0.95).toFixed(0).padStart(8)}  ${processes}`;
    console.log(`stand-in br slowed to ${CLI_DELAY_MS} ms per call; new process per run`);
    console.log(`${'what'.padEnd(52)} ${'runs'.padStart(4)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}  processes per run`);
    console.log(row('single CLI call (br list)', single, '1 beads'));
    console.log(row('SessionStart hook (context)', sessionStart));
    const processes = (counts) => `${counts.beads} beads, ${counts.git} git`;
    console.log(row('PreCompact hook, new work, issues.jsonl current', preCompactCurrent.times, processes(preCompactCurrent)));
    console.log(row('PreCompact hook, new work, reads from the CLI', preCompactCli.times, processes(preCompactCli)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
