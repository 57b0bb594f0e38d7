// The agent surfaces in a real extension host: the language-model tools through vscode.lm.invokeTool,
// the @beads participant's handler called directly (the chat UI cannot reach an extension's
// participant here without a Copilot sign-in), injection into chat, the clipboard and a terminal
// with its fallbacks, and the Claude Code hook command the extension would install, run for real.
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { run, describeIn, activatedApi, waitFor } = require('./scenario.cjs');

const never = new vscode.CancellationTokenSource().token;

/** A chat response stream that records what the participant wrote. */
function recordingStream() {
  const parts = { markdown: [], references: [], buttons: [], progress: [] };
  return {
    parts,
    markdown: (value) => parts.markdown.push(typeof value === 'string' ? value : value.value),
    reference: (value) => parts.references.push(value),
    button: (command) => parts.buttons.push(command),
    progress: (value) => parts.progress.push(value),
  };
}

function toolText(result) {
  return result.content.map((part) => part.value).join('');
}

/** Comments of `id` in the stand-in's store, the file both stand-ins read and write. */
function storedComments(id) {
  const lines = fs.readFileSync(path.join(run.workspace, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean);
  const issue = lines.map((line) => JSON.parse(line)).find((record) => record.id === id);
  return (issue?.comments ?? []).map((comment) => comment.text);
}

function readyIds(dialect) {
  const result = spawnSync(dialect, ['ready', '--json', '--limit', '0'], { cwd: run.workspace, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout).map((issue) => issue.id);
}


/**
 * Sends JSON-RPC messages to the stdio MCP server `server` describes and collects its answers.
 * stdin stays open until every request is answered, as an MCP client keeps it: a server may drop
 * the requests still in flight when its stdin ends.
 */
function mcpExchange(server, messages, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(server.command, server.args, { cwd: server.cwd, env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const requests = messages.filter((message) => message.id !== undefined).length;
    const answers = [];
    let pending = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the MCP server answered ${answers.length} of ${requests} requests within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      answers.push(...lines.filter(Boolean).map((line) => JSON.parse(line)));
      if (answers.length >= requests) child.stdin.end();
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(answers);
      else reject(new Error(`the MCP server exited with ${code}: ${stderr}`));
    });
    child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  });
}

