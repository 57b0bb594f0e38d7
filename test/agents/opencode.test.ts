// opencode, for real, with its Anthropic provider pointed at the Anthropic Messages stand-in (see
// ./harness.ts, ./scenario.ts), with our plugin (.opencode/plugins). No way to make it compact was
// found here, so the compaction scenarios are pending.
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
    pending: {
      'bd-prime': 'bd sets up no prime hook for opencode, so there is nothing to double',
      compaction: 'opencode 1.18.33 does not compact here: `run --command compact` fails and an answer over its context starts no compaction (test/agents/README.md)',
      'second-compaction': 'opencode 1.18.33 does not compact here (see compaction)',
    },
  });
});
