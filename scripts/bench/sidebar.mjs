// Sidebar figures (issue 4): the view model built from the 5,722-issue data set, the size of one
// state message, and the CLI processes one refresh costs (through the stand-in br, counted from
// its call log).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createCliBackend } from '../../src/beads/cliBackend';
import { openBlockersOf } from '../../src/core/graph';
import { parseJsonl } from '../../src/core/parse';
import { buildSidebarModel, DEFAULT_LIMITS, nextViewState } from '../../src/core/viewModel';
import { loadSnapshot } from '../../src/services/snapshot';

const NOW = Date.parse('2026-01-22T00:00:00Z');
const SIDEBAR_SNAPSHOT = { alwaysReady: true, readyDetails: DEFAULT_LIMITS.ready, ancestors: true };

export async function benchSidebar({ repo }) {
  const dataSet = path.join(repo, 'test/fixtures/beads/data/bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl');
  const { issues } = parseJsonl(readFileSync(dataSet, 'utf8'));
  // bd-8rd has a parent and seven children: claimed here so the tree has every part.
  const details = issues.map((issue) => (issue.id === 'bd-8rd' ? { ...issue, status: 'in_progress' } : issue));
  const focused = details.find((issue) => issue.id === 'bd-8rd');
  const ready = details.filter((issue) => issue.status === 'open' && openBlockersOf(issue).length === 0);
  const input = {
    inProgress: { ok: true, value: [focused] },
    ready: { ok: true, value: ready },
    details: { ok: true, value: details },
    focusedId: focused.id,
    now: NOW,
    uncommitted: { ok: true, value: Array.from({ length: 40 }, (_, i) => ({ path: `src/file-${i}.ts`, status: ' M' })) },
  };
  const times = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    buildSidebarModel(input);
    times.push(performance.now() - started);
  }
  console.log(`data set: ${issues.length} live issues of the 5,722-line bd export, ${ready.length} ready, every issue's details passed in`);
  console.log(`view model build: median ${median(times).toFixed(2)} ms, p95 ${percentile(times, 0.95).toFixed(2)} ms over ${times.length} runs (target < 50 ms)`);

  const project = { name: 'beads', backend: 'bd' };
  const message = (stateInput) => ({ type: 'state', state: nextViewState({ kind: 'loading' }, { kind: 'loaded', project, input: stateInput }) });
  const typical = Buffer.byteLength(JSON.stringify(message(input)));
  // Every live issue in progress and ready at once: the caps are what keep the message bounded.
  const everything = Buffer.byteLength(JSON.stringify(message({ ...input, inProgress: { ok: true, value: details }, ready: { ok: true, value: details } })));
  // And every title 5,000 characters long (titles are cut to 300 in the model).
  const long = details.map((issue) => ({ ...issue, title: 'T'.repeat(5000) }));
  const longTitles = Buffer.byteLength(JSON.stringify(message({ ...input, inProgress: { ok: true, value: long }, ready: { ok: true, value: long }, details: { ok: true, value: long } })));
  console.log(`one state message: ${(typical / 1024).toFixed(1)} KB; with all ${details.length} issues in progress and ready: ${(everything / 1024).toFixed(1)} KB; and 5,000-character titles: ${(longTitles / 1024).toFixed(1)} KB (target < 200 KB)`);

  await benchRefreshCalls(repo, 'scenario');
  await benchRefreshCalls(repo, 'large');
}

/** The processes of one sidebar refresh (the snapshot; `git status` runs beside it and is not a beads call). */
async function benchRefreshCalls(repo, data) {
  const dir = mkdtempSync(path.join(tmpdir(), `beads-bench-sidebar-${data}-`));
  try {
    // Imported at run time, not bundled: it finds the data sets relative to its own file.
    const { makeWorkspace } = await import(pathToFileURL(path.join(repo, 'test/fixtures/make-workspace.mjs')).href);
    makeWorkspace({ dir, dialect: 'br', data, git: false });
    const br = path.join(repo, 'test/fixtures/bin/br');
    if (data === 'large') {
      const readyIds = JSON.parse(execFileSync(br, ['ready', '--json', '--limit', '0'], { cwd: dir, encoding: 'utf8' }));
      execFileSync(br, ['update', readyIds[0].id, '--claim', '--json'], { cwd: dir });
    }
    const logFile = path.join(dir, 'calls.log');
    process.env.BEADS_STANDIN_LOG = logFile;
    const backend = createCliBackend({ dialect: 'br', command: br, root: dir, timeoutMs: 60_000 });
    const walls = [];
    let calls = [];
    for (let i = 0; i < 3; i++) {
      rmSync(logFile, { force: true });
      const started = performance.now();
      await loadSnapshot(backend, SIDEBAR_SNAPSHOT);
      walls.push(performance.now() - started);
      calls = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    }
    delete process.env.BEADS_STANDIN_LOG;
    const described = calls.map((call) => (call.args[0] === 'show' ? `show ×${call.args.filter((arg) => !arg.startsWith('-')).length - 1}` : call.args.slice(0, 3).join(' ')));
    console.log(`CLI calls per refresh (${data} workspace, stand-in br): ${calls.length} — ${described.join(', ')}; wall median ${median(walls).toFixed(0)} ms`);
  } finally {
    delete process.env.BEADS_STANDIN_LOG;
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values) {
  return percentile(values, 0.5);
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
