// The SessionStart hook process's own start-up, side by side with a bare `node -e 0`: paired runs
// (one of each, alternately, so a busy machine slows both alike), medians and their ratio, and the
// processes one hook start runs (counted in one more, untimed, run). Outside a beads project (the
// hook must answer `{}` and cost little more than node itself); in a br project whose issues.jsonl
// is current (br's database beside it is older: br has written its store last), where the hook
// reads the export and starts no br; and in the same project with no database yet (a fresh clone),
// where the hook asks br. The br here is the stand-in, a Node script: its line below shows what one
// of its processes costs against a bare node start (the real br is a native binary that starts in
// milliseconds), so the last row's excess over the middle one is mostly the stand-in's own start.
// Then what one start costs part by part, in both br stores (scripts/bench/startupTrace.cjs notes
// when each part happens): whether the start cache answered alone, node's own start, the entry
// until the first bundle loads, the loads (the start bundle, and the work bundle when the cache
// did not answer), the work before the first process, the git and beads processes, the work after them until the
// answer (with its fsyncs and locks), and what runs after the answer.
// The agent's own launch-to-first-request cost is the real-agent bench (scripts/bench/agents.ts).
// Prints, asserts nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

const PAIRS = 15;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function run(args, options) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { ...options, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms: performance.now() - started, stdout: result.stdout };
}

const TRACED_RUNS = 9;

/** One start, part by part (medians of TRACED_RUNS traced runs per scenario, in ms). */
function printBreakdown(scenarios, { dir, repo, hookRun }) {
  const traces = scenarios.map(([, folder, prepare]) => {
    prepare();
    return Array.from({ length: TRACED_RUNS }, () => {
      const log = path.join(dir, `trace-${Math.random()}`);
      hookRun(folder, { NODE_OPTIONS: `--require ${path.join(repo, 'scripts', 'bench', 'startupTrace.cjs')}`, BENCH_TRACE_LOG: log });
      return partsOf(JSON.parse(readFileSync(log, 'utf8')));
    });
  });
  const names = Object.keys(traces[0][0]);
  console.log(`\n${'one start, part by part (median ms)'.padEnd(52)} ${scenarios.map(([name]) => name.replace('br project, ', '').padStart(22)).join(' ')}`);
  for (const part of names) {
    const cells = traces.map((runs) => {
      const values = runs.map((run) => run[part]);
      return (typeof values[0] === 'number' ? median(values).toFixed(/count|1 = yes/.test(part) ? 0 : 1) : values[0]).padStart(22);
    });
    console.log(`${part.padEnd(52)} ${cells.join(' ')}`);
  }
}

/** The parts of one traced start (startupTrace.cjs), each in ms, in the order they happen. */
function partsOf(trace) {
  const load = trace.load[0] ?? { start: trace.preload, end: trace.preload };
  const processes = trace.processes.filter((entry) => entry.end !== undefined);
  const firstStart = Math.min(...processes.map((entry) => entry.start), trace.answer);
  const lastEnd = Math.max(...processes.map((entry) => entry.end), firstStart);
  const loading = trace.load.reduce((sum, entry) => sum + entry.end - entry.start, 0);
  return {
    // One bundle loaded: the start from the cache answered (dist/hookStart.js); two: it missed and the whole hook (dist/hookWork.js) answered.
    'answered from the start cache alone (1 = yes)': trace.load.length === 1 ? 1 : 0,
    'node itself, until the hook begins': trace.preload,
    'entry, stdin, the beads folder found, until the load': load.start - trace.preload,
    'loading the bundles (code cache)': loading,
    'work before the first process': firstStart - load.end,
    [`git and beads processes (first start to last exit)`]: lastEnd - firstStart,
    'work after them until the answer': trace.answer - lastEnd,
    'fsyncs in the whole start (count)': trace.fsyncs.length,
    'fsyncs in the whole start (ms)': trace.fsyncs.reduce((sum, entry) => sum + entry.end - entry.start, 0),
    'locks taken (count)': trace.locks,
    'after the answer, until exit': trace.exit - trace.answer,
    'whole process, until the answer': trace.answer,
  };
}

