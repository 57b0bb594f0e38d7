// The start block cache under random interleavings (issue 28): seeded sequences of input changes
// and starts, each start of a new session through the cache, half of them as the built hook makes
// them (answered from the cache alone when it can: bin/hookStart.ts); every block a hit gives is
// compared with a full computation made right after it, and a hit must come only when nothing it
// was made from changed. Both cores are kept busy (busy loops ended by their PIDs), as in the other
// randomized tests: stamps taken while writers are slow to be scheduled are where a cache goes stale.
// Sessions that claimed an issue also end now and then, through the hook: a session's end makes the
// next start's block ahead (bin/hook.ts keepNextStart), which the starts after it may be given.
// START_CACHE_FAULTS_SEED=<n> runs that seed alone; START_CACHE_FAULTS_FRESH=<n> adds n fresh seeds.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { recoveryContextFor } from '../../../src/bin/context';
import { runHook } from '../../../src/bin/hook';
import { parseHookInput } from '../../../src/core/hookProtocol';
import { recordFileChange } from '../../../src/core/ledger';
import { LEDGER_DIR, LedgerStore } from '../../../src/services/ledgerStore';
import { SCENARIO } from '../../fixtures/make-workspace.mjs';
import { keepCoresBusyWhileTestsRun } from '../support/busyCores';
import { claimTranscript, computedHookStart, hookStart, startBlock, startProject, type StartProject } from '../support/startBlock';

// Full computations, counted: a hit makes none.
const computed = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/services/recovery', async (importOriginal) => {
  const original = (await importOriginal()) as typeof import('../../../src/services/recovery');
  return {
    ...original,
    produceRecoveryContext: (...args: Parameters<typeof original.produceRecoveryContext>) => {
      computed.count++;
      return original.produceRecoveryContext(...args);
    },
  };
});

// No seed has failed on this code (eight fresh ones passed under the busy loops). These two failed
// when the check left out `git status`: they show the test sees a stale block.
const FIXED_SEEDS = [63564, 71483];
const FRESH_SEEDS = Number(process.env.START_CACHE_FAULTS_FRESH ?? 1);
const SEEDS = process.env.START_CACHE_FAULTS_SEED
  ? [Number(process.env.START_CACHE_FAULTS_SEED)]
  : [...FIXED_SEEDS, ...Array.from({ length: FRESH_SEEDS }, (_unused, index) => (Date.now() + index * 7919) % 100_000)];
const STEPS = 30;

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-start-cache-faults-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});
keepCoresBusyWhileTestsRun();

/** A seeded generator, so a failure can be replayed (the seed is in the test name). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface World {
  project: StartProject;
  env: NodeJS.ProcessEnv;
  /** How far the clock has been moved ahead (the fake clock only moves forward). */
  aheadMs: number;
  claimers: number;
  edits: number;
  /** The claimers' sessions not ended yet, oldest first. */
  open: { sessionId: string; transcript: string }[];
}

/** Each a change of one input the block reads; `nothing` leaves every input as it is (a hit is due). */
const CHANGES: Record<string, (world: World, next: () => number) => Promise<void> | void> = {
  nothing: () => undefined,
  retitle: ({ project }, next) => {
    writeFileSync(project.jsonl, readFileSync(project.jsonl, 'utf8').replace(/("id":"demo-1","title":")([^"]*)/, `$1Title ${Math.floor(next() * 1000)}`));
  },
  ledger: async (world) => {
    const store = new LedgerStore(path.join(world.project.gitDir, LEDGER_DIR, 'ledger.json'));
    await store.load();
    await store.update((state) => recordFileChange(state, SCENARIO.inProgress, `src/file-${++world.edits}.ts`, Date.now(), { judged: true }));
    store.dispose();
  },
  trackedEdit: ({ project }) => appendFileSync(path.join(project.dir, 'README.md'), 'an edit\n'),
  untracked: (world) => writeFileSync(path.join(world.project.dir, `new-${++world.edits}.ts`), 'export {}\n'),
  claim: async (world) => {
    const transcript = path.join(scratch, `claimer-${world.project.dir.length}-${++world.claimers}.jsonl`);
    writeFileSync(transcript, claimTranscript('br', SCENARIO.inProgress));
    const sessionId = `claimer-${world.claimers}-${path.basename(world.project.dir)}`;
    await recoveryContextFor(world.project.dir, { env: world.env, budget: 8192, forAgent: 'claude', session: { agent: 'claude', sessionId, transcript } });
    world.open.push({ sessionId, transcript });
  },
  threadSetting: (world) => {
    world.env = { ...world.env, BEADS_RECOVERY_THREAD: world.env.BEADS_RECOVERY_THREAD === 'off' ? 'local' : 'off' };
  },
  primeFile: ({ project }) => {
    const file = path.join(project.dir, '.claude', 'settings.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const present = readFileSync(file, { encoding: 'utf8', flag: 'a+' }).includes('bd prime');
    writeFileSync(file, present ? '{}' : JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'bd prime' }] }] } }));
  },
  clock: (world, next) => {
    world.aheadMs += Math.floor(next() * 40 * 60_000);
    vi.useFakeTimers({ toFake: ['Date'], now: realNow() + world.aheadMs });
  },
};
const NAMES = Object.keys(CHANGES);

