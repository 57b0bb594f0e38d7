#!/usr/bin/env node
// Runs the extension in a real VS Code: code-server 4.139.1 (VS Code 1.139.1) on 127.0.0.1,
// installed by scripts/setup-vscode.sh.
//
//   node scripts/run-vscode.mjs --integration  Mocha in the extension host, scenarios br, bd, readonly
//   node scripts/run-vscode.mjs --e2e          test/e2e/*.e2e.mjs against the workbench, extension from the VSIX
//   node scripts/run-vscode.mjs --demo         serve a demo workspace until Ctrl-C (PORT, default 13370)
//
// Env: BEADS_RECOVERY_CACHE (where setup-vscode.sh installed), E2E_PORT (fixed port instead of a
// free one), BEADS_IT_SCENARIOS=br,readonly (a subset), BEADS_IT_GREP (Mocha grep), BEADS_E2E_FILTER (substring of
// "<file> <test name>"), BEADS_IT_TIMEOUT_MS (per scenario), BEADS_E2E_TEST_TIMEOUT_MS (per test),
// BEADS_VSCODE_TIMEOUT_MS (whole run), BEADS_VSCODE_SETTINGS (JSON merged into user settings),
// BEADS_VSCODE_KEEP_RUN=1 (keep the run dir, which is always kept on failure), CHROMIUM.
// The last line is "N passed, N failed"; the exit code is non-zero on any failure.
import fs from 'node:fs';
import { runDemo } from './vscode/demo.mjs';
import { runE2e } from './vscode/e2e.mjs';
import { runIntegration } from './vscode/integration.mjs';
import { assertRuntimeInstalled, developerLauncherState, elapsed, killLiveServers, log, makeRunDir } from './vscode/runtime.mjs';

const modes = { '--integration': runIntegration, '--e2e': runE2e, '--demo': runDemo };
const mode = process.argv[2];
if (!modes[mode] || process.argv.length > 3) {
  console.error(`usage: node scripts/run-vscode.mjs ${Object.keys(modes).join('|')}`);
  process.exit(2);
}

const tally = { passed: 0, failed: 0 };
const summary = () => `${tally.passed} passed, ${tally.failed} failed`;
process.on('exit', killLiveServers);

if (mode === '--demo') {
  assertRuntimeInstalled();
  const runDir = makeRunDir('demo');
  await runDemo(runDir);
  fs.rmSync(runDir, { recursive: true, force: true });
  process.exit(0);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping`);
    process.exit(130);
  });
}
const budgetMs = Number(process.env.BEADS_VSCODE_TIMEOUT_MS || 20 * 60_000);
setTimeout(() => {
  console.log(`The whole run took longer than ${budgetMs / 1000} s: stopping.`);
  tally.failed += 1;
  console.log(summary());
  process.exit(1);
}, budgetMs).unref();

const started = Date.now();
const runDir = makeRunDir(mode.slice(2));
const launcherBefore = developerLauncherState();
try {
  assertRuntimeInstalled();
  await modes[mode](runDir, tally);
} catch (error) {
  tally.failed += 1;
  console.log(`${mode} failed: ${error.stack ?? error}`);
}
if (tally.passed + tally.failed === 0) {
  tally.failed += 1;
  console.log('No test ran.');
}
// Every process of the run has a home of its own (runtime.mjs, isolatedHomeEnv): the extension's
// launcher, which it rewrites at every start, must not have moved in the real one.
const launcherAfter = developerLauncherState();
if (launcherAfter === launcherBefore) {
  tally.passed += 1;
  console.log('  ✓ the run left the per-user launcher in the real home as it was');
} else {
  tally.failed += 1;
  console.log(`  ✗ the run changed the per-user launcher in the real home: a process it started used that home\n      before: ${launcherBefore}\n      after:  ${launcherAfter}`);
}
log(`${mode.slice(2)} finished in ${elapsed(started)}`);
if (tally.failed === 0 && !process.env.BEADS_VSCODE_KEEP_RUN) fs.rmSync(runDir, { recursive: true, force: true });
else log(`run dir kept: ${runDir}`);
console.log(summary());
process.exit(tally.failed === 0 ? 0 : 1);
