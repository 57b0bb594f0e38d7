// opencode, for real, with its Anthropic provider pointed at the Anthropic Messages stand-in (see
// ./harness.ts, ./scenario.ts), with our plugin (.opencode/plugins). It compacts by its own measure
// (an answer over the model's context, as the harness's opencode.json sets it) and goes on with the
// turn: the request right after the summary carries the block.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentHarness } from './harness';
import { describeAgentScenarios, expectNoEgress, ok, SCRIPT } from './scenario';

describe('opencode', () => {
  it('runs a scripted session against the stand-in: the edit and the command, nothing off the machine', async () => {
    const harness = await createAgentHarness({ agent: 'opencode', script: SCRIPT, hooks: false });
    try {
      const start = ok(await harness.start('STEP1 write the notes'));
      expect(start.requests.filter((request) => request.kind === 'turn').length).toBe(3);
      expect(fs.readFileSync(path.join(harness.dir, 'notes.txt'), 'utf8')).toBe('first notes\n');
      expect(fs.readFileSync(path.join(harness.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
      expectNoEgress(harness);
    } finally {
      await harness.close();
    }
  });

  describeAgentScenarios('opencode', {
    // A second `opencode run` beside the first, on the same data folder, exits 1 ("Unexpected error").
    concurrentSessions: false,
    continuesAfterCompaction: true,
    pending: {
      'bd-prime': 'bd sets up no prime hook for opencode, so there is nothing to double',
    },
  });
});
