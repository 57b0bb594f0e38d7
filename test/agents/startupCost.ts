// Start-up cost of our SessionStart hook inside a real agent (issue 23, item 5): the time from the
// agent's launch to its first model request, with our hooks installed and without, in two beads
// folders alike in everything else, as paired runs interleaved (with, without, with, without…) so
// that a machine busy for a moment weighs on both sides. Used by scripts/bench/agents.ts
// (`npm run bench agents`, which prints the figures beside the 25 % bound).
import { createAgentHarness, type AgentKind } from './harness';

export interface StartupCost {
  agent: AgentKind;
  pairs: number;
  /** Median launch-to-first-request time, in ms, with our hooks and without. */
  withHookMs: number;
  withoutHookMs: number;
  /** Median over the pairs of (with / without): the figure the 25 % bound is on. */
  pairedRatio: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export async function measureStartupCost(agent: AgentKind, pairs: number, repo?: string): Promise<StartupCost> {
  const script = [{ when: 'STARTUP', turns: [{ text: 'Ready.' }] }];
  const withHook = await createAgentHarness({ agent, script, repo });
  const withoutHook = await createAgentHarness({ agent, script, repo, hooks: false });
  try {
    const firstRequest = async (harness: typeof withHook) => {
      const turn = await harness.start('STARTUP check');
      if (turn.exitCode !== 0 || turn.firstRequestMs === undefined) throw new Error(`${agent} start failed (${turn.exitCode}): ${turn.stderr.slice(-1000)}`);
      return turn.firstRequestMs;
    };
    // One run of each first, not counted: the first launch of an agent fills its caches.
    await firstRequest(withHook);
    await firstRequest(withoutHook);
    const withTimes: number[] = [];
    const withoutTimes: number[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      // Alternate which side goes first, so neither always runs on a warmer machine.
      if (pair % 2 === 0) {
        withTimes.push(await firstRequest(withHook));
        withoutTimes.push(await firstRequest(withoutHook));
      } else {
        withoutTimes.push(await firstRequest(withoutHook));
        withTimes.push(await firstRequest(withHook));
      }
    }
    return {
      agent,
      pairs,
      withHookMs: median(withTimes),
      withoutHookMs: median(withoutTimes),
      pairedRatio: median(withTimes.map((time, index) => time / (withoutTimes[index] ?? time))),
    };
  } finally {
    await Promise.all([withHook.close(), withoutHook.close()]);
  }
}

export function describeStartupCost(cost: StartupCost): string {
  return `${cost.agent.padEnd(8)} ${String(cost.pairs).padStart(5)} ${cost.withoutHookMs.toFixed(0).padStart(12)} ${cost.withHookMs.toFixed(0).padStart(12)} ${cost.pairedRatio.toFixed(2).padStart(8)} ${(cost.pairedRatio <= STARTUP_BOUND ? 'yes' : 'no').padStart(9)}`;
}

/** Issue 23's bound: the hook adds at most 25 % to the time to the first model request. */
export const STARTUP_BOUND = 1.25;

export const STARTUP_COST_HEADER = `${'agent'.padEnd(8)} ${'pairs'.padStart(5)} ${'without ms'.padStart(12)} ${'with ms'.padStart(12)} ${'ratio'.padStart(8)} ${'≤ 1.25'.padStart(9)}`;
