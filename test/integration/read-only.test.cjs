const assert = require('node:assert/strict');
const { before, it } = require('mocha');
const vscode = require('vscode');
const { describeIn, activatedApi } = require('./scenario.cjs');

describeIn(['readonly'], 'the extension on a workspace without any beads CLI', () => {
  let api;

  before(async () => {
    api = await activatedApi();
  });

  it('falls back to reading .beads/issues.jsonl', async () => {
    assert.equal(await api.backendKind(), 'jsonl');
  });

  it('still copies a recovery context that resumes demo-1 and says it is read-only', async () => {
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('beadsRecovery.copyRecoveryContext');
    const copied = await vscode.env.clipboard.readText();
    assert.match(copied, /## Resuming: demo-1 — Parse widget config/);
    assert.match(copied, /read-only/i);
    assert.equal(copied, (await api.recoveryContext()).markdown);
  });
});
