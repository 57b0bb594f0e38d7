// The start-up cost of our SessionStart hook in the real agents (test/agents/startupCost.ts): the
// agent's launch to its first model request, without our hooks and with them, median of
// interleaved runs, side by side with their ratio, in two br stores: one whose issues.jsonl is
// current (the hook starts no br) and a fresh clone's (the hook asks br, here the Node stand-in).
// "hook ms" is the hook process's own time, start to exit; "bare node hook" is the floor: the same
// hook commands with a launcher that only starts node. Agents not installed
// (scripts/setup-agents.sh) are named and skipped. The bound (at most 25 % added) is read here, not
// asserted by a test: a timed test on a shared machine fails by the machine's load, not by the
// product's cost. `npm run bench agents claude codex` measures only the agents named.
import fs from 'node:fs';
import path from 'node:path';
import { agentsDir, type AgentKind } from '../../test/agents/harness';
import { describeStartupCost, measureStartupCost, STARTUP_COST_HEADER } from '../../test/agents/startupCost';

// Issue 28 reads its bounds over at least 9 interleaved rounds, each a new session.
const PAIRS = 9;
const AGENTS: AgentKind[] = ['claude', 'codex', 'gemini', 'copilot'];

export async function benchAgentStartup({ repo, words = [] }: { repo: string; words?: string[] }): Promise<void> {
  if (!fs.existsSync(path.join(agentsDir(), 'node_modules', '.bin'))) {
    console.log('no agent CLIs installed: run scripts/setup-agents.sh');
    return;
  }
  const named = AGENTS.filter((agent) => words.includes(agent));
  console.log(`launch to first model request, our hooks installed or not; median of ${PAIRS} interleaved runs of each`);
  console.log('jsonl current: br has written its store last (its issues.jsonl is current): the hook starts no br');
  console.log('br runs: a fresh clone (no database yet): the hook asks br, here the stand-in, a Node script (the real br is a native binary)');
  console.log('bare node hook: the same hook commands, their launcher only starting node to answer {}: the floor for any hook written in Node');
  console.log('least start: a plain Node script doing only what a start from a kept block must (input, stamps, git status, two reads, one durable write), over the floor');
  console.log('over floor: median over the rounds of (ours − floor), and of that over the same round without hooks (% of start; bound 8 % when the jsonl is current)');
  console.log(STARTUP_COST_HEADER);
  for (const agent of named.length > 0 ? named : AGENTS) {
    try {
      console.log(describeStartupCost(await measureStartupCost(agent, PAIRS, repo)));
    } catch (error) {
      console.log(`${agent.padEnd(8)} could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}
