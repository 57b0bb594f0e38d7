// The hook process's own start-up, side by side with a bare `node -e 0`: paired runs (one of each,
// alternately, so a busy machine slows both alike), medians and their ratio. Outside a beads
// project (the hook must answer `{}` and cost little more than node itself) and in a br project
// whose CLI is the stand-in. The agent's own launch-to-first-request cost is the real-agent
// suite's figure (scripts/bench/agents.ts). Prints, asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

const PAIRS = 15;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(args, options) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { ...options, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return performance.now() - started;
}

export async function benchHookStartup({ repo }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-hook-startup-'));
  try {
    const cli = path.join(repo, 'dist', 'cli.js');
    const plain = path.join(dir, 'plain');
    mkdirSync(plain);
    const workspace = makeWorkspace({ dir: path.join(dir, 'ws'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
    console.log(`${'SessionStart hook, new session'.padEnd(44)} ${'pairs'.padStart(5)} ${'node -e 0'.padStart(10)} ${'hook'.padStart(8)} ${'ratio'.padStart(6)}`);
    for (const [name, folder] of [['outside a beads project', plain], ['br project (stand-in br, git)', workspace]]) {
      const bare = [];
      const hook = [];
      for (let pair = 0; pair < PAIRS; pair++) {
        bare.push(timed(['-e', '0'], { cwd: folder, env }));
        const input = JSON.stringify({ session_id: `bench-${pair}-${Date.now()}`, cwd: folder, hook_event_name: 'SessionStart', source: 'startup' });
        hook.push(timed([cli, 'hook', 'claude', 'SessionStart'], { cwd: folder, env, input }));
      }
      const [b, h] = [median(bare), median(hook)];
      console.log(`${name.padEnd(44)} ${String(PAIRS).padStart(5)} ${`${b.toFixed(0)} ms`.padStart(10)} ${`${h.toFixed(0)} ms`.padStart(8)} ${`${(h / b).toFixed(2)}x`.padStart(6)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
