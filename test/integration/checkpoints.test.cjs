// Checkpoints, the outbox, claim and close in a real extension host against the stand-in `br`.
// The tests share the scenario's workspace with the other files, so they leave it as they found
// it: demo-1 the one issue in progress (the issue they claim, demo-8, is closed again).
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { before, after, it } = require('mocha');
const vscode = require('vscode');
const { run, describeIn, activatedApi, waitFor } = require('./scenario.cjs');

/** The stand-in as a person at a terminal would run it: no fault, not in the call log. */
function br(...args) {
  const env = { ...process.env, BEADS_STANDIN_FAULT_FILE: '', BEADS_STANDIN_FAULT: '', BEADS_STANDIN_LOG: '' };
  return JSON.parse(execFileSync('br', [...args, '--json'], { cwd: run.workspace, env, encoding: 'utf8' }));
}

function commentsOf(id) {
  return br('comments', id).map((comment) => comment.text);
}

function count(texts, wanted) {
  return texts.filter((text) => text === wanted || text.startsWith(`${wanted}\n`)).length;
}

/** Every stand-in invocation the extension made so far, in order. */
function calls() {
  if (!run.callLog || !fs.existsSync(run.callLog)) return [];
  return fs
    .readFileSync(run.callLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

function setFault(text) {
  if (text) fs.writeFileSync(run.faultFile, `${text}\n`);
  else fs.rmSync(run.faultFile, { force: true });
}


/**
 * Writes a file the way a user does, through an editor save, and waits until the ledger of
 * `issueId` lists it. On a loaded machine a save can be refused (save participants time out) and
 * an unshown document can be closed under us, so each try starts from the document as it is now;
 * files written by other processes reach the ledger through the file watcher, which
 * activity.test.cjs covers.
 */
async function saveInEditor(relativePath, text, issueId) {
  const uri = vscode.Uri.file(path.join(run.workspace, relativePath));
  const created = new vscode.WorkspaceEdit();
  created.createFile(uri, { ignoreIfExists: true });
  assert.equal(await vscode.workspace.applyEdit(created), true);
  await waitFor(async () => {
    try {
      const document = await vscode.workspace.openTextDocument(uri);
      if (document.getText() !== text) {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(uri, new vscode.Range(0, 0, document.lineCount, 0), text);
        if (!(await vscode.workspace.applyEdit(edit))) return false;
      }
      return (await document.save()) || (!document.isDirty && document.getText() === text);
    } catch {
      return false; // "Document has been closed": try again with a fresh one
    }
  }, `a save of ${relativePath}`);
  await waitFor(() => ledgerOnDisk()?.ledgers?.[issueId]?.files?.includes(relativePath), `${relativePath} in the ledger of ${issueId}`, 30_000);
}

/** The ledger the extension keeps for the workspace, as written to disk. */
function ledgerOnDisk() {
  const file = path.join(run.workspace, '.git', 'beads-recovery', 'ledger.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}

describeIn(['br'], 'checkpoints, the outbox, claim and close', function () {
  // Generous: these tests wait for file events, saves and backoffs on a machine that may be busy.
  this.timeout(90_000);
  let api;

  before(async () => {
    api = await activatedApi();
    // The activity tracker and the outbox open in the background after activation.
    await waitFor(() => ledgerOnDisk()?.focusedId === 'demo-1', 'the ledger of demo-1');
  });

  after(() => setFault(undefined));

  it('Checkpoint Now writes "Checkpoint: <text>" on the focused issue, once', async () => {
    const result = await vscode.commands.executeCommand('beadsRecovery.checkpoint', { message: 'integration: parser half done' });
    assert.equal(result.issueId, 'demo-1');
    assert.equal(result.state, 'written');
    assert.equal(count(commentsOf('demo-1'), 'Checkpoint: integration: parser half done'), 1);
  });

  it('with the CLI locked, the write is queued and lands exactly once after it recovers', async () => {
    const checkpointedAt = () => ledgerOnDisk()?.ledgers?.['demo-1']?.lastCheckpointAt;
    const before = checkpointedAt();
    setFault('locked write');
    const queued = await vscode.commands.executeCommand('beadsRecovery.checkpoint', { message: 'integration: written while locked' });
    assert.equal(queued.state, 'queued');
    // Only queued: the ledger does not count it yet.
    assert.equal(checkpointedAt(), before);
    const stillLocked = await vscode.commands.executeCommand('beadsRecovery.retryPendingWrites');
    assert.ok(stillLocked.pending >= 1, `pending ${stillLocked.pending}`);
    assert.equal(count(commentsOf('demo-1'), 'Checkpoint: integration: written while locked'), 0);
    const refused = calls().filter((call) => call.args[0] === 'comments' && call.fault);
    assert.ok(refused.length >= 2, `expected the outbox to have tried again, saw ${refused.length} refused attempts`);
    // The window's own context says so with its words, as the hooks' and the command line's do.
    const whileLocked = await api.recoveryContext();
    assert.match(whileLocked.markdown, /### Not in Beads Yet[\s\S]*Queued, not in beads yet[\s\S]*integration: written while locked/);

    setFault(undefined);
    const recovered = await vscode.commands.executeCommand('beadsRecovery.retryPendingWrites');
    assert.deepEqual(recovered, { pending: 0, failed: 0 });
    assert.equal(count(commentsOf('demo-1'), 'Checkpoint: integration: written while locked'), 1);
    // Landed: now it counts.
    await waitFor(() => (checkpointedAt() ?? 0) > (before ?? 0), 'the landed checkpoint in the ledger');
    const landed = calls().filter((call) => call.args[0] === 'comments' && call.exit === 0 && call.args.some((arg) => arg.includes('written while locked')));
    assert.equal(landed.length, 1);
  });

  it('shows a thread this machine kept instead of writing it to beads, and not once the thread is off', async () => {
    // What the checkpoint flow keeps with beadsRecovery.thread.destination "local", beside the ledger.
    const kept = path.join(run.workspace, '.git', 'beads-recovery', 'threads.json');
    const marker = 'kept-on-this-machine-7f3';
    fs.writeFileSync(kept, JSON.stringify({ version: 1, threads: [{ issueId: 'demo-1', at: Date.now(), full: `Checkpoint: ${marker}` }] }));
    const settings = vscode.workspace.getConfiguration('beadsRecovery');
    try {
      assert.match((await api.recoveryContext()).markdown, new RegExp(marker));
      await settings.update('thread.destination', 'off', vscode.ConfigurationTarget.Workspace);
      assert.doesNotMatch((await api.recoveryContext()).markdown, new RegExp(marker));
    } finally {
      await settings.update('thread.destination', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(kept, { force: true });
    }
  });

  it('writes an automatic checkpoint with the files changed before a recovery context is produced', async () => {
    // Other suites may have produced contexts (and so automatic checkpoints) before this one.
    const automatic = () => commentsOf('demo-1').filter((text) => text.startsWith('Auto-checkpoint (before recovery):'));
    const earlier = automatic().length;
    await saveInEditor('src/auto-checkpoint.ts', 'export const changed = true;\n', 'demo-1');
    const context = await api.recoveryContext();
    const added = automatic().slice(earlier);
    assert.equal(added.length, 1);
    assert.match(added[0], /- Files: .*src\/auto-checkpoint\.ts/);
    assert.match(context.markdown, /Auto-checkpoint \(before recovery\)/);
    // Nothing new since: the next context writes no second one.
    await api.recoveryContext();
    assert.equal(automatic().length, earlier + 1);
  });

  it('close writes the file list once the close has landed and offers the next ready issue', async () => {
    const claimed = await vscode.commands.executeCommand('beadsRecovery.claim', 'demo-8');
    assert.equal(claimed.outcome.state, 'written');
    assert.equal(br('show', 'demo-8')[0].status, 'in_progress');
    await waitFor(() => ledgerOnDisk()?.focusedId === 'demo-8', 'the focus on demo-8');

    await saveInEditor('src/closing.ts', 'export const closing = 1;\n', 'demo-8');

    const outcome = await vscode.commands.executeCommand('beadsRecovery.close', { issueId: 'demo-8', reason: 'Verified: integration test', offer: false });
    assert.equal(outcome.state, 'closed');
    assert.match(outcome.filesComment, /^Files modified: .*src\/closing\.ts/);
    const shown = br('show', 'demo-8')[0];
    assert.equal(shown.status, 'closed');
    assert.equal(shown.close_reason, 'Verified: integration test');
    assert.equal(count(shown.comments.map((comment) => comment.text), outcome.filesComment), 1);

    const order = calls()
      .filter((call) => call.exit === 0 && call.args.includes('demo-8') && (call.args[0] === 'close' || call.args[0] === 'comments'))
      .map((call) => call.args[0]);
    assert.deepEqual(order, ['close', 'comments']);

    const readyIds = outcome.ready.map((item) => item.issue.id);
    assert.ok(readyIds.includes('demo-9'), `ready offered: ${readyIds.join(', ')}`);
    assert.ok(!readyIds.includes('demo-8'));
    assert.match(outcome.continuePrompt, /## Closed: demo-8/);
    assert.match(outcome.continuePrompt, /## Next Ready Work/);
    assert.deepEqual(br('list', '--status', 'in_progress', '--limit', '0').issues.map((issue) => issue.id), ['demo-1']);
  });
});

describeIn(['readonly'], 'checkpoints, claim and close without a beads CLI', () => {
  before(async () => {
    await activatedApi();
  });

  it('write nothing and say that writes need the CLI', async () => {
    const before = fs.readFileSync(path.join(run.workspace, '.beads', 'issues.jsonl'), 'utf8');
    assert.equal(await vscode.commands.executeCommand('beadsRecovery.checkpoint', { message: 'read-only attempt' }), undefined);
    assert.equal(await vscode.commands.executeCommand('beadsRecovery.claim', 'demo-8'), undefined);
    assert.equal(await vscode.commands.executeCommand('beadsRecovery.close', { issueId: 'demo-1', reason: 'x', offer: false }), undefined);
    assert.equal(fs.readFileSync(path.join(run.workspace, '.beads', 'issues.jsonl'), 'utf8'), before);
  });
});
