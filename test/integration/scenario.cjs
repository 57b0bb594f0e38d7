// What the driver (scripts/run-vscode.mjs --integration) tells the tests about the current run,
// and helpers shared by the test files.
const fs = require('node:fs');
const path = require('node:path');
const { describe } = require('mocha');
const vscode = require('vscode');

const repoRoot = path.resolve(__dirname, '../..');
const packageJson = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const extensionId = `${packageJson.publisher}.${packageJson.name}`;

/** The run's scenario (br, bd or readonly), its workspace and the stand-in CLIs' fault and call-log files. */
const run = {
  scenario: process.env.BEADS_IT_SCENARIO,
  workspace: process.env.BEADS_IT_WORKSPACE,
  faultFile: process.env.BEADS_STANDIN_FAULT_FILE,
  callLog: process.env.BEADS_STANDIN_LOG,
};

/** Registers a Mocha suite only when the current scenario is one of `scenarios`. */
function describeIn(scenarios, title, body) {
  if (scenarios.includes(run.scenario)) describe(`${title} [${run.scenario}]`, body);
}

/**
 * Waits for the extension to activate by itself (no activate() call, so the activation events are
 * what is tested) and returns the API object activate() returned.
 */
async function activatedApi(timeoutMs = 20_000) {
  const extension = vscode.extensions.getExtension(extensionId);
  if (!extension) throw new Error(`${extensionId} is not installed in this extension host`);
  const deadline = Date.now() + timeoutMs;
  while (!extension.isActive) {
    if (Date.now() > deadline) throw new Error(`${extensionId} did not activate within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return extension.exports;
}

/**
 * The one wait of the integration tests: polls `condition` until it returns a truthy value and
 * returns it; past `timeoutMs` it fails, naming `what` it waited for and the last value seen.
 * Tests wait for a condition, never for a fixed time (code-server flakes under load).
 */
async function waitFor(condition, what, timeoutMs = 15_000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await condition();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

module.exports = { run, packageJson, describeIn, activatedApi, waitFor };
