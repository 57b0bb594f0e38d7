// What the durable outbox costs: enqueueing (one atomic, fsynced file write each), draining with
// an instant backend (the outbox's own bookkeeping), and draining into the stand-in `br` (real
// processes) next to calling the backend directly. Prints figures, asserts nothing.
/* global AbortSignal */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createCliBackend } from '../../src/beads/cliBackend';
import { Outbox } from '../../src/services/outbox';

function instantBackend() {
  let comments = 0;
  return {
    kind: 'br',
    readOnly: false,
    root: '/bench',
    listInProgress: async () => [],
    listReady: async () => [],
    show: async () => [],
    addComment: async () => {
      comments += 1;
    },
    claim: async () => undefined,
    close: async () => undefined,
    get comments() {
      return comments;
    },
  };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const ms = (value) => `${value.toFixed(2)} ms`;

export async function benchOutboxBookkeeping() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  try {
    const backend = instantBackend();
    const file = path.join(dir, 'outbox.json');
    const outbox = new Outbox({ file, root: '/bench', backend });
    await outbox.load();
    const count = 200;
    const enqueueTimes = [];
    // Enqueue while the CLI is "missing", so the figures are the file work alone.
    outbox.setBackend(undefined);
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await outbox.enqueue({ key: `bench:${index}`, kind: 'comment', issueId: `bench-${index % 10}`, text: `Checkpoint: bench ${index}` });
      enqueueTimes.push(performance.now() - started);
    }
    enqueueTimes.sort((a, b) => a - b);
    console.log(`enqueue (atomic write + fsync, ${count} writes, queue growing to ${count}): median ${ms(percentile(enqueueTimes, 0.5))}, p95 ${ms(percentile(enqueueTimes, 0.95))}`);

    outbox.setBackend(backend);
    const started = performance.now();
    await outbox.drain(AbortSignal.timeout(120_000));
    const elapsed = performance.now() - started;
    console.log(`drain into an instant backend: ${count} writes in ${ms(elapsed)} = ${ms(elapsed / count)} per write (mark in flight, send, record done: two file writes)`);
    console.log(`landed ${backend.comments} of ${count}; outbox file after: ${statSync(file).size} bytes with ${count} done keys`);
    outbox.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchOutboxAgainstStandIn({ repo }) {
  // Loaded from the repository at run time: bundled, it would look for its data beside the bundle.
  const { makeWorkspace, STANDIN_BIN_DIR } = await import(pathToFileURL(path.join(repo, 'test/fixtures/make-workspace.mjs')).href);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-outbox-br-'));
  const savedPath = process.env.PATH;
  process.env.PATH = `${STANDIN_BIN_DIR}${path.delimiter}${savedPath ?? ''}`;
  try {
    const ws = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: false });
    const backend = createCliBackend({ dialect: 'br', command: path.join(STANDIN_BIN_DIR, 'br'), root: ws.dir, timeoutMs: 30_000 });
    const count = 20;

    let started = performance.now();
    for (let index = 0; index < count; index++) await backend.addComment('demo-1', `Checkpoint: direct ${index}`);
    const direct = (performance.now() - started) / count;

    const outbox = new Outbox({ file: path.join(dir, 'outbox.json'), root: ws.dir, backend });
    await outbox.load();
    started = performance.now();
    for (let index = 0; index < count; index++) {
      await outbox.enqueue({ key: `standin:${index}`, kind: 'comment', issueId: 'demo-1', text: `Checkpoint: outbox ${index}` });
    }
    await outbox.drain(AbortSignal.timeout(120_000));
    const through = (performance.now() - started) / count;
    console.log(`stand-in br, ${count} comments: direct ${ms(direct)} per write, through the outbox ${ms(through)} per write (ratio ${(through / direct).toFixed(2)})`);

    // A replayed write whose attempt may have landed costs one `show` before it is sent (or not).
    started = performance.now();
    await backend.show(['demo-1']);
    console.log(`replay check (one show of the issue): ${ms(performance.now() - started)}`);
    outbox.dispose();
  } finally {
    process.env.PATH = savedPath;
    rmSync(dir, { recursive: true, force: true });
  }
}
