const assert = require('node:assert/strict');
const { before, it } = require('mocha');
const vscode = require('vscode');
const { run, packageJson, describeIn, activatedApi } = require('./scenario.cjs');

describeIn(['br', 'bd'], 'the extension on a workspace with a beads CLI', () => {
  const dialect = run.scenario;
  let api;

  before(async () => {
    api = await activatedApi();
  });

  it('activates on a workspace that contains .beads', () => {
    assert.equal(typeof api.recoveryContext, 'function');
  });

  it(`uses the ${dialect} CLI`, async () => {
    assert.equal(await api.backendKind(), dialect);
  });

  it('registers every command it contributes', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = packageJson.contributes.commands.map(({ command }) => command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, []);
  });

  it('copies the recovery context of the in-progress issue to the clipboard', async () => {
    // The commands are dropped before the trail when the budget is tight (docs/ARCHITECTURE.md), and
    // the trail grows with every test before this one: a budget with room for everything.
    const config = vscode.workspace.getConfiguration('beadsRecovery');
    await config.update('recoveryBudgetBytes', 16384, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.env.clipboard.writeText('');
      await vscode.commands.executeCommand('beadsRecovery.copyRecoveryContext');
      const copied = await vscode.env.clipboard.readText();
      assert.match(copied, /## Resuming: demo-1 — Parse widget config/);
      const cliNames = [...copied.matchAll(/^- `?(bd|br) /gm)].map((match) => match[1]);
      assert.ok(cliNames.length > 0, `no essential commands in:\n${copied}`);
      assert.deepEqual([...new Set(cliNames)], [dialect]);
      assert.equal(copied, (await api.recoveryContext()).markdown);
    } finally {
      await config.update('recoveryBudgetBytes', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
