// Read-only memory and time (issue 18 item 6, issue 32 item 7), on two stores: the 5,722-issue bd
// export repeated under new ids to 120 MB (short texts, half tombstones), and 134 MB of issues with
// long descriptions, designs, notes and eight long comments each (the attack's shape). Each is read
// in a fresh process, so its peak memory is its own: the whole text then parsed (before issue 18),
// line by line keeping every field (issue 18's reader, before issue 32), and line by line keeping
// what lists show (now); then the read-only `context` command itself, as a process of dist/cli.js.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJsonlBackend } from '../../src/beads/jsonlBackend';
import { JsonlReader, parseJsonl } from '../../src/core/parse';
import { readLines } from '../../src/io/safeRead';
import { produceRecoveryContext } from '../../src/services/recovery';

const CHILD = 'BEADS_BENCH_READ_ONLY';
const LARGE = 'test/fixtures/beads/data/bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl';

/** `copies` of the large data set, ids renamed per copy so every line is a live record of its own. */
function writeRepeatedStore(repo: string, root: string, copies: number): string {
  const file = storeFile(root);
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

/** Issues with long texts and comments until the file holds `megabytes`; one in fifty in progress, each blocked by the one before. */
function writeLongTextStore(root: string, megabytes: number): string {
  const file = storeFile(root);
  const words = 'the agent reads this line again after a compaction and goes on with the work it left'.split(' ');
  const paragraph = (count: number, seed: number) => Array.from({ length: count }, (_, index) => `${words[(index * 7 + seed) % words.length]}${index % 17 === 16 ? '.\n' : ' '}`).join('');
  const fd = openSync(file, 'w');
  try {
    let written = 0;
    for (let index = 0; written < megabytes * 1024 * 1024; index++) {
      const id = `lt-${index}`;
      const line = JSON.stringify({
        id,
        title: `Issue ${index}: ${paragraph(8, index)}`,
        description: paragraph(800, index),
        design: paragraph(200, index + 1),
        notes: paragraph(100, index + 2),
        acceptance_criteria: paragraph(60, index + 3),
        status: index % 50 === 0 ? 'in_progress' : index % 3 === 0 ? 'closed' : 'open',
        priority: index % 5,
        issue_type: 'task',
        created_at: '2026-01-01T00:00:00Z',
        updated_at: `2026-01-01T${String(index % 24).padStart(2, '0')}:00:00Z`,
        labels: ['memory'],
        dependencies: index > 0 ? [{ issue_id: id, depends_on_id: `lt-${index - 1}`, type: 'blocks', created_at: '2026-01-01T00:00:00Z' }] : [],
        comments: Array.from({ length: 8 }, (_, comment) => ({ id: index * 10 + comment, issue_id: id, author: 'agent', text: `Checkpoint: ${paragraph(150, index + comment)}`, created_at: '2026-01-02T00:00:00Z' })),
      });
      writeSync(fd, `${line}\n`);
      written += Buffer.byteLength(line) + 1;
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

function storeFile(root: string): string {
  mkdirSync(path.join(root, '.beads'), { recursive: true });
  return path.join(root, '.beads', 'issues.jsonl');
}

async function childLoad(mode: string, root: string): Promise<void> {
  const started = performance.now();
  const file = path.join(root, '.beads', 'issues.jsonl');
  let issues: number;
  if (mode === 'whole-text') {
    issues = parseJsonl(await readFile(file, 'utf8')).issues.length;
  } else if (mode === 'every-field') {
    const reader = new JsonlReader();
    for await (const line of (await readLines(file, { maxBytes: Number.MAX_SAFE_INTEGER }))!) reader.add(line.text, line.complete);
    const load = reader.finish();
    // The backend indexed them by id, as it does now.
    issues = new Map(load.issues.map((issue) => [issue.id, issue])).size;
  } else {
    issues = (await createJsonlBackend({ root }).listReady()).length;
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ issues, ms, maxRssKb: process.resourceUsage().maxRSS }));
}

if (process.env[CHILD]) await childLoad(process.env[CHILD], process.env.BEADS_BENCH_ROOT ?? '.');

interface Peak {
  maxRssKb: number;
  ms: number;
}

function loadIn(root: string, mode: string): Peak & { issues: number } {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, [CHILD]: mode, BEADS_BENCH_ROOT: root }, encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Peak & { issues: number };
}

/** `beads-recovery context` in `root` with no beads CLI to run (read-only), its peak memory told by a preloaded module at exit. */
function contextIn(repo: string, root: string, scratch: string): Peak & { bytes: number; readOnly: boolean } {
  const preload = path.join(scratch, 'report-peak.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, `\\nBENCH_PEAK_KB=${process.resourceUsage().maxRSS}\\n`));\n");
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--require', preload, path.join(repo, 'dist', 'cli.js'), 'context', '--cwd', root], {
    env: { ...process.env, HOME: scratch, USERPROFILE: scratch, BEADS_RECOVERY_CLI_PATH: path.join(scratch, 'no-beads-cli') },
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  const ms = performance.now() - started;
  const peak = /BENCH_PEAK_KB=(\d+)/.exec(result.stderr);
  return { maxRssKb: Number(peak?.[1] ?? NaN), ms, bytes: Buffer.byteLength(result.stdout), readOnly: result.stdout.includes('Read-only here') };
}

export async function benchReadOnlyMemory({ repo }: { repo: string }): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'beads-bench-readonly-'));
  try {
    const stores = [
      { name: 'bd export x30 (short texts)', root: path.join(scratch, 'repeated'), write: (root: string) => writeRepeatedStore(repo, root, 30) },
      { name: 'long texts and comments', root: path.join(scratch, 'long-texts'), write: (root: string) => writeLongTextStore(root, 134) },
    ];
    for (const store of stores) {
      const megabytes = statSync(store.write(store.root)).size / (1024 * 1024);
      const line = (label: string, peak: Peak) => console.log(`  ${label.padEnd(52)} ${(peak.maxRssKb / 1024).toFixed(0).padStart(5)} MB  ${(peak.maxRssKb / 1024 / megabytes).toFixed(2)}x the file  ${peak.ms.toFixed(0).padStart(5)} ms`);
      const now = loadIn(store.root, 'listed');
      console.log(`${store.name}: issues.jsonl ${megabytes.toFixed(0)} MB, ${now.issues} ready issues; peak memory (RSS) of a fresh process:`);
      line('load, whole text then parsed (before issue 18)', loadIn(store.root, 'whole-text'));
      line('load, line by line, every field kept (before)', loadIn(store.root, 'every-field'));
      line('load, line by line, what lists show kept (now)', now);
      const context = contextIn(repo, store.root, scratch);
      line(`\`context\`, read-only, dist/cli.js (${context.bytes} bytes out${context.readOnly ? '' : ', NOT read-only'})`, context);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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
