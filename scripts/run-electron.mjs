#!/usr/bin/env node
// The integration suite in desktop VS Code, for machines that can download it: the same
// scenarios and tests as `run-vscode.mjs --integration`, launched through @vscode/test-electron
// instead of code-server. Usage: node scripts/run-electron.mjs [--version 1.95.0|stable]
// (1.95.0 is the engines.vscode floor; test it and the current release).
import { runTests } from '@vscode/test-electron';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeScenarioWorkspace, standInEnv } from './vscode/beads-env.mjs';
import { scenarios } from './vscode/integration.mjs';
import { isolatedHomeEnv, repoRoot } from './vscode/runtime.mjs';

const versionFlag = process.argv.indexOf('--version');
const version = versionFlag > 0 ? process.argv[versionFlag + 1] : 'stable';
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brv-electron-'));
let passed = 0;
let failed = 0;
for (const scenario of scenarios) {
  const dir = path.join(runDir, scenario.name);
  const workspace = await makeScenarioWorkspace(path.join(dir, 'ws'), scenario);
  const userData = path.join(dir, 'user-data');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User/settings.json'), JSON.stringify({ 'security.workspace.trust.enabled': false, ...scenario.settings }));
  const resultFile = path.join(dir, 'mocha-result.json');
  try {
    await runTests({
      version,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'test/integration/index.cjs'),
      launchArgs: [workspace, '--user-data-dir', userData, '--disable-extensions'],
      // VS Code and its extension host get the run's own home, as under code-server.
      extensionTestsEnv: {
        ...isolatedHomeEnv(dir),
        PATH: scenario.searchPath(),
        BEADS_IT_SCENARIO: scenario.name,
        BEADS_IT_WORKSPACE: workspace,
        BEADS_IT_RESULT: resultFile,
        BEADS_IT_OUTPUT: path.join(dir, 'mocha-output.txt'),
        ...standInEnv(dir),
      },
    });
  } catch (error) {
    console.error(`scenario ${scenario.name}: ${error instanceof Error ? error.message : error}`);
  }
  const result = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : { passes: 0, failures: 1 };
  passed += result.passes;
  failed += result.failures;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
