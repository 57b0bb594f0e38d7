// What activity tracking costs: a burst of file events (handling per event, ledger writes, change
// notifications, processes started), the reflog tail (bytes read against the file's size), the
// commit linker (processes per commit) and one ledger write. Prints figures, asserts nothing.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { recordFileChange, setFocus, trackedPathFilter } from '../../src/core/ledger';
import { readReflogTail } from '../../src/git/reflog';
import { findRepository } from '../../src/git/repo';
import { CommitLinker } from '../../src/services/commitLinker';
import { LedgerStore } from '../../src/services/ledgerStore';

const DEFAULT_WATCHER_EXCLUDES = ['**/.git/objects/**', '**/.git/subtree-cache/**', '**/node_modules/*/**', '**/.hg/store/**'];

/** Counts the processes started while `work` runs, whoever starts them (execa, git helpers…). */
async function countProcesses(work) {
  const childProcess = createRequire(import.meta.url)('node:child_process');
  const originals = { spawn: childProcess.spawn, execFile: childProcess.execFile, exec: childProcess.exec };
  let started = 0;
  for (const [name, original] of Object.entries(originals)) {
    childProcess[name] = (...args) => {
      started += 1;
      return original.apply(childProcess, args);
    };
  }
  syncBuiltinESMExports();
  try {
    const result = await work();
    return { result, processes: started };
  } finally {
    Object.assign(childProcess, originals);
    syncBuiltinESMExports();
  }
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

async function fileBurst() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-activity-'));
  try {
    const root = path.join(dir, 'ws');
    const rootPrefix = `${root}${path.sep}`;
    const store = new LedgerStore(path.join(dir, 'git', 'beads-recovery', 'ledger.json'), { persistDelayMs: 200 });
    await store.load();
    await store.update((state) => setFocus(state, 'demo-1', Date.now()));
    // The ledger is already at its file cap, the worst case for inserting a new path.
    for (let index = 0; index < 200; index += 1) store.record((state) => recordFileChange(state, 'demo-1', `old/file-${index}.ts`, Date.now() - 60_000));
    await store.flush();
    const writesBefore = store.stats.writes;
    let notifications = 0;
    store.onDidChange(() => (notifications += 1));
    const isTracked = trackedPathFilter(DEFAULT_WATCHER_EXCLUDES);

    // The steps of FolderActivity.noticeFile for a change event: prefix, relative path, filters, transition in memory.
    const notice = (fsPath) => {
      if (!fsPath.startsWith(rootPrefix)) return;
      const relative = path.sep === '/' ? fsPath.slice(rootPrefix.length) : fsPath.slice(rootPrefix.length).replace(/\\/g, '/');
      if (relative.startsWith('.beads/')) return;
      if (!isTracked(relative)) return;
      const now = Date.now();
      const issueId = store.state.focusedId;
      store.record((state) => recordFileChange(state, issueId, relative, now));
    };

    // 1,000 events like an agent's build or refactor: 300 distinct sources, node_modules and .git noise.
    const events = Array.from({ length: 1000 }, (_, index) => {
      if (index % 10 === 0) return path.join(root, 'node_modules', 'pkg', `f${index}.js`);
      if (index % 10 === 1) return path.join(root, '.git', 'objects', 'ab', `${index}`);
      return path.join(root, 'src', `module-${index % 300}`, `file-${index % 7}.ts`);
    });
    const times = [];
    const { processes } = await countProcesses(async () => {
      for (const event of events) {
        const started = performance.now();
        notice(event);
        times.push(performance.now() - started);
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      await store.flush();
    });
    times.sort((a, b) => a - b);
    const ledger = store.state.ledgers['demo-1'];
    console.log(`burst of ${events.length} file events: ${store.stats.writes - writesBefore} ledger write, ${notifications} change notification (status bar/sidebar refresh), ${processes} processes started`);
    console.log(`handling one event: median ${us(percentile(times, 0.5))}, p95 ${us(percentile(times, 0.95))}, max ${us(times[times.length - 1])} (ledger at its cap of ${ledger.files.length} files, ${ledger.moreFiles} more counted, ${ledger.edits} edits)`);
    store.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function reflogTail() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-reflog-'));
  try {
    const file = path.join(dir, 'HEAD');
    const line = (index) => `${index.toString(16).padStart(40, 'a')} ${(index + 1).toString(16).padStart(40, 'b')} Bench Agent <agent@example.com> ${1_795_000_000 + index} +0000\tcommit: bench commit number ${index} with a subject of ordinary length\n`;
    const lines = 20_000;
    // Warm the file APIs up on a small log, so the first figure is the read, not the module's start.
    writeFileSync(file, line(0));
    await readReflogTail(file, undefined);
    writeFileSync(file, Array.from({ length: lines }, (_, index) => line(index)).join(''));
    let first;
    const firstTimes = [];
    for (let round = 0; round < 7; round += 1) {
      const started = performance.now();
      first = await readReflogTail(file, undefined);
      firstTimes.push(performance.now() - started);
    }
    firstTimes.sort((a, b) => a - b);
    console.log(`first read of a ${lines}-entry reflog (${kib(first.size)}): ${first.bytesRead} bytes read (${((100 * first.bytesRead) / first.size).toFixed(2)} %), median ${percentile(firstTimes, 0.5).toFixed(2)} ms of 7`);
    let started;

    let cursor = first.cursor;
    const reads = [];
    for (let commit = 0; commit < 50; commit += 1) {
      appendFileSync(file, line(lines + commit));
      started = performance.now();
      const tail = await readReflogTail(file, cursor);
      reads.push({ ms: performance.now() - started, bytes: tail.bytesRead, size: tail.size, entries: tail.entries.length });
      cursor = tail.cursor;
    }
    const ms = reads.map((read) => read.ms).sort((a, b) => a - b);
    const last = reads[reads.length - 1];
    console.log(`tail after one commit (50 times): ${last.bytes} bytes read of ${kib(last.size)} (${((100 * last.bytes) / last.size).toFixed(3)} %), ${last.entries} entry, median ${us(percentile(ms, 0.5))}`);
    started = performance.now();
    const idle = await readReflogTail(file, cursor);
    console.log(`tail with nothing new: ${idle.bytesRead} bytes read, ${us(performance.now() - started)}`);

    // reflog expire rewrites the file (new inode); the reader starts over but reports only newer entries.
    const replacement = path.join(dir, 'HEAD.lock');
    writeFileSync(replacement, Array.from({ length: lines / 2 }, (_, index) => line(lines / 2 + index + 50)).join(''));
    execFileSync('mv', [replacement, file]);
    started = performance.now();
    const rewritten = await readReflogTail(file, cursor);
    console.log(`after a rewrite (${kib(rewritten.size)}): mode ${rewritten.mode}, ${rewritten.bytesRead} bytes read, ${rewritten.entries.length} entries offered again (same second as the last seen), ${(performance.now() - started).toFixed(2)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function commitLinker() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-linker-'));
  try {
    const repoDir = path.join(dir, 'repo');
    mkdirSync(repoDir);
    const git = (...args) => execFileSync('git', args, { cwd: repoDir, stdio: 'pipe', encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Bench');
    git('config', 'user.email', 'bench@example.com');
    for (let index = 0; index < 200; index += 1) git('commit', '-q', '--allow-empty', '-m', `history ${index}`);
    const repository = await findRepository(repoDir, { timeoutMs: 10_000 });
    const store = new LedgerStore(path.join(repository.gitDir, 'beads-recovery', 'ledger.json'));
    await store.load();
    const linker = new CommitLinker({ store, repository, focus: () => ({ known: true, issueId: 'demo-1' }), now: Date.now, git: { timeoutMs: 10_000 } });
    await linker.check();

    const idle = await countProcesses(() => linker.check());
    console.log(`check with no new commit: ${idle.processes} processes, ${idle.result.bytesRead} bytes read`);
    git('commit', '-q', '--allow-empty', '-m', 'feat: one new commit');
    let started = performance.now();
    const one = await countProcesses(() => linker.check());
    console.log(`check after one commit: ${one.processes} process (git log for the subject), ${one.result.bytesRead} bytes read of ${kib(statSync(linker.reflogFile).size)}, ${one.result.linked.length} commit recorded in the ledger for the next checkpoint (no comment), ${(performance.now() - started).toFixed(1)} ms`);
    for (let index = 0; index < 10; index += 1) git('commit', '-q', '--allow-empty', '-m', `burst ${index}`);
    started = performance.now();
    const burst = await countProcesses(() => Promise.all([linker.check(), linker.check(), linker.check()]));
    // The three hints share one check; the ledger says what was recorded.
    const recorded = store.state.ledgers['demo-1']?.commits.length ?? 0;
    console.log(`three hints after ten commits: ${burst.processes} processes, ${recorded - 1} more commits recorded in the ledger, ${(performance.now() - started).toFixed(1)} ms`);

    const ledgerFile = store.file;
    for (let index = 0; index < 200; index += 1) store.record((state) => recordFileChange(state, 'demo-1', `src/file-${index}.ts`, Date.now() + index * 2_000));
    const writes = [];
    for (let index = 0; index < 20; index += 1) {
      store.record((state) => recordFileChange(state, 'demo-1', `src/again-${index}.ts`, Date.now() + 1e6 + index * 2_000));
      started = performance.now();
      await store.flush();
      writes.push(performance.now() - started);
    }
    writes.sort((a, b) => a - b);
    console.log(`one ledger write (lock, read, merge, write, fsync, rename; ${kib(statSync(ledgerFile).size)} with 200 files and ${store.state.linkedCommits.length} linked commits): median ${percentile(writes, 0.5).toFixed(2)} ms`);
    store.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchActivity() {
  console.log('### a burst of file events');
  await fileBurst();
  console.log('\n### the reflog tail');
  await reflogTail();
  console.log('\n### commit linking and the ledger file');
  await commitLinker();
}
