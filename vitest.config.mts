import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Unit tests only: test/integration runs inside a real VS Code extension host, not under vitest.
// `npx vitest run` runs all of them, in three lanes (`--project NAME` runs one):
//   fast        the pure core and every test that starts no process: `npm run test:fast`, under a minute;
//   processes   tests that start processes (the stand-in CLIs, git, a shell, the built command line, ESLint,
//               the opencode plugin, which starts its launcher);
//   randomized  the randomized fault tests, which keep both cores busy for minutes.
// A test's lane follows from what it does, read from its source here, so a new test lands in the
// right lane without a list to keep.
const UNIT = 'test/unit';
const RANDOMIZED = /\.faults\.test\.ts$/;
const STARTS_PROCESSES =
  /from 'node:child_process'|fixtures\/bin|support\/builtCli|make-workspace|from 'eslint'|\bdpdm\b|\b(?:checkpointCommand|hooksCommand|opencodePluginText|recoveryContextFor|runCheckpoint|runCli|runGit|serveMcp)\b/;

const unitTests = readdirSync(UNIT, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `${UNIT}/${file.split(path.sep).join('/')}`);
const randomized = unitTests.filter((file) => RANDOMIZED.test(file));
const processes = unitTests.filter((file) => !RANDOMIZED.test(file) && STARTS_PROCESSES.test(readFileSync(file, 'utf8')));
const fast = unitTests.filter((file) => !randomized.includes(file) && !processes.includes(file));

// Vitest leaves one core to its own process by default, which on a 2-core CI machine runs every
// file of a lane one after another. Its main process is idle while the files run, so the fast and
// processes lanes use every core (measured on 2 cores: the processes lane's files take 340 s in a
// row). The randomized lane keeps its own busy loops running, so it stays at one file at a time.
const everyCore = availableParallelism();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'fast', include: fast, maxWorkers: everyCore } },
      { extends: true, test: { name: 'processes', include: processes, maxWorkers: everyCore } },
      { extends: true, test: { name: 'randomized', include: randomized, maxWorkers: 1 } },
    ],
  },
});
