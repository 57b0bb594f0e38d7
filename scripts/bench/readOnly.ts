// Read-only memory and time (issue 18 item 6): a 120 MB issues.jsonl (the 5,722-issue bd export
// repeated under new ids) and one issue with a 10 MB description, read by the JSONL backend as it
// reads now (line by line, JsonlReader) and as it read before (the whole text, then parsed), each in
// a fresh process so its peak memory is its own; then the recovery context over the big field.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJsonlBackend } from '../../src/beads/jsonlBackend';
import { parseJsonl } from '../../src/core/parse';
import { produceRecoveryContext } from '../../src/services/recovery';

const CHILD = 'BEADS_BENCH_READ_ONLY';
const LARGE = 'test/fixtures/beads/data/bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl';

/** `copies` of the large data set, ids renamed per copy so every line is a live record of its own. */
function writeBigStore(repo: string, root: string, copies: number): string {
  const beadsDir = path.join(root, '.beads');
  mkdirSync(beadsDir, { recursive: true });
  const file = path.join(beadsDir, 'issues.jsonl');
  const lines = readFileSync(path.join(repo, LARGE), 'utf8').split('\n').filter(Boolean);
  const fd = openSync(file, 'w');
  try {
    for (let copy = 0; copy < copies; copy++) {
      const chunk = lines.map((line) => line.replace(/"(bd|hq)-/g, `"$1${copy}-`)).join('\n');
      writeSync(fd, `${chunk}\n`);
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

async function childLoad(mode: string, root: string): Promise<void> {
  const started = performance.now();
  let issues: number;
  if (mode === 'whole-text') {
    issues = parseJsonl(await readFile(path.join(root, '.beads', 'issues.jsonl'), 'utf8')).issues.length;
  } else {
    issues = (await createJsonlBackend({ root }).listReady()).length;
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ issues, ms, maxRssKb: process.resourceUsage().maxRSS }));
}

if (process.env[CHILD]) await childLoad(process.env[CHILD], process.env.BEADS_BENCH_ROOT ?? '.');

export async function benchReadOnlyMemory({ repo }: { repo: string }): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'beads-bench-readonly-'));
  try {
    const file = writeBigStore(repo, root, 30);
    const megabytes = statSync(file).size / (1024 * 1024);
    const self = fileURLToPath(import.meta.url);
    const run = (mode: string) => {
      const result = spawnSync(process.execPath, [self], { env: { ...process.env, [CHILD]: mode, BEADS_BENCH_ROOT: root }, encoding: 'utf8', maxBuffer: 1 << 20 });
      const line = result.stdout.trim().split('\n').pop() ?? '{}';
      return JSON.parse(line) as { issues: number; ms: number; maxRssKb: number };
    };
    const before = run('whole-text');
    const now = run('streamed');
    const ratio = (kb: number) => (kb / 1024 / megabytes).toFixed(1);
    console.log(`issues.jsonl: ${megabytes.toFixed(0)} MB, ${before.issues} live issues`);
    console.log(`peak memory, whole text then parsed (the old read path): ${(before.maxRssKb / 1024).toFixed(0)} MB = ${ratio(before.maxRssKb)}x the file, ${before.ms.toFixed(0)} ms`);
    console.log(`peak memory, line by line, fields cut (now):             ${(now.maxRssKb / 1024).toFixed(0)} MB = ${ratio(now.maxRssKb)}x the file, ${now.ms.toFixed(0)} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchReadOnlyHugeDescription(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'beads-bench-description-'));
  try {
    mkdirSync(path.join(root, '.beads'), { recursive: true });
    const description = 'word '.repeat(2 * 1024 * 1024);
    const issue = { id: 'big-1', title: 'A huge description', status: 'in_progress', priority: 1, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', description };
    const fd = openSync(path.join(root, '.beads', 'issues.jsonl'), 'w');
    writeSync(fd, `${JSON.stringify(issue)}\n`);
    closeSync(fd);
    const backend = createJsonlBackend({ root });
    const started = performance.now();
    const context = await produceRecoveryContext({ backend, cli: 'br', budget: 2048, now: Date.now(), timeoutMs: 30_000 });
    console.log(`recovery context over one 10 MB description, read-only: ${(performance.now() - started).toFixed(0)} ms (${context.markdown.length} characters)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
