import { defineConfig } from 'vitest/config';

// The real-agent suite (scripts/test-agents.sh): real agent CLIs against model stand-ins. One file
// at a time: each test runs agent processes and hooks, and the machine may have two cores.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