describeIn(['br', 'bd'], 'agents: tools and the @beads participant', () => {
  const dialect = run.scenario;
  let api;

  before(async () => {
    api = await activatedApi();
  });

  it('lists both tools, the context one referenceable as #beadsRecovery', () => {
    const tools = vscode.lm.tools.filter((tool) => tool.name.startsWith('beads_'));
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['beads_checkpoint', 'beads_getRecoveryContext']);
    assert.match(tools.find((tool) => tool.name === 'beads_getRecoveryContext').description, /compact/);
  });

  it('beads_getRecoveryContext returns the same block as the recovery command', async () => {
    // Producing a context first checkpoints new activity, which changes the trail; once nothing new
    // happens between two calls, the tool and the command must print the same bytes.
    const pair = async () => {
      const text = toolText(await vscode.lm.invokeTool('beads_getRecoveryContext', { input: {}, toolInvocationToken: undefined }, never));
      return { text, command: (await api.recoveryContext()).markdown };
    };
    const { text, command } = await waitFor(async () => {
      const result = await pair();
      return result.text === result.command ? result : undefined;
    }, 'two consecutive contexts with no activity in between', 20_000).catch(async () => pair());
    assert.match(text, /## Resuming: demo-1 — Parse widget config/);
    assert.equal(text, command);
  });

  it('beads_checkpoint writes the agent\'s summary as a checkpoint comment through the CLI', async () => {
    const summary = `tool checkpoint ${dialect}: parser done; next: escapes`;
    const result = await vscode.lm.invokeTool('beads_checkpoint', { input: { summary }, toolInvocationToken: undefined }, never);
    assert.match(toolText(result), /^Checkpoint (written to|queued for) demo-1/);
    await waitFor(() => storedComments('demo-1').some((text) => text.includes(summary)), 'the checkpoint comment in the store');
    assert.ok(storedComments('demo-1').some((text) => text.startsWith(`Checkpoint: ${summary}`)));
  });

  it('beads_checkpoint refuses an empty summary', async () => {
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('beads_checkpoint', { input: { summary: '  ' }, toolInvocationToken: undefined }, never)),
      /summary/,
    );
  });

  it('@beads /recover streams the block with references to the uncommitted files', async () => {
    const scratch = path.join(run.workspace, 'agents-scratch.txt');
    fs.writeFileSync(scratch, 'uncommitted\n');
    try {
      const stream = recordingStream();
      const result = await api.agents.chatHandler({ command: 'recover', prompt: '' }, {}, stream, never);
      assert.deepEqual(result.metadata, { command: 'recover' });
      assert.equal(stream.parts.markdown.length, 1);
      assert.match(stream.parts.markdown[0], /## Resuming: demo-1 — Parse widget config/);
      // The block may drop file lists first to fit its budget; the references always name them.
      const referenced = stream.parts.references.map((uri) => uri.fsPath);
      assert.ok(referenced.includes(scratch), `no reference to ${scratch} in ${referenced.join(', ')}`);
      assert.ok(stream.parts.buttons.some((button) => button.command === 'beadsRecovery.copyRecoveryContext'));
    } finally {
      fs.rmSync(scratch, { force: true });
    }
  });

  it('@beads /recover also references the files touched since the last checkpoint, committed or not', async () => {
    // README.md is changed, then committed: git status shows nothing, the ledger keeps the touched file.
    // (A rewrite with the same bytes is no edit at all, so the content changes.)
    const readme = path.join(run.workspace, 'README.md');
    const content = fs.readFileSync(readme, 'utf8');
    let round = 0;
    await waitFor(async () => {
      fs.writeFileSync(readme, `${content}\nTouched for the participant test (${dialect}, ${++round}).\n`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await api.flushActivity();
      return api.ledger()?.files.includes('README.md');
    }, 'README.md in the ledger', 30_000);
    const committed = spawnSync('git', ['commit', '-q', '-m', 'docs: touch README', '--', 'README.md'], { cwd: run.workspace, encoding: 'utf8' });
    assert.equal(committed.status, 0, committed.stderr);
    const stream = recordingStream();
    await api.agents.chatHandler({ command: 'recover', prompt: '' }, {}, stream, never);
    const referenced = stream.parts.references.map((uri) => uri.fsPath);
    assert.ok(referenced.includes(readme), `no reference to ${readme} in ${referenced.join(', ')}`);
  });

  it('@beads /ready lists the ready queue in the CLI\'s order', async () => {
    const stream = recordingStream();
    await api.agents.chatHandler({ command: 'ready', prompt: '' }, {}, stream, never);
    const markdown = stream.parts.markdown.join('\n');
    const expected = readyIds(dialect).slice(0, 10);
    assert.ok(expected.length > 0, 'the scenario has ready work');
    const listed = [...markdown.matchAll(/^- `([^`]+)`/gm)].map((match) => match[1]);
    assert.deepEqual(listed, expected);
  });

  it('@beads /checkpoint writes the text after the command', async () => {
    const text = `participant checkpoint ${dialect}`;
    const stream = recordingStream();
    await api.agents.chatHandler({ command: 'checkpoint', prompt: text }, {}, stream, never);
    assert.match(stream.parts.markdown.join(''), /Checkpoint (written to|queued for) demo-1/);
    await waitFor(() => storedComments('demo-1').some((comment) => comment.includes(text)), 'the participant checkpoint in the store');
  });

  it('the SessionStart hook command the extension would install runs and prints the context as hook JSON', () => {
    const commands = api.agents.hookCommands();
    assert.deepEqual(commands.map(({ event }) => event), ['SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd']);
    const input = { session_id: 'it', cwd: run.workspace, hook_event_name: 'SessionStart', source: 'compact' };
    const result = spawnSync('/bin/sh', ['-c', commands[0].command], { cwd: '/', input: JSON.stringify(input), encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.status, 0, result.stderr);
    const output = JSON.parse(result.stdout);
    assert.equal(output.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(output.hookSpecificOutput.additionalContext, /## Resuming: demo-1 — Parse widget config/);
    // Claude Code's hook budget (src/core/budget.ts: 9,000 bytes, under its 10,000-character cap).
    assert.ok(Buffer.byteLength(output.hookSpecificOutput.additionalContext) <= 9000);
  });

  it('offers the MCP server through VS Code\'s provider, and the server it names answers initialize and get_recovery_context', async function () {
    const servers = api.agents.mcpServers();
    if (servers === undefined) {
      // Only a host without the API may lack the provider.
      assert.equal(typeof vscode.lm.registerMcpServerDefinitionProvider, 'undefined');
      this.skip();
    }
    assert.equal(servers.length, 1);
    const [server] = servers;
    assert.deepEqual(server.args.slice(-3), ['mcp', '--cwd', run.workspace]);
    const answers = await mcpExchange(server, [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'it', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_recovery_context', arguments: {} } },
    ]);
    assert.equal(answers.find((answer) => answer.id === 1).result.serverInfo.name, 'beads-recovery');
    assert.match(answers.find((answer) => answer.id === 2).result.content[0].text, /## Resuming: demo-1 — Parse widget config/);
  });
});

describeIn(['readonly'], 'agents on a read-only project', () => {
  let api;

  before(async () => {
    api = await activatedApi();
  });

  it('beads_checkpoint says in one line that it cannot write', async () => {
    const result = await vscode.lm.invokeTool('beads_checkpoint', { input: { summary: 'x' }, toolInvocationToken: undefined }, never);
    const text = toolText(result);
    assert.match(text, /^Cannot write a checkpoint here: /);
    assert.doesNotMatch(text, /\n/);
  });

  it('@beads /recover still streams the read-only block', async () => {
    const stream = recordingStream();
    await api.agents.chatHandler({ command: undefined, prompt: '' }, {}, stream, never);
    assert.match(stream.parts.markdown[0], /read-only/i);
    assert.equal(stream.parts.markdown[0], (await api.recoveryContext()).markdown);
  });
});

describeIn(['br'], 'agents: injection targets', () => {
  let api;

  before(async () => {
    api = await activatedApi();
  });

  beforeEach(async () => {
    for (const terminal of vscode.window.terminals) terminal.dispose();
    await vscode.env.clipboard.writeText('sentinel');
  });

  it('clipboard copies the text', async () => {
    const outcome = await api.agents.inject('copied text', 'clipboard');
    assert.deepEqual(outcome, { requested: 'clipboard', delivered: 'clipboard' });
    assert.equal(await vscode.env.clipboard.readText(), 'copied text');
  });

  it('chat with no language model falls back to the clipboard and says why', async () => {
    // This editor has no model (no Copilot): text pre-filled into chat would wait for nobody.
    assert.equal((await vscode.lm.selectChatModels()).length, 0);
    const outcome = await api.agents.inject('## Resuming: demo-1', 'chat');
    assert.deepEqual(outcome, { requested: 'chat', delivered: 'clipboard', fallbackReason: 'no language model is available for chat' });
    assert.equal(await vscode.env.clipboard.readText(), '## Resuming: demo-1');
  });

  it('chat asks before replacing the input: Copy Instead keeps the draft and copies the text', async () => {
    const questions = [];
    const outcome = await api.agents.inject('## Resuming: demo-2', 'chat', {
      chatModels: async () => [{ id: 'a model' }],
      confirmReplace: async (question, detail) => {
        questions.push(`${question} ${detail}`);
        return 'copy';
      },
    });
    assert.equal(questions.length, 1);
    assert.match(questions[0], /replaces anything typed there/);
    assert.deepEqual(outcome, { requested: 'chat', delivered: 'clipboard', fallbackReason: 'the chat input was kept' });
    assert.equal(await vscode.env.clipboard.readText(), '## Resuming: demo-2');
  });

  it('chat: Always Replace fills the input and is remembered, so the next inject does not ask', async () => {
    const config = vscode.workspace.getConfiguration('beadsRecovery');
    const withModel = { chatModels: async () => [{ id: 'a model' }] };
    try {
      const first = await api.agents.inject('## Resuming: demo-3', 'chat', { ...withModel, confirmReplace: async () => 'always' });
      assert.deepEqual(first, { requested: 'chat', delivered: 'chat' });
      assert.equal(vscode.workspace.getConfiguration('beadsRecovery').get('chatInputReplace'), 'replace');
      const second = await api.agents.inject('## Resuming: demo-3', 'chat', {
        ...withModel,
        confirmReplace: async () => assert.fail('asked again after Always Replace'),
      });
      assert.deepEqual(second, { requested: 'chat', delivered: 'chat' });
    } finally {
      await config.update('chatInputReplace', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('claudeCode falls back to the clipboard when Claude Code is not installed, and says why', async () => {
    assert.equal(vscode.extensions.getExtension('anthropic.claude-code'), undefined);
    const outcome = await api.agents.inject('for claude', 'claudeCode');
    assert.deepEqual(outcome, {
      requested: 'claudeCode',
      delivered: 'clipboard',
      fallbackReason: 'Claude Code is not installed in this editor',
    });
    assert.equal(await vscode.env.clipboard.readText(), 'for claude');
  });

  it('terminal falls back to the clipboard when there is no terminal', async () => {
    const outcome = await api.agents.inject('no terminal', 'terminal', { confirm: async () => true });
    assert.equal(outcome.delivered, 'clipboard');
    assert.equal(outcome.fallbackReason, 'there is no active terminal');
    assert.equal(await vscode.env.clipboard.readText(), 'no terminal');
  });

  it('terminal pastes one bracketed block after asking, without Enter, and strips escapes from the text', async () => {
    const received = [];
    const opened = new vscode.EventEmitter();
    const terminal = vscode.window.createTerminal({
      name: 'agent',
      pty: { onDidWrite: opened.event, open: () => {}, close: () => {}, handleInput: (data) => received.push(data) },
    });
    terminal.show();
    await waitFor(() => vscode.window.activeTerminal === terminal, 'the terminal to become active');
    const questions = [];
    const text = 'line one\nline two: \x1b[201~rm -rf ~\r\nend';
    const outcome = await api.agents.inject(text, 'terminal', {
      confirm: async (question) => {
        questions.push(question);
        return true;
      },
    });
    assert.deepEqual(outcome, { requested: 'terminal', delivered: 'terminal' });
    assert.deepEqual(questions, ['Paste the recovery context into terminal "agent"?']);
    const pasted = await waitFor(() => received.join('') || undefined, 'the paste to reach the terminal');
    assert.equal(pasted, '\x1b[200~line one\rline two: [201~rm -rf ~\rend\x1b[201~');
    assert.equal(await vscode.env.clipboard.readText(), 'sentinel');
    terminal.dispose();
  });

  it('Inject Recovery Context follows the beadsRecovery.injectTarget setting', async () => {
    const config = vscode.workspace.getConfiguration('beadsRecovery');
    await config.update('injectTarget', 'clipboard', vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('beadsRecovery.injectRecoveryContext');
      assert.match(await vscode.env.clipboard.readText(), /## Resuming: demo-1 — Parse widget config/);
    } finally {
      await config.update('injectTarget', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('terminal sends nothing when the user declines', async () => {
    const received = [];
    const terminal = vscode.window.createTerminal({
      name: 'declined',
      pty: { onDidWrite: new vscode.EventEmitter().event, open: () => {}, close: () => {}, handleInput: (data) => received.push(data) },
    });
    const outcome = await api.agents.inject('x', 'terminal', { terminal, confirm: async () => false });
    assert.deepEqual(outcome, { requested: 'terminal', delivered: 'none' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(received, []);
    terminal.dispose();
  });
});

describeIn(['br'], 'agents: Claude Code hook settings from the extension', () => {
  let api;
  const settingsDir = () => path.join(run.workspace, '.claude');
  const localSettings = () => path.join(settingsDir(), 'settings.local.json');

  before(async () => {
    api = await activatedApi();
  });

  afterEach(() => {
    fs.rmSync(settingsDir(), { recursive: true, force: true });
  });

  it('Install Agent Hooks reports a malformed settings file and changes nothing', async () => {
    fs.mkdirSync(settingsDir(), { recursive: true });
    fs.writeFileSync(localSettings(), '{ "hooks": ');
    await vscode.commands.executeCommand('beadsRecovery.installAgentHooks', { agents: ['claude'], scope: 'local' });
    assert.equal(fs.readFileSync(localSettings(), 'utf8'), '{ "hooks": ');
  });

  it('moves 0.1.0 entries that name a machine\'s paths to the per-user launcher, leaving other hooks alone', async () => {
    const [sessionStart, preCompact, postCompact, sessionEnd] = api.agents.hookCommands();
    // What 0.1.0 wrote: this machine's runtime and script, here one that is gone and one of another install.
    const named = (runtime, args) => `'${runtime}' '${path.join(run.workspace, 'old', 'dist', 'cli.js')}' ${args} # beads-recovery`;
    const settings = {
      model: 'opus',
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: 'echo mine' }] },
          { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: named('/nonexistent/old-server/node', 'hook claude SessionStart'), timeout: 30 }] },
        ],
        PreCompact: [{ matcher: 'auto|manual', hooks: [{ type: 'command', command: named('/nonexistent/old-server/node', 'hook claude PreCompact'), timeout: 30 }] }],
        PostCompact: [{ matcher: 'auto|manual', hooks: [{ type: 'command', command: named(process.execPath, 'hook claude PostCompact'), timeout: 30 }] }],
      },
    };
    fs.mkdirSync(settingsDir(), { recursive: true });
    fs.writeFileSync(localSettings(), `${JSON.stringify(settings, null, 2)}\n`);

    const repaired = await api.agents.repairHooks();
    assert.deepEqual(repaired, [localSettings()]);
    const expected = JSON.parse(JSON.stringify(settings));
    expected.hooks.SessionStart[1].hooks[0].command = sessionStart.command;
    // And its triggers as installed now: a session forked with --fork-session starts with `fork`.
    expected.hooks.SessionStart[1].matcher = 'startup|resume|clear|compact|fork';
    expected.hooks.PreCompact[0].hooks[0].command = preCompact.command;
    expected.hooks.PostCompact[0].hooks[0].command = postCompact.command;
    // Added beside them: what that version did not install.
    expected.hooks.SessionEnd = [{ matcher: '', hooks: [{ type: 'command', command: sessionEnd.command, timeout: 30 }] }];
    assert.equal(fs.readFileSync(localSettings(), 'utf8'), `${JSON.stringify(expected, null, 2)}\n`);
    assert.ok(!fs.readFileSync(localSettings(), 'utf8').includes('cli.js'), 'no path of this machine is left');

    // Now current: installing again finds nothing to do and asks nothing.
    await vscode.commands.executeCommand('beadsRecovery.installAgentHooks', { agents: ['claude'], scope: 'local' });
    assert.equal(fs.readFileSync(localSettings(), 'utf8'), `${JSON.stringify(expected, null, 2)}\n`);
    assert.deepEqual(await api.agents.repairHooks(), []);
  });
});

