// The harness itself: a setup that fails leaves no temp folder behind.
import fs from 'node:fs';
import os from 'node:os';
import { expect, it } from 'vitest';
import { createAgentHarness } from './harness';

it('a harness whose setup fails removes its temp folder', async () => {
  const ours = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('agent-opencode-'));
  const before = ours();
  // bd sets up no prime hook for opencode: the setup throws after the folder and the stand-in exist.
  await expect(createAgentHarness({ agent: 'opencode', bdPrime: true, hooks: false })).rejects.toThrow(/no prime hook for opencode/);
  expect(ours()).toEqual(before);
});
