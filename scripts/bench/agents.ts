// The start-up cost of our SessionStart hook in the real agents (test/agents/startupCost.ts): the
// agent's launch to its first model request, with our hooks and without, median of interleaved
// pairs, side by side with their ratio. Agents not installed (scripts/setup-agents.sh) are named
// and skipped. The bound (at most 25 % added) is read here, not asserted by a test: a timed test
// on a shared machine fails by the machine's load, not by the product's cost.
import fs from 'node:fs';
import path from 'node:path';
import { agentsDir, type AgentKind } from '../../test/agents/harness';
import { describeStartupCost, measureStartupCost, STARTUP_COST_HEADER } from '../../test/agents/startupCost';

const PAIRS = 7;
const AGENTS: AgentKind[] = ['claude', 'codex', 'gemini', 'copilot'];

export async function benchAgentStartup({ repo }: { repo: string }): Promise<void> {
  if (!fs.existsSync(path.join(agentsDir(), 'node_modules', '.bin'))) {
    console.log('no agent CLIs installed: run scripts/setup-agents.sh');
    return;
  }
  console.log(`launch to first model request, our SessionStart hook installed or not; median of ${PAIRS} interleaved pairs`);
  console.log(STARTUP_COST_HEADER);
  for (const agent of AGENTS) {
    try {
      console.log(describeStartupCost(await measureStartupCost(agent, PAIRS, repo)));
    } catch (error) {
      console.log(`${agent.padEnd(8)} could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}
