// Codex, for real, against the OpenAI Responses stand-in (see ./harness.ts, ./scenario.ts). It runs
// the project's hooks with --dangerously-bypass-hook-trust (untrusted hooks never run; see the
// driver's comment), and compacts by its own measure: an answer that reports a context over
// model_auto_compact_token_limit.
import { describe, expect, it } from 'vitest';
import { createAgentHarness } from './harness';
import { describeAgentScenarios, ok, SCRIPT } from './scenario';

describe('Codex', () => {
  describeAgentScenarios('codex', { concurrentSessions: true });

  it('without --dangerously-bypass-hook-trust, hooks nobody trusted in /hooks do not run', async () => {
    const harness = await createAgentHarness({ agent: 'codex', script: SCRIPT, untrustedHooks: true });
    try {
      const start = ok(await harness.start('STEP2 go'));
      expect(harness.hookRuns()).toEqual([]);
      expect(start.requests.map((request) => request.text.includes('## Resuming: '))).toEqual([false]);
    } finally {
      await harness.close();
    }
  });
});
