// Mocha inside the real Node extension host, once per scenario, each on its own server and fresh
// workspace. The workbench URL's payload loads the extension from the repo in development mode
// and requires test/integration/index.cjs, as @vscode/test-electron would.
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser } from './browser.mjs';
import { makeScenarioWorkspace, pathWithStandIns, pathWithoutBeadsCli, standInEnv } from './beads-env.mjs';
import { elapsed, log, repoRoot, standInBinDir, startServer, tail, withTimeout } from './runtime.mjs';

export const scenarios = [
  { name: 'br', dialect: 'br', searchPath: pathWithStandIns, settings: {} },
  { name: 'bd', dialect: 'bd', searchPath: pathWithStandIns, settings: { 'beadsRecovery.cli': 'bd' } },
  { name: 'readonly', dialect: 'br', searchPath: pathWithoutBeadsCli, settings: {} },
  { name: 'plain', beads: false, searchPath: pathWithStandIns, settings: {} },
  // Workspace Trust on and the folder never trusted: Restricted Mode, with the stand-ins on PATH
  // and a user CLI path that both must go unused.
  { name: 'untrusted', dialect: 'br', searchPath: pathWithStandIns, workspaceTrust: true, settings: { 'beadsRecovery.cliPath': path.join(standInBinDir, 'br') } },
];

export async function runIntegration(runDir, tally) {
  const wanted = process.env.BEADS_IT_SCENARIOS?.split(',').map((name) => name.trim());
  for (const scenario of scenarios.filter(({ name }) => !wanted || wanted.includes(name))) {
    const started = Date.now();
    const dir = path.join(runDir, scenario.name);
    let result;
    try {
      result = await runScenario(dir, scenario);
    } catch (error) {
      result = { passes: 0, failures: 1, problem: error.message };
    }
    if (fs.existsSync(mochaOutput(dir))) console.log(indent(fs.readFileSync(mochaOutput(dir), 'utf8')));
    tally.passed += result.passes;
    tally.failed += result.failures;
    log(`scenario ${scenario.name}: ${result.passes} passed, ${result.failures} failed in ${elapsed(started)}`);
    if (result.failures > 0) reportFailure(dir, result.problem);
  }
}

async function runScenario(dir, scenario) {
  fs.mkdirSync(dir, { recursive: true });
  const workspace = await makeScenarioWorkspace(path.join(dir, 'ws'), scenario);
  const resultFile = path.join(dir, 'mocha-result.json');
  const server = await startServer({
    dir,
    workspace,
    smokeTestDriver: true,
    workspaceTrust: scenario.workspaceTrust,
    settings: scenario.settings,
    env: {
      PATH: scenario.searchPath(),
      BEADS_IT_SCENARIO: scenario.name,
      BEADS_IT_WORKSPACE: workspace,
      BEADS_IT_RESULT: resultFile,
      BEADS_IT_OUTPUT: mochaOutput(dir),
      ...standInEnv(dir),
    },
  });
  let browser;
  try {
    browser = await openBrowser(dir, server.origin);
    // When the tests end, the extension host exits and the workbench reports its exit code here.
    const exitCode = new Promise((resolve) => browser.page.exposeFunction('codeAutomationExit', resolve));
    const payload = [
      ['extensionDevelopmentPath', server.remoteUri(repoRoot)],
      ['extensionTestsPath', server.remoteUri(path.join(repoRoot, 'test/integration/index.cjs'))],
    ];
    await browser.page.goto(server.folderUrl(`&payload=${encodeURIComponent(JSON.stringify(payload))}`));
    const timeoutMs = Number(process.env.BEADS_IT_TIMEOUT_MS || 180_000);
    const code = await withTimeout(exitCode, timeoutMs, `scenario ${scenario.name}`).catch(async (error) => {
      await browser.page.screenshot({ path: path.join(dir, 'failure.png') }).catch(() => {});
      throw error;
    });
    const result = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : null;
    if (!result) return { passes: 0, failures: 1, problem: `the test runner wrote no result (exit code ${code})` };
    if (code !== 0 && result.failures === 0) return { ...result, failures: 1, problem: `extension host exit code ${code}` };
    return result;
  } finally {
    await browser?.context.close().catch(() => {});
    await server.stop();
  }
}

function reportFailure(dir, problem) {
  if (problem) console.log(`  problem: ${problem}`);
  console.log(`--- ${dir}/server.log (tail) ---\n${tail(path.join(dir, 'server.log'), 2000)}`);
  for (const file of extensionHostLogs(path.join(dir, 'user-data/logs'))) console.log(`--- ${file} (errors) ---\n${matchingLines(file, /\[error\]/)}`);
  console.log(`--- ${dir}/browser-console.log (errors) ---\n${matchingLines(path.join(dir, 'browser-console.log'), /^\[(error|pageerror)\]/)}`);
}

function extensionHostLogs(logsDir) {
  if (!fs.existsSync(logsDir)) return [];
  return fs.readdirSync(logsDir, { recursive: true })
    .filter((file) => path.basename(file) === 'remoteexthost.log')
    .map((file) => path.join(logsDir, file));
}

// Without network, the gallery, GitHub sign-in and some workbench resources always fail: not news.
const harmless = /open-vsx\.org|ERR_NAME_NOT_RESOLVED|status of 404|authentication provider 'github'/;

function matchingLines(file, pattern) {
  if (!fs.existsSync(file)) return '(none)';
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => pattern.test(line) && !harmless.test(line));
  return lines.slice(-30).join('\n').slice(-4000) || '(none)';
}

const mochaOutput = (dir) => path.join(dir, 'mocha-output.log');
const indent = (text) => text.replace(/^/gm, '  ').trimEnd();
