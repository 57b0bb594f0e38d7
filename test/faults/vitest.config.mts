import { defineConfig } from 'vitest/config';

// The randomized fault suite (scripts/test-all.sh "faults"): programs of real processes against
// the stand-in CLIs with both cores kept busy. One file at a time: each starts its own busy loops.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