/** The oldest open claimer's session ends, as Claude Code's SessionEnd hook runs. */
async function endOldestSession(world: World): Promise<void> {
  const ending = world.open.shift();
  if (!ending) return;
  const input = parseHookInput(JSON.stringify({ session_id: ending.sessionId, transcript_path: ending.transcript, cwd: world.project.dir, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }));
  await runHook('claude', 'SessionEnd', { env: world.env, readInput: () => Promise.resolve(input), note: () => undefined });
}

const realNow = (() => {
  const start = Date.now();
  const origin = performance.now();
  return () => start + (performance.now() - origin);
})();

describe('the start block cache under random interleavings, both cores busy', () => {
  it.each(SEEDS)('seed %i: every block a start gives is what a full computation gives', { timeout: 600_000 }, async (seed) => {
    console.log(`start block cache faults: seed ${seed} (START_CACHE_FAULTS_SEED=${seed} replays it)`);
    const next = random(seed);
    // Which starts go through the hook, drawn apart so each seed's changes stay what they were.
    const viaHook = random(seed ^ 0x5bd1e995);
    // Which steps also end a session, drawn apart for the same reason.
    const ends = random(seed ^ 0x27d4eb2f);
    // Times relative to now: the block's ages read in hours, and the clock moves them.
    const project = startProject(scratch, `seed-${seed}`, Date.now());
    const world: World = { project, env: project.env, aheadMs: 0, claimers: 0, edits: 0, open: [] };
    let hits = 0;
    let hookHits = 0;
    // Hits right after a session's end, whose block that end made ahead: only a start through the
    // hook can have one, since the other starts ask for another budget, a key of their own.
    let aheadHits = 0;
    const done: string[] = [];
    for (let step = 0; step < STEPS; step++) {
      // Half the steps change nothing, so that hits come and are checked.
      const name = next() < 0.5 ? 'nothing' : (NAMES[1 + Math.floor(next() * (NAMES.length - 1))] ?? 'nothing');
      await CHANGES[name]?.(world, next);
      done.push(name);
      if (ends() < 0.25 && world.open.length > 0) {
        await endOldestSession(world);
        done.push('sessionEnd');
      }
      // Half the starts as the built hook makes them: from the cache alone when it answers (hookStart.ts).
      if (viaHook() < 0.5) {
        const start = await hookStart(project, world.env);
        if (start.fromCache) {
          hits++;
          hookHits++;
          if (done.at(-1) === 'sessionEnd') aheadHits++;
          expect(start.answer, `seed ${seed}, after ${done.join(', ')} (the hook's start)`).toBe(await computedHookStart(project, world.env));
        }
        continue;
      }
      const before = computed.count;
      const block = await startBlock(project, world.env, true);
      if (computed.count === before) {
        hits++;
        if (done.at(-1) === 'sessionEnd') aheadHits++;
        expect(block, `seed ${seed}, after ${done.join(', ')}`).toBe(await startBlock(project, world.env, false));
      }
    }
    console.log(`start block cache faults: seed ${seed}: ${STEPS} starts, ${hits} taken from the cache (${hookHits} by the hook's start alone, ${aheadHits} of ${done.filter((name) => name === 'sessionEnd').length} right after a session's end), each the same as a full computation`);
    expect(hits).toBeGreaterThan(0);
  });
});
