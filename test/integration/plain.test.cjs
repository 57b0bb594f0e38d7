const assert = require('node:assert/strict');
const { it } = require('mocha');
const vscode = require('vscode');
const { describeIn, packageJson } = require('./scenario.cjs');

describeIn(['plain'], 'the extension in a folder without beads', () => {
  const extension = () => vscode.extensions.getExtension(`${packageJson.publisher}.${packageJson.name}`);

  it('does not activate by itself', async () => {
    // Give the workbench time to fire its startup activation events.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(extension().isActive, false);
  });

  it('answers a command in one line and leaves the clipboard alone', async () => {
    await vscode.env.clipboard.writeText('untouched');
    await vscode.commands.executeCommand('beadsRecovery.copyRecoveryContext');
    assert.equal(await vscode.env.clipboard.readText(), 'untouched');
    const result = await extension().exports.recoveryContext();
    assert.equal(result.state, 'not-beads');
    assert.equal(result.markdown.split('\n').length, 1);
    assert.equal(await extension().exports.backendKind(), undefined);
  });
});
