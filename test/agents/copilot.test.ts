// Copilot CLI, for real, with its own model provider (BYOK) pointed at the Anthropic Messages
// stand-in (see ./harness.ts, ./scenario.ts). It loads .github/hooks/*.json, VS Code's format
// included, once the folder is trusted (COPILOT_ALLOW_ALL=true), and compacts by its own measure:
// an answer that reports more than COPILOT_PROVIDER_MAX_PROMPT_TOKENS.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness } from './harness';
import { COMPACTION_SUMMARY } from './modelStandin';
import { describeAgentScenarios, ok, SCRIPT } from './scenario';

describe('Copilot CLI', () => {
  describeAgentScenarios('copilot', { concurrentSessions: false });

  it('within the run that compacts, the requests after the summary hold the block once: the hand-over after the compaction, the start context having gone with it', async () => {
    const harness = await createAgentHarness({ agent: 'copilot', script: SCRIPT });
    try {
      const { session } = ok(await harness.start('STEP1 write the notes'));
      const compact = ok(await harness.compact(session));
      expect(fs.readFileSync(compact.transcriptPath ?? '', 'utf8'), 'Copilot CLI applied its compaction').toMatch(/"type":"session\.compaction_complete","data":\{"success":true/);
      const afterSummary = compact.requests.filter((request) => request.kind === 'turn' && request.text.includes(COMPACTION_SUMMARY));
      expect(afterSummary.length).toBeGreaterThan(0);
      expect(afterSummary.map(blockCount)).toEqual(afterSummary.map(() => 1));
      expect(afterSummary[0]?.text).toContain('The conversation was compacted; this is the beads recovery context.');
    } finally {
      await harness.close();
    }
  });
});
