// The run's own home. The runner starts code-server, and so this extension host, with a home and
// XDG folders inside the scenario's directory (scripts/vscode/runtime.mjs, isolatedHomeEnv): the
// per-user launcher the extension rewrites at every start, and whatever else is per-user, lands
// there, never in the home of whoever runs the tests.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { it } = require('mocha');
const { run, describeIn, activatedApi, waitFor } = require('./scenario.cjs');

const repoRoot = path.resolve(__dirname, '../..');
// The scenario's directory: its workspace is `<directory>/ws`.
const scenarioDir = () => path.dirname(run.workspace);

function insideScenario(file) {
  const relative = path.relative(scenarioDir(), file ?? '');
  return Boolean(file) && relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

describeIn(['br', 'untrusted'], 'the run\'s own home', () => {
  it('every per-user folder the extension and the tools it runs (git, the agents\' files) look at is inside the scenario\'s directory', () => {
    assert.ok(insideScenario(os.homedir()), `the home ${os.homedir()} is inside ${scenarioDir()}`);
    for (const name of ['HOME', 'USERPROFILE', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GIT_CONFIG_GLOBAL']) {
      assert.ok(insideScenario(process.env[name]), `${name}=${process.env[name]} is inside ${scenarioDir()}`);
    }
  });

  it('the extension wrote its per-user launcher into that home, pointing at this extension', async () => {
    await activatedApi();
    const launcher = path.join(os.homedir(), '.beads-recovery', 'bin', 'beads-recovery');
    const text = await waitFor(() => fs.existsSync(launcher) && fs.readFileSync(launcher, 'utf8'), `the launcher ${launcher}`);
    assert.ok(text.includes(path.join(repoRoot, 'dist', 'cli.js')), `the launcher runs this extension's command line:\n${text}`);
  });
});
