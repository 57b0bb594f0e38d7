import { defineConfig } from 'vitest/config';

// The Windows suite (scripts/test-windows.sh, `npm test`'s "windows"): hook commands and the
// launcher run in Wine's cmd.exe. One file at a time: its tests share one wineserver.
export default defineConfig({
  test: {
    include: ['test/windows/**/*.test.ts'],
    testTimeout: 120_000,
    fileParallelism: false,
  },
});
