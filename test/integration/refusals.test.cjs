// A refusal is final, in a real extension host against the stand-in CLIs: when br or bd declines
// a close or a claim, the user sees the CLI's own reason, the issue stays as it was, and nothing
// is left queued or parked for a retry. The workspace is shared with the other files, so these
// tests only ask for writes the CLI refuses: they change nothing.
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { before, after, it } = require('mocha');
const vscode = require('vscode');
const { run, describeIn, activatedApi } = require('./scenario.cjs');

/** The stand-in as a person at a terminal would run it: no fault, not in the call log. */
function cli(...args) {
  const env = { ...process.env, BEADS_STANDIN_FAULT_FILE: '', BEADS_STANDIN_FAULT: '', BEADS_STANDIN_LOG: '' };
  return JSON.parse(execFileSync(run.scenario, [...args, '--json'], { cwd: run.workspace, env, encoding: 'utf8' }));
}

function show(id) {
  return cli('show', id)[0];
}

describeIn(['br', 'bd'], 'refusals are shown with the CLI reason and never queued', function () {
  this.timeout(60_000);
  const shown = [];
  let original;

  before(async () => {
    await activatedApi();
    // The error notifications the extension shows, as the user reads them.
    original = vscode.window.showErrorMessage;
    vscode.window.showErrorMessage = (message, ...rest) => {
      shown.push(String(message));
      return original.call(vscode.window, message, ...rest);
    };
  });

  after(() => {
    vscode.window.showErrorMessage = original;
  });

  async function nothingQueued() {
    assert.deepEqual(await vscode.commands.executeCommand('beadsRecovery.retryPendingWrites'), { pending: 0, failed: 0 });
  }

  it('closing an epic with an open child shows the reason, and the epic stays open', async () => {
    shown.length = 0;
    const outcome = await vscode.commands.executeCommand('beadsRecovery.close', { issueId: 'demo-ops', reason: 'Done', offer: false, force: false });
    assert.equal(outcome, undefined);
    const reason = run.scenario === 'br' ? /epic has 1\/1 open children/ : /cannot close epic demo-ops: 1 open child issue/;
    assert.ok(shown.some((message) => reason.test(message)), `notifications: ${JSON.stringify(shown)}`);
    assert.equal(show('demo-ops').status, 'open');
    assert.ok(!(show('demo-ops').comments ?? []).some((comment) => comment.text.startsWith('Files modified')));
    await nothingQueued();
  });

  it('closing a blocked issue shows the reason, and the issue stays open', async () => {
    shown.length = 0;
    const outcome = await vscode.commands.executeCommand('beadsRecovery.close', { issueId: 'demo-6', reason: 'Done', offer: false, force: false });
    assert.equal(outcome, undefined);
    const reason = run.scenario === 'br' ? /blocked by: demo-1, demo-7/ : /cannot close demo-6: blocked by open issues/;
    assert.ok(shown.some((message) => reason.test(message)), `notifications: ${JSON.stringify(shown)}`);
    assert.equal(show('demo-6').status, 'open');
    await nothingQueued();
  });

  it('claiming an issue the CLI will not hand out shows the reason, and changes nothing', async () => {
    shown.length = 0;
    // bd claims only open issues (demo-4 is closed); br refuses a blocked one (demo-5 waits for demo-1).
    const issueId = run.scenario === 'bd' ? 'demo-4' : 'demo-5';
    const before = show(issueId);
    const result = await vscode.commands.executeCommand('beadsRecovery.claim', issueId);
    assert.equal(result, undefined);
    const reason = run.scenario === 'bd' ? /Error claiming demo-4: issue not claimable: status closed|not claimable/ : /cannot claim blocked issue: demo-1/;
    assert.ok(shown.some((message) => reason.test(message)), `notifications: ${JSON.stringify(shown)}`);
    const after = show(issueId);
    assert.equal(after.status, before.status);
    assert.equal(after.assignee, before.assignee);
    await nothingQueued();
  });
});
