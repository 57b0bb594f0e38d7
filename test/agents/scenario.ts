// What every agent's scenario shares: the model's script and the checks on the hooks and the network.
import { expect } from 'vitest';
import type { AgentHarness } from './harness';
import type { ScriptStep } from './modelStandin';

/** STEP1 edits a file and runs a command; the other steps just answer. */
export const SCRIPT: ScriptStep[] = [
  { when: 'STEP1', turns: [{ write: { path: 'notes.txt', content: 'first notes\n' } }, { shell: 'echo ran > ran.txt && ls' }, { text: 'Wrote the notes and ran the command.' }] },
  { when: 'STEP2', turns: [{ text: 'Continuing.' }] },
  { when: 'STEP3', turns: [{ text: 'Still here.' }] },
  { when: 'STEP4', turns: [{ shell: 'echo more > more.txt' }, { text: 'More work done.' }] },
];

/** The product's promise: a hook answers within 20 seconds, exit 0, with valid JSON or nothing. */
const HOOK_DEADLINE_MS = 20_000;

export function expectHooksAnsweredInTime(harness: AgentHarness): void {
  const runs = harness.hookRuns();
  expect(runs.length).toBeGreaterThan(0);
  for (const run of runs) {
    expect(run.exitCode, `${run.event} exit code`).toBe(0);
    expect(run.durationMs, `${run.event} took ${run.durationMs} ms`).toBeLessThan(HOOK_DEADLINE_MS);
    if (run.stdout.trim() !== '') expect(() => JSON.parse(run.stdout), `${run.event} printed ${run.stdout}`).not.toThrow();
  }
}

/** Nothing tried to leave 127.0.0.1 through the proxy the agent was given. */
export function expectNoEgress(harness: AgentHarness): void {
  expect(harness.standin.egress).toEqual([]);
}
