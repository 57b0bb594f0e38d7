const assert = require('node:assert/strict');
const fs = require('node:fs');
const { before, it } = require('mocha');
const vscode = require('vscode');
const { describeIn, activatedApi, packageJson, run } = require('./scenario.cjs');

// Restricted Mode: Workspace Trust is on and the folder was never trusted. The manifest declares
// limited support (capabilities.untrustedWorkspaces), so VS Code still runs the extension, and
// the extension keeps to read-only: the stand-in CLIs are on PATH and the user's cliPath names
// one, yet no beads CLI and no git is started.
describeIn(['untrusted'], 'the extension in Restricted Mode', () => {
  let api;

  before(async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the scenario must open the folder untrusted');
    api = await activatedApi();
  });

  it('is enabled because the manifest declares limited support, restricting the settings that pick a binary', () => {
    const untrusted = packageJson.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.ok(untrusted.restrictedConfigurations.includes('beadsRecovery.cliPath'));
    assert.ok(untrusted.restrictedConfigurations.includes('beadsRecovery.cli'));
  });

  it('reads .beads/issues.jsonl and starts no beads CLI', async () => {
    assert.equal(await api.backendKind(), 'jsonl');
    const calls = fs.existsSync(run.callLog) ? fs.readFileSync(run.callLog, 'utf8').trim() : '';
    assert.equal(calls, '', 'no stand-in CLI may have been run');
  });

  it('copies a read-only recovery context without running git', async () => {
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('beadsRecovery.copyRecoveryContext');
    const copied = await vscode.env.clipboard.readText();
    assert.match(copied, /## Resuming: demo-1 — Parse widget config/);
    assert.match(copied, /Read-only here/);
    assert.match(copied, /git is not run in an untrusted workspace/);
  });

  it('refuses to write: a checkpoint is not queued and no CLI runs', async () => {
    const result = await vscode.commands.executeCommand('beadsRecovery.checkpoint', { message: 'must not be written' });
    assert.equal(result, undefined);
    const calls = fs.existsSync(run.callLog) ? fs.readFileSync(run.callLog, 'utf8').trim() : '';
    assert.equal(calls, '');
  });
});
