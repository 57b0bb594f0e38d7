// opencode, for real, with its Anthropic provider pointed at the Anthropic Messages stand-in (see
// ./harness.ts, ./scenario.ts), with our plugin (.opencode/plugins). It compacts by its own measure
// (an answer over the model's context, as the harness's opencode.json sets it) and goes on with the
// turn: the request right after the summary carries the block.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, rulesCount } from './harness';
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

  // opencode names a new session by sending its first message whole to its small model, without
  // tools (SessionPrompt.ensureTitle): the stand-in answers that request as a side request. The
  // start block goes with every conversation request instead, never into the stored message.
  it("the title request carries no block; every turn carries it once, and a resume too", async () => {
    const harness = await createAgentHarness({ agent: 'opencode', script: SCRIPT });
    try {
      const start = ok(await harness.start('STEP1 write the notes'));
      const titles = harness.standin.requests.filter((request) => request.kind === 'side');
      expect(titles.length, 'opencode asked for a title').toBeGreaterThan(0);
      for (const title of titles) {
        expect(title.text).toContain('STEP1 write the notes');
        expect(title.text).not.toContain('beads-recovery block');
        expect(rulesCount(title)).toBe(0);
      }
      expect(start.requests.filter((request) => request.kind === 'turn').map(blockCount)).toEqual([1, 1, 1]);
      const next = ok(await harness.resume(start.session, 'STEP2 go on'));
      expect(next.requests.filter((request) => request.kind === 'turn').map(blockCount)).toEqual([1]);
      expect(harness.standin.requests.filter((request) => request.kind === 'side')).toHaveLength(titles.length);
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