export async function benchHookStartup({ repo }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hook-startup-'));
  try {
    const cli = path.join(repo, 'dist', 'cli.js');
    const plain = path.join(dir, 'plain');
    mkdirSync(plain);
    const { dir: workspace, beadsDir, issuesPath } = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: true });
    const database = path.join(beadsDir, 'beads.db');
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
    // The stand-in keeps its data in issues.jsonl; an empty beads.db a second older than it is what
    // the hook looks at: a database the export is as new as.
    const withDatabase = () => {
      writeFileSync(database, '');
      const exported = statSync(issuesPath).mtime;
      utimesSync(database, exported, new Date(exported.getTime() - 1000));
    };
    const withoutDatabase = () => rmSync(database, { force: true });
    const hookRun = (folder, extraEnv = {}) => {
      const input = JSON.stringify({ session_id: `bench-${Math.random()}`, cwd: folder, hook_event_name: 'SessionStart', source: 'startup' });
      return run([cli, 'hook', 'claude', 'SessionStart'], { cwd: folder, env: { ...env, ...extraEnv }, input });
    };
    const processesOf = (folder) => {
      const log = path.join(dir, `spawns-${Math.random()}`);
      hookRun(folder, { NODE_OPTIONS: `--require ${path.join(repo, 'scripts', 'bench', 'spawnCount.cjs')}`, BENCH_SPAWN_LOG: log });
      const names = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
      const count = (name) => names.filter((program) => program === name).length;
      return `${count('git')} git, ${count('br')} br`;
    };
    const scenarios = [
      ['outside a beads project', plain, () => undefined],
      ['br project, issues.jsonl current', workspace, withDatabase],
      ['br project, no database yet (br runs)', workspace, withoutDatabase],
    ];
    console.log(`${'SessionStart hook, new session'.padEnd(40)} ${'pairs'.padStart(5)} ${'node -e 0'.padStart(10)} ${'hook'.padStart(8)} ${'ratio'.padStart(6)}  processes`);
    const blocks = {};
    for (const [name, folder, prepare] of scenarios) {
      prepare();
      // One run first, not counted: the first hook after a build writes its code cache.
      blocks[name] = hookRun(folder).stdout;
      const bare = [];
      const hook = [];
      for (let pair = 0; pair < PAIRS; pair++) {
        const runBare = () => bare.push(run(['-e', '0'], { cwd: folder, env }).ms);
        const runHook = () => hook.push(hookRun(folder).ms);
        for (const step of pair % 2 === 0 ? [runBare, runHook] : [runHook, runBare]) step();
      }
      const [b, h] = [median(bare), median(hook)];
      console.log(`${name.padEnd(40)} ${String(PAIRS).padStart(5)} ${`${b.toFixed(0)} ms`.padStart(10)} ${`${h.toFixed(0)} ms`.padStart(8)} ${`${(h / b).toFixed(2)}x`.padStart(6)}  ${processesOf(folder)}`);
    }
    withoutDatabase();
    const bare = [];
    const standin = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      bare.push(run(['-e', '0'], { cwd: workspace, env }).ms);
      standin.push(run([path.join(STANDIN_BIN_DIR, 'br'), 'list', '--json', '--limit', '0'], { cwd: workspace, env }).ms);
    }
    const [b, s] = [median(bare), median(standin)];
    console.log(`${'the stand-in br alone (br list --json)'.padEnd(40)} ${String(PAIRS).padStart(5)} ${`${b.toFixed(0)} ms`.padStart(10)} ${`${s.toFixed(0)} ms`.padStart(8)} ${`${(s / b).toFixed(2)}x`.padStart(6)}  (one of the br processes above)`);
    const [, current, cliRuns] = scenarios.map(([name]) => blocks[name]);
    printBreakdown(scenarios.slice(1), { dir, repo, hookRun });
    console.log(`the block from the current issues.jsonl is the block br gives: ${current === cliRuns ? 'yes' : 'NO'}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
