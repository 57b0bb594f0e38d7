// Agent sessions in a real extension host (issue 19): two Claude Code sessions in the workspace
// folder, told apart by what the hooks receive (session id, transcript), are listed with their own
// issues; Beads: Focus Issue… binds this window's own session, which the status bar then follows;
// a session in a second git worktree (sharing the store through .beads/redirect) is that
// worktree's, not this folder's. Leaves the workspace as it found it: demo-1 the one issue in
// progress, demo-9 and demo-10 open again.
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before, it } = require('mocha');
const vscode = require('vscode');
const { run, describeIn, activatedApi, waitFor } = require('./scenario.cjs');

const CLI = path.resolve(__dirname, '../../dist/cli.js');
const ISSUES = { one: 'demo-9', two: 'demo-10' };

describeIn(['br', 'bd'], 'Agent sessions in the folder', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'beads-it-sessions-'));
  const linked = path.join(scratch, 'linked');
  const env = { ...process.env, BEADS_STANDIN_FAULT_FILE: '', BEADS_STANDIN_FAULT: '', BEADS_STANDIN_LOG: '', BEADS_RECOVERY_CLI: run.scenario };
  const beads = (cwd, ...args) => execFileSync(run.scenario, args, { cwd, env, encoding: 'utf8' });
  const line = (record) => `${JSON.stringify(record)}\n`;

  /** A Claude Code session that claimed `issue` and wrote `file` in `folder`, as its transcript records it; its start hook runs. */
  function session(name, folder, issue, file) {
    const transcript = path.join(scratch, `${name}.jsonl`);
    const at = new Date().toISOString();
    fs.writeFileSync(
      transcript,
      line({ type: 'assistant', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id: `${name}-1`, name: 'Bash', input: { command: `${run.scenario} update ${issue} --claim` } }] } }) +
        line({ type: 'user', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${name}-1`, content: 'ok', is_error: false }] } }) +
        line({ type: 'assistant', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id: `${name}-2`, name: 'Write', input: { file_path: path.join(folder, file), content: 'x\n' } }] } }) +
        line({ type: 'user', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${name}-2`, content: 'File created', is_error: false }] } }),
    );
    const input = JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: name, transcript_path: transcript, cwd: folder });
    const result = spawnSync(process.execPath, [CLI, 'hook', 'claude', 'SessionStart'], { cwd: folder, env: { ...env, ELECTRON_RUN_AS_NODE: '1' }, input, encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout || '{}');
  }

  before(async () => {
    await activatedApi();
    for (const issue of Object.values(ISSUES)) beads(run.workspace, 'update', '--claim', '--json', '--', issue);
  });

  after(async () => {
    await vscode.commands.executeCommand('beadsRecovery.focusIssue', 'demo-1');
    for (const issue of Object.values(ISSUES)) beads(run.workspace, 'update', '--status', 'open', '--assignee', '', '--json', '--', issue);
    spawnSync('git', ['worktree', 'remove', '--force', linked], { cwd: run.workspace });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('two sessions in one folder are listed, each with its own issue', async () => {
    const api = await activatedApi();
    session('it-session-one', run.workspace, ISSUES.one, 'one.txt');
    session('it-session-two', run.workspace, ISSUES.two, 'two.txt');
    const rows = await waitFor(async () => {
      const listed = await api.agentSessions();
      return listed.filter((row) => row.sessionId.startsWith('it-session-')).length === 2 ? listed : undefined;
    }, 'both sessions in the list');
    const issueOf = (id) => rows.find((row) => row.sessionId === id)?.issue?.id;
    assert.equal(issueOf('it-session-one'), ISSUES.one);
    assert.equal(issueOf('it-session-two'), ISSUES.two);
    assert.ok(rows.every((row) => row.agent.length > 0 && row.lastActivityAge.length > 0));
  });

  it('Focus Issue… binds this window’s own session; the status bar follows the session on that issue', async () => {
    const api = await activatedApi();
    await vscode.commands.executeCommand('beadsRecovery.focusIssue', ISSUES.two);
    const rows = await waitFor(async () => {
      const listed = await api.agentSessions();
      return listed.some((row) => row.agent === 'VS Code' && row.issue?.id === ISSUES.two) ? listed : undefined;
    }, "this window's session bound to the focused issue");
    const followed = rows.filter((row) => row.followed);
    assert.equal(followed.length, 1);
    assert.equal(followed[0].issue?.id, ISSUES.two);
    // Copy Recovery Context asks the same resolver: this window's binding chose, so no rule line.
    const context = await api.recoveryContext();
    assert.match(context.markdown, new RegExp(`## Resuming: ${ISSUES.two} `));
    assert.doesNotMatch(context.markdown, /Why this issue/);
  });

  it("a session in another worktree of the repository is that worktree's, not this folder's", async () => {
    const api = await activatedApi();
    execFileSync('git', ['worktree', 'add', '-q', '--detach', linked], { cwd: run.workspace });
    fs.rmSync(path.join(linked, '.beads'), { recursive: true, force: true });
    fs.mkdirSync(path.join(linked, '.beads'));
    fs.writeFileSync(path.join(linked, '.beads', 'redirect'), `${path.join(run.workspace, '.beads')}\n`);
    const answer = session('it-session-linked', linked, ISSUES.one, 'linked.txt');
    assert.match(answer.hookSpecificOutput?.additionalContext ?? '', new RegExp(`## Resuming: ${ISSUES.one} `));
    const gitDir = path.resolve(linked, execFileSync('git', ['rev-parse', '--git-dir'], { cwd: linked, encoding: 'utf8' }).trim());
    const linkedSessions = JSON.parse(fs.readFileSync(path.join(gitDir, 'beads-recovery', 'sessions.json'), 'utf8'));
    assert.deepEqual(Object.keys(linkedSessions.sessions), ['claude:it-session-linked']);
    const rows = await api.agentSessions();
    assert.equal(rows.some((row) => row.sessionId === 'it-session-linked'), false);
  });
});
