import { defineConfig } from 'vitest/config';

// Unit tests only: test/integration runs inside a real VS Code extension host, not under vitest.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