describeIn(['br'], 'agents: Install Agent Hooks for Copilot, Codex and Cursor, with the MCP server', () => {
  const os = require('node:os');
  const { pathToFileURL } = require('node:url');
  let api;
  let bdFiles;
  /** The runtime and script every installed hook runs, as a shell command prefix. */
  let launch;

  before(async () => {
    api = await activatedApi();
    ({ BD_HOOK_FILES: bdFiles } = await import(pathToFileURL(path.join(__dirname, '..', 'fixtures', 'agentHookFiles.mjs')).href));
    const [sessionStart] = api.agents.hookCommands();
    launch = sessionStart.command.slice(0, sessionStart.command.indexOf(' hook '));
  });

  /** Every file under `dir`, by its path relative to `dir` (forward slashes). */
  function filesUnder(dir, prefix = '') {
    const files = {};
    for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) Object.assign(files, filesUnder(dir, relative));
      else files[relative] = fs.readFileSync(path.join(dir, relative), 'utf8');
    }
    return files;
  }

  function write(dir, relative, text) {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), text);
  }

  /** The "after" side of the diff editor the command has open. */
  async function previewShown() {
    const tab = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .find((candidate) => candidate.input instanceof vscode.TabInputTextDiff && candidate.input.modified.scheme === 'beads-recovery-preview');
    assert.ok(tab, 'the diff editor is open while the question is asked');
    return (await vscode.workspace.openTextDocument(tab.input.modified)).getText();
  }

  for (const agent of ['copilot', 'codex', 'cursor']) {
    it(`${agent}: shows and writes what the command line writes, keeps bd's entries, and uninstalling gives bd's file back`, async () => {
      const bd = bdFiles[agent];
      const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), `beads-it-${agent}-`));
      const createdFolders = ['.github', '.codex', '.cursor', '.vscode'].filter((folder) => !fs.existsSync(path.join(run.workspace, folder)));
      let written = {};
      try {
        for (const dir of [run.workspace, cliDir]) write(dir, bd.file, bd.text);
        const cli = spawnSync('/bin/sh', ['-c', `${launch} hooks install --agent ${agent} --mcp --dir '${cliDir}'`], { encoding: 'utf8', timeout: 30_000 });
        assert.equal(cli.status, 0, cli.stderr);
        const expected = filesUnder(cliDir);
        const changed = Object.keys(expected).filter((relative) => relative !== bd.file || expected[relative] !== bd.text);
        assert.ok(changed.length >= 2, `the command line wrote hooks and the MCP registration: ${changed.join(', ')}`);

        const shown = {};
        await api.agents.installHooks({ agents: [agent], mcp: true }, async (question) => {
          shown[question.match(/: write (.+)\?$/)[1]] = await previewShown();
          return true;
        });
        written = Object.fromEntries(Object.keys(expected).map((relative) => [relative, fs.readFileSync(path.join(run.workspace, relative), 'utf8')]));
        assert.deepEqual(written, expected);
        assert.deepEqual(Object.keys(shown).sort(), [...changed].sort());
        for (const relative of changed) assert.equal(shown[relative], expected[relative], `the diff of ${relative} shows what is written`);
        const installedBd = written[bd.file];
        for (const line of bd.text.split('\n').filter((line) => line.includes('bd '))) assert.ok(installedBd.includes(line), `bd's ${line.trim()} kept`);

        await api.agents.uninstallHooks(async (question) => {
          assert.match(question, /^Remove the beads-recovery entries from /);
          return true;
        });
        assert.equal(fs.readFileSync(path.join(run.workspace, bd.file), 'utf8'), bd.text);
        for (const relative of changed.filter((relative) => relative !== bd.file)) {
          assert.equal(fs.existsSync(path.join(run.workspace, relative)), false, `${relative} held only ours and is gone`);
        }
      } finally {
        fs.rmSync(cliDir, { recursive: true, force: true });
        for (const relative of new Set([bd.file, ...Object.keys(written)])) fs.rmSync(path.join(run.workspace, relative), { force: true });
        for (const folder of createdFolders) fs.rmSync(path.join(run.workspace, folder), { recursive: true, force: true });
      }
    });
  }

  it('writes nothing for a file whose question is declined', async () => {
    const asked = [];
    await api.agents.installHooks({ agents: ['cursor'], mcp: true }, async (question) => {
      asked.push(question);
      return false;
    });
    assert.equal(asked.length, 2);
    assert.equal(fs.existsSync(path.join(run.workspace, '.cursor', 'hooks.json')), false);
    assert.equal(fs.existsSync(path.join(run.workspace, '.cursor', 'mcp.json')), false);
  });
});
