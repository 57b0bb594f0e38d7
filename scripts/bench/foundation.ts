// Foundation figures (issue 2): CLI processes per recovery context and their concurrency,
// formatting time, the read-only JSONL load, and the production bundle size.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCliBackend } from '../../src/beads/cliBackend';
import { parseJsonl } from '../../src/core/parse';
import { buildRecoveryContext, type RecoveryInput } from '../../src/core/recovery';
import { produceRecoveryContext } from '../../src/services/recovery';
import { makeWorkspace } from '../../test/fixtures/make-workspace.mjs';
import { describeCalls, dependentSteps } from './callLog';

interface CallRecord {
  args: string[];
  startedAt: string;
  endedAt: string;
}

function callMs(call: CallRecord): number {
  return Date.parse(call.endedAt) - Date.parse(call.startedAt);
}

export async function benchRecoveryProcesses({ repo }: { repo: string }): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'beads-bench-large-'));
  try {
    await makeWorkspace({ dir, dialect: 'br', data: 'large', git: true });
    const br = path.join(repo, 'test/fixtures/bin/br');
    const ready = JSON.parse(execFileSync(br, ['ready', '--json', '--limit', '0'], { cwd: dir, encoding: 'utf8' })) as { id: string }[];
    // Claim a ready issue that others depend on, so the context also needs its dependents' details.
    const { issues } = parseJsonl(readFileSync(largeDataSet(repo), 'utf8'));
    const withDependents = new Set(issues.filter((issue) => issue.dependents.length > 0).map((issue) => issue.id));
    const claimed = ready.find((issue) => withDependents.has(issue.id)) ?? ready[0];
    execFileSync(br, ['update', claimed.id, '--claim', '--json'], { cwd: dir });

    const logFile = path.join(dir, 'calls.log');
    process.env.BEADS_STANDIN_LOG = logFile;
    const backend = createCliBackend({ dialect: 'br', command: br, root: dir, timeoutMs: 30_000 });
    const runs: { wall: number; calls: CallRecord[] }[] = [];
    for (let i = 0; i < 5; i++) {
      rmSync(logFile, { force: true });
      const started = performance.now();
      await produceRecoveryContext({ backend, cli: 'br', budget: 2048, now: Date.now(), timeoutMs: 30_000 });
      const wall = performance.now() - started;
      const calls = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as CallRecord);
      runs.push({ wall, calls });
    }
    delete process.env.BEADS_STANDIN_LOG;
    const last = runs[runs.length - 1];
    const slowest = Math.max(...last.calls.map(callMs));
    const sumOfCalls = last.calls.reduce((sum, call) => sum + callMs(call), 0);
    console.log(`data set: 5,722-issue bd export through the stand-in br (${ready.length} ready; ${claimed.id} claimed)`);
    console.log(`CLI processes per recovery context: ${last.calls.length} (${last.calls.map((call) => call.args[0]).join(', ')}; git status runs beside them)`);
    console.log(`wall time, median of ${runs.length}: ${median(runs.map((run) => run.wall)).toFixed(0)} ms`);
    // The stand-in logs its own run time; starting Node for it is on top of that, once per process.
    const startups = Array.from({ length: 5 }, () => {
      const started = performance.now();
      execFileSync(process.execPath, ['-e', '0']);
      return performance.now() - started;
    });
    console.log(`last run: wall ${last.wall.toFixed(0)} ms, slowest single call ${slowest.toFixed(0)} ms, sum of calls ${sumOfCalls.toFixed(0)} ms (wall/slowest ${(last.wall / slowest).toFixed(2)})`);
    console.log(`the calls form ${dependentSteps(last.calls)} dependent steps (${describeCalls(last.calls)}; git status runs beside them); each stand-in process also pays Node's start-up, median ${median(startups).toFixed(0)} ms here`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFormatting({ repo }: { repo: string }): Promise<void> {
  const text = readFileSync(largeDataSet(repo), 'utf8');
  const { issues } = parseJsonl(text);
  const open = issues.filter((issue) => issue.status === 'open');
  const focused = { ...issues.find((issue) => issue.comments.length > 0 && issue.dependencies.length > 0)!, status: 'in_progress' };
  const input: RecoveryInput = {
    now: Date.parse('2026-02-01T00:00:00Z'),
    budget: 2048,
    project: { cli: 'br', readOnly: false },
    inProgress: { ok: true, value: [focused, ...open.slice(0, 3).map((issue) => ({ ...issue, status: 'in_progress' }))] },
    details: { ok: true, value: issues },
    ready: { ok: true, value: open },
    uncommitted: { ok: true, value: Array.from({ length: 40 }, (_, i) => ({ path: `src/file-${i}.ts`, status: 'M' })) },
  };
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    buildRecoveryContext(input);
    times.push(performance.now() - started);
  }
  console.log(`formatting alone (5,722 issues in the details, 40 uncommitted files): median ${median(times).toFixed(3)} ms, p95 ${percentile(times, 0.95).toFixed(3)} ms over ${times.length} runs`);
}

export async function benchJsonlLoad({ repo }: { repo: string }): Promise<void> {
  // A fresh process per measurement, so peak RSS is the loader's own and not the bench's.
  const bundle = path.join(mkdtempSync(path.join(tmpdir(), 'beads-bench-parse-')), 'parse.cjs');
  const script = `
    const { parseJsonl } = require(${JSON.stringify(bundle)});
    const fs = require('node:fs');
    const started = performance.now();
    const result = parseJsonl(fs.readFileSync(${JSON.stringify(largeDataSet(repo))}, 'utf8'));
    const ms = performance.now() - started;
    console.log(JSON.stringify({ ms, issues: result.issues.length, skipped: result.skipped, maxRssKb: process.resourceUsage().maxRSS }));`;
  const esbuild = await import('esbuild');
  await esbuild.build({ entryPoints: [path.join(repo, 'src/core/parse.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
  const samples = Array.from({ length: 5 }, () => {
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout) as { ms: number; issues: number; skipped: number; maxRssKb: number };
  });
  rmSync(path.dirname(bundle), { recursive: true, force: true });
  const bytes = statSync(largeDataSet(repo)).size;
  console.log(`JSONL load of ${(bytes / 1e6).toFixed(1)} MB (${samples[0].issues} issues kept, ${samples[0].skipped} records skipped): median ${median(samples.map((s) => s.ms)).toFixed(0)} ms, peak RSS of the process ${(Math.max(...samples.map((s) => s.maxRssKb)) / 1024).toFixed(0)} MB`);
}

export async function benchBundleSize({ repo }: { repo: string }): Promise<void> {
  for (const file of ['dist/extension.js', 'dist/cli.js', 'dist/hook.js', 'dist/hookStart.js', 'dist/hookWork.js', 'dist/main.js', 'dist/webview.js']) {
    const full = path.join(repo, file);
    if (existsSync(full)) console.log(`${file}: ${(statSync(full).size / 1024).toFixed(1)} KB`);
    else console.log(`${file}: not built (run npm run build)`);
  }
}

function largeDataSet(repo: string): string {
  return path.join(repo, 'test/fixtures/beads/data/bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl');
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
