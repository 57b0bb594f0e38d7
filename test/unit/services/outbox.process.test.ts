// The outbox when the process that drains it is killed (SIGKILL, as when VS Code's extension host
// dies) in the middle of a write, with real processes: a Node process drains into the stand-in
// `br`, which is slowed down so the kill lands while it runs. The next drainer, in this process,
// must neither lose the write nor write it twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { createCliBackend } from '../../../src/beads/cliBackend';
import { Outbox } from '../../../src/services/outbox';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { waitFor } from '../support/waitFor';

const repo = path.resolve(__dirname, '../../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'outbox-process-'));
const drainer = path.join(scratch, 'drainer.cjs');

// The child: opens the outbox over the stand-in br, queues one comment and drains it.
const DRAINER_SOURCE = `
import { createCliBackend } from ${JSON.stringify(path.join(repo, 'src/beads/cliBackend'))};
import { Outbox } from ${JSON.stringify(path.join(repo, 'src/services/outbox'))};
const [file, root, br, text] = process.argv.slice(2);
const backend = createCliBackend({ dialect: 'br', command: br, root, timeoutMs: 60_000 });
const outbox = new Outbox({ file, root, backend });
outbox.enqueue({ key: 'killed-mid-write', kind: 'comment', issueId: 'demo-1', text }).then(() => outbox.drain());
`;

beforeAll(async () => {
  const entry = path.join(scratch, 'drainer-entry.ts');
  writeFileSync(entry, DRAINER_SOURCE);
  await esbuild.build({ entryPoints: [entry], outfile: drainer, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dir: string;
let workspace: string;
let outboxFile: string;
let faultFile: string;
let callLog: string;
const br = path.join(STANDIN_BIN_DIR, 'br');
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'outbox-kill-'));
  workspace = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: false }).dir;
  outboxFile = path.join(dir, 'state', 'outbox.json');
  faultFile = path.join(dir, 'fault');
  callLog = path.join(dir, 'calls.jsonl');
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function standInEnv(): Record<string, string> {
  return { BEADS_STANDIN_FAULT_FILE: faultFile, BEADS_STANDIN_LOG: callLog };
}

function comments(): string[] {
  const line = readFileSync(path.join(workspace, '.beads', 'issues.jsonl'), 'utf8')
    .split('\n')
    .find((candidate) => candidate.includes('"id":"demo-1"'));
  return ((line ? JSON.parse(line) : {}).comments ?? []).map((comment: { text: string }) => comment.text);
}

function commentAdds(): { exit: number | null }[] {
  if (!existsSync(callLog)) return [];
  return readFileSync(callLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((call) => call.args[0] === 'comments' && call.args[1] === 'add');
}

/** Starts the drainer with the stand-in slowed down, and SIGKILLs it once br is running. */
async function killDrainerMidWrite(text: string, options: { killCliToo: boolean }): Promise<void> {
  writeFileSync(faultFile, 'slow:1500 write\n');
  const child = spawn(process.execPath, [drainer, outboxFile, workspace, br, text], {
    // A registry of its own: the orphaned br is the in-flight mark's to end here, not that of
    // whichever process of another test sweeps the shared registry first (src/beads/processRegistry.ts).
    env: { ...process.env, ...standInEnv(), BEADS_RECOVERY_PROCESS_DIR: path.join(dir, 'processes') },
    stdio: 'ignore',
    detached: true,
  });
  children.push(child);
  // The outbox marks the write in flight on disk before it spawns br, then notes br's pid.
  await waitFor(() => existsSync(outboxFile) && readFileSync(outboxFile, 'utf8').includes('"cliPid"'), 'the in-flight mark', 20_000, 25);
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill('SIGKILL');
  // br runs in a process group of its own, so it outlives its drainer unless killed too.
  if (options.killCliToo) process.kill(-cliPid(), 'SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  writeFileSync(faultFile, '');
}

function cliPid(): number {
  const state = JSON.parse(readFileSync(outboxFile, 'utf8')) as { pending: { inFlight?: { cliPid?: number } }[] };
  return state.pending[0]?.inFlight?.cliPid as number;
}

describe('an outbox drainer killed in the middle of a write', () => {
  /** A new drainer over the same outbox file, as the next window or command line would be. */
  async function drainWithNextOutbox(): Promise<void> {
    const backend = createCliBackend({ dialect: 'br', command: br, root: workspace, timeoutMs: 30_000, env: standInEnv() });
    const next = new Outbox({ file: outboxFile, root: workspace, backend });
    try {
      await next.drain(AbortSignal.timeout(20_000));
      expect(next.status('killed-mid-write')).toBe('done');
    } finally {
      next.dispose();
    }
  }

  it('whose CLI finished the write: the next drainer finds the comment and does not send it again', async () => {
    const text = 'Checkpoint: landed while its drainer died';
    await killDrainerMidWrite(text, { killCliToo: false });
    // The orphaned br finishes its write after the drainer is gone.
    await waitFor(() => comments().includes(text) && commentAdds().length === 1, 'the orphaned write to land and br to exit', 20_000, 25);

    await drainWithNextOutbox();
    expect(comments().filter((comment) => comment === text)).toHaveLength(1);
    expect(commentAdds()).toHaveLength(1);
  }, 60_000);

  it('whose CLI died with it: the next drainer checks, finds nothing, and writes it once', async () => {
    const text = 'Checkpoint: lost with its drainer, then replayed';
    await killDrainerMidWrite(text, { killCliToo: true });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(comments()).not.toContain(text);

    await drainWithNextOutbox();
    expect(comments().filter((comment) => comment === text)).toHaveLength(1);
    const adds = commentAdds();
    expect(adds.filter((call) => call.exit === 0)).toHaveLength(1);
  }, 60_000);

  it('whose CLI is still writing when the next drainer starts: that CLI is ended first, and the comment lands once', async () => {
    const text = 'Checkpoint: replayed while its orphaned CLI still ran';
    await killDrainerMidWrite(text, { killCliToo: false });
    const orphan = cliPid();
    await drainWithNextOutbox();
    expect(() => process.kill(-orphan, 0)).toThrow();
    // Long enough for the orphan's slowed write to have landed, had it lived.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(comments().filter((comment) => comment === text)).toHaveLength(1);
  }, 60_000);
});
