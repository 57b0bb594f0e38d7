// The command line as the agents' hooks run it: the built dist/cli.js, installed into a project
// by `beads-recovery hooks install --agent …` next to bd's own entries, then run through a shell
// exactly as the agent's file says, with the JSON that agent writes to a hook's stdin.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookSurfaceBudget } from '../../../src/core/agents';
import { AGENT_FORMATS, AGENTS, ourCommands, shimCommandLine, type AgentId } from '../../../src/core/hookConfig';
import { BD_HOOK_FILES } from '../../fixtures/agentHookFiles.mjs';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const cli = CLI_SCRIPT;
const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hook-cli-'));
// Installing writes the per-user launcher into the home the hooks then run with: a scratch one,
// never the user's own (unless a test names another).
const scratchHome = path.join(scratch, 'default-home');
mkdirSync(scratchHome, { recursive: true });
const HOME_ENV = { HOME: scratchHome, USERPROFILE: scratchHome };

function runCli(args: string[], options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    env: { ...process.env, ...HOME_ENV, ...options.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a hook command the way the agents do: through a shell, in the project, JSON (or anything) on stdin. */
function runHook(command: string, cwd: string, input: object | string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync('/bin/sh', ['-c', command], {
    cwd,
    input: typeof input === 'string' ? input : JSON.stringify(input),
    env: { ...process.env, ...HOME_ENV, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** runHook, without blocking: for hooks an agent runs side by side. */
function runHookAsync(command: string, cwd: string, input: object, env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { ...process.env, ...HOME_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify(input));
  });
}

/** The texts of an issue's comments, as the store holds them. */
function readComments(dir: string, id: string): string[] {
  const records = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
  const issue = records.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
  return (issue?.comments ?? []).map((comment) => comment.text);
}

function project(name: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  ensureCliBuilt();
}, 120_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('beads-recovery hooks', { timeout: 60_000 }, () => {
  it('installs into .claude/settings.local.json next to other settings, twice without change, and uninstalls', () => {
    const dir = project('install');
    mkdirSync(path.join(dir, '.claude'));
    const settings = path.join(dir, '.claude', 'settings.local.json');
    const original = `${JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo bye' }] }] } }, null, 2)}\n`;
    writeFileSync(settings, original);

    const first = runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe('Claude Code: wrote the beads-recovery entries into .claude/settings.local.json.\n');
    const installed = JSON.parse(readFileSync(settings, 'utf8'));
    expect(installed.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(installed.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'echo bye' }] }]);
    expect(installed.hooks.SessionStart[0].matcher).toBe('startup|resume|clear|compact|fork');
    expect(installed.hooks.PreCompact[0].matcher).toBe('auto|manual');
    expect(installed.hooks.PostCompact[0].matcher).toBe('auto|manual');
    expect(installed.hooks.SessionEnd[0].matcher).toBe('');
    const [sessionStart, preCompact, postCompact, sessionEnd] = ourCommands(readFileSync(settings, 'utf8'));
    // The hooks run the per-user launcher, which now runs this command line: no path of this machine in the file.
    expect(sessionStart!.command).toBe(shimCommandLine(['hook', 'claude', 'SessionStart'], 'posix'));
    expect(preCompact!.command).toBe(shimCommandLine(['hook', 'claude', 'PreCompact'], 'posix'));
    expect(postCompact!.command).toBe(shimCommandLine(['hook', 'claude', 'PostCompact'], 'posix'));
    expect(sessionEnd!.command).toBe(shimCommandLine(['hook', 'claude', 'SessionEnd'], 'posix'));
    expect(readFileSync(settings, 'utf8')).not.toContain(cli);
    expect(readFileSync(path.join(scratchHome, '.beads-recovery', 'bin', 'beads-recovery'), 'utf8')).toContain(`exec '${process.execPath}' '${cli}' "$@"`);

    const afterFirst = readFileSync(settings, 'utf8');
    const second = runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    expect(second.stdout).toBe('Claude Code: the beads-recovery entries are already there.\n');
    expect(readFileSync(settings, 'utf8')).toBe(afterFirst);

    const status = runCli(['hooks', 'status', '--dir', dir], { cwd: dir });
    expect(status.stdout.split('\n').filter(Boolean)).toEqual([
      `Claude Code (.claude/settings.local.json) SessionStart: ${sessionStart!.command}`,
      `Claude Code (.claude/settings.local.json) PreCompact: ${preCompact!.command}`,
      `Claude Code (.claude/settings.local.json) PostCompact: ${postCompact!.command}`,
      `Claude Code (.claude/settings.local.json) SessionEnd: ${sessionEnd!.command}`,
    ]);

    const removed = runCli(['hooks', 'uninstall', '--dir', dir], { cwd: dir });
    expect(removed.status).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(original);
  });

  it('writes .claude/settings.json with --shared, and prints without writing with --dry-run', () => {
    const dir = project('shared');
    const dry = runCli(['hooks', 'install', '--shared', '--dry-run', '--dir', dir], { cwd: dir });
    expect(dry.status).toBe(0);
    expect(dry.stdout.startsWith('--- .claude/settings.json\n')).toBe(true);
    expect(ourCommands(dry.stdout.slice(dry.stdout.indexOf('\n') + 1))).toHaveLength(4);
    expect(existsSync(path.join(dir, '.claude'))).toBe(false);
    expect(runCli(['hooks', 'install', '--shared', '--dir', dir], { cwd: dir }).status).toBe(0);
    expect(ourCommands(readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8'))).toHaveLength(4);
  });

  it('installs every agent with --agent all, tells about Codex\'s /hooks, and --mcp registers the server in each agent\'s file', () => {
    const dir = project('all');
    writeFileSync(path.join(dir, '.mcp.json'), '{\n  // mine\n  "mcpServers": {\n    "other": {\n      "command": "other-server"\n    }\n  }\n}\n');
    mkdirSync(path.join(dir, '.codex'));
    writeFileSync(path.join(dir, '.codex', 'config.toml'), '# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n');
    const before = { mcp: readFileSync(path.join(dir, '.mcp.json'), 'utf8'), toml: readFileSync(path.join(dir, '.codex', 'config.toml'), 'utf8') };
    const result = runCli(['hooks', 'install', '--agent', 'all', '--mcp', '--dir', dir], { cwd: dir });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('open /hooks in Codex and trust the beads-recovery entries');
    for (const agent of AGENTS) expect(ourCommands(readFileSync(path.join(dir, AGENT_FORMATS[agent].file.local), 'utf8'))).toHaveLength(AGENT_FORMATS[agent].hooks.length);
    const server = { command: process.execPath, args: [cli, 'mcp'] };
    const mcpJson = readFileSync(path.join(dir, '.mcp.json'), 'utf8');
    expect(mcpJson).toContain('// mine');
    expect(JSON.parse(mcpJson.replace('// mine', '')).mcpServers).toEqual({ other: { command: 'other-server' }, 'beads-recovery': { type: 'stdio', ...server } });
    expect(JSON.parse(readFileSync(path.join(dir, '.cursor', 'mcp.json'), 'utf8'))).toEqual({ mcpServers: { 'beads-recovery': server } });
    expect(JSON.parse(readFileSync(path.join(dir, '.vscode', 'mcp.json'), 'utf8'))).toEqual({ servers: { 'beads-recovery': { type: 'stdio', ...server } } });
    const toml = readFileSync(path.join(dir, '.codex', 'config.toml'), 'utf8');
    expect(toml.startsWith(before.toml)).toBe(true);
    expect(toml.slice(before.toml.length)).toBe(`\n[mcp_servers.beads-recovery]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [ ${JSON.stringify(cli)}, "mcp" ]\n`);

    expect(runCli(['hooks', 'uninstall', '--agent', 'all', '--mcp', '--dir', dir], { cwd: dir }).status).toBe(0);
    expect(readFileSync(path.join(dir, '.mcp.json'), 'utf8')).toBe(before.mcp);
    expect(readFileSync(path.join(dir, '.codex', 'config.toml'), 'utf8')).toBe(before.toml);
    for (const gone of ['.cursor/mcp.json', '.vscode/mcp.json', '.cursor/hooks.json', '.github/hooks/beads-recovery.json', '.codex/hooks.json']) expect(existsSync(path.join(dir, gone)), gone).toBe(false);
  });

  it('reports a malformed settings file and changes nothing', () => {
    const dir = project('malformed');
    mkdirSync(path.join(dir, '.claude'));
    const settings = path.join(dir, '.claude', 'settings.local.json');
    writeFileSync(settings, '{ "hooks": { "SessionStart": [ }');
    const result = runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/settings\.local\.json is not valid JSON .*nothing was changed/);
    expect(readFileSync(settings, 'utf8')).toBe('{ "hooks": { "SessionStart": [ }');
  });

  it('refuses a settings file with two "hooks" keys, naming the file and the key, and status lists no entries from it', () => {
    const dir = project('duplicate-hooks');
    mkdirSync(path.join(dir, '.claude'));
    const settings = path.join(dir, '.claude', 'settings.local.json');
    expect(runCli(['hooks', 'install', '--dir', dir], { cwd: dir }).status).toBe(0);
    // A second "hooks" after ours: JSON readers (the agent) see only this one.
    const twice = readFileSync(settings, 'utf8').replace(/\n}\n$/, ',\n  "hooks": { "Stop": [] }\n}\n');
    writeFileSync(settings, twice);

    const install = runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    expect(install.status).toBe(1);
    expect(install.stderr).toMatch(/\.claude\/settings\.local\.json is ambiguous: the key "hooks" appears twice .*nothing was changed/);
    expect(readFileSync(settings, 'utf8')).toBe(twice);

    const status = runCli(['hooks', 'status', '--dir', dir], { cwd: dir });
    expect(status.status).toBe(1);
    expect(status.stdout).toBe('');
    expect(status.stderr).toMatch(/Claude Code: \.claude\/settings\.local\.json is ambiguous: the key "hooks" appears twice/);
  });

  it('refuses an agent file that is not JSON, and a Codex config that is not TOML, changing nothing of that agent', () => {
    const dir = project('not-json');
    mkdirSync(path.join(dir, '.codex'));
    writeFileSync(path.join(dir, '.codex', 'hooks.json'), '[hooks]\nSessionStart = "x"\n');
    const result = runCli(['hooks', 'install', '--agent', 'codex', '--dir', dir], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/\.codex\/hooks\.json is not valid JSON/);
    expect(readFileSync(path.join(dir, '.codex', 'hooks.json'), 'utf8')).toBe('[hooks]\nSessionStart = "x"\n');

    const other = project('not-toml');
    mkdirSync(path.join(other, '.codex'));
    writeFileSync(path.join(other, '.codex', 'config.toml'), '{"model": "o3"}\n');
    const refused = runCli(['hooks', 'install', '--agent', 'codex', '--mcp', '--dir', other], { cwd: other });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/\.codex\/config\.toml is not valid TOML/);
    expect(existsSync(path.join(other, '.codex', 'hooks.json'))).toBe(false);
    expect(readFileSync(path.join(other, '.codex', 'config.toml'), 'utf8')).toBe('{"model": "o3"}\n');
  });

  it('never writes through a symlink that leads out of the project', () => {
    const dir = project('symlinked');
    const outside = project('outside-target');
    writeFileSync(path.join(outside, 'hooks.json'), '{}\n');
    mkdirSync(path.join(dir, '.cursor'));
    symlinkSync(path.join(outside, 'hooks.json'), path.join(dir, '.cursor', 'hooks.json'));
    symlinkSync(outside, path.join(dir, '.codex'));
    const result = runCli(['hooks', 'install', '--agent', 'all', '--dir', dir], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/\.cursor\/hooks\.json leads out of the project/);
    expect(result.stderr).toMatch(/\.codex\/hooks\.json leads out of the project/);
    expect(readFileSync(path.join(outside, 'hooks.json'), 'utf8')).toBe('{}\n');
    expect(readdirSync(outside)).toEqual(['hooks.json']);
    // The agents whose files stay inside are installed all the same.
    expect(ourCommands(readFileSync(path.join(dir, '.claude', 'settings.local.json'), 'utf8'))).toHaveLength(4);
  });

  it('reports a read-only settings file and changes nothing', () => {
    const dir = project('readonly');
    mkdirSync(path.join(dir, '.claude'));
    const settings = path.join(dir, '.claude', 'settings.local.json');
    writeFileSync(settings, '{}\n');
    chmodSync(settings, 0o444);
    // Root may write any file, so as root the command runs as nobody, to whom the file is read-only;
    // it runs a copy of the built CLI in the scratch folder, since the clone may sit in a folder
    // nobody may enter (a `mktemp -d` one is private).
    const asRoot = process.getuid?.() === 0;
    let script = cli;
    if (asRoot) {
      for (const entry of [scratch, dir, path.join(dir, '.claude')]) chmodSync(entry, 0o755);
      const copy = path.join(scratch, 'dist-for-nobody');
      cpSync(path.dirname(cli), copy, { recursive: true });
      chmodSync(copy, 0o755);
      script = path.join(copy, path.basename(cli));
    }
    const command = asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath] : [process.execPath];
    const result = spawnSync(command[0]!, [...command.slice(1), script, 'hooks', 'install', '--dir', dir], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/cannot be written \(EACCES\); nothing was changed/);
    expect(readFileSync(settings, 'utf8')).toBe('{}\n');
  });

  it('rejects an unknown action or agent with usage and exit code 2', () => {
    const result = runCli(['hooks', 'reinstall'], { cwd: scratch });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('beads-recovery hooks install|uninstall|status');
    expect(runCli(['hooks', 'install', '--agent', 'windsurf'], { cwd: scratch }).stderr).toContain("unknown --agent 'windsurf'");
  });

  it('keeps the files that name this machine\'s paths out of git, and says which, while the shared hook file names none', () => {
    const dir = project('local-files');
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    const first = runCli(['hooks', 'install', '--agent', 'claude', '--shared', '--mcp', '--dir', dir], { cwd: dir });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('.mcp.json holds paths of this machine, so it stays local: /.mcp.json is added to .git/info/exclude');
    expect(readFileSync(path.join(dir, '.git', 'info', 'exclude'), 'utf8').split('\n')).toContain('/.mcp.json');
    expect(git('status', '--porcelain').stdout).not.toContain('.mcp.json');
    expect(readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8')).not.toContain(cli);

    // A registration git already tracks is named, not hidden.
    const tracked = project('local-files-tracked');
    spawnSync('git', ['init', '-q'], { cwd: tracked });
    writeFileSync(path.join(tracked, '.mcp.json'), '{"mcpServers": {}}\n');
    spawnSync('git', ['add', '.mcp.json'], { cwd: tracked });
    const second = runCli(['hooks', 'install', '--agent', 'claude', '--mcp', '--dir', tracked], { cwd: tracked });
    expect(second.stdout).toContain('.mcp.json is tracked by git and now holds paths of this machine: keep this change out of your commits');
  });

  it("writes Gemini CLI's hooks and MCP server into its one settings file, and copilot-cli into VS Code's file, which Copilot CLI reads", () => {
    const dir = project('gemini-and-copilot-cli');
    const settings = path.join(dir, '.gemini', 'settings.json');
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, `${JSON.stringify({ ui: { theme: 'GitHub' } }, null, 2)}\n`);
    const gemini = runCli(['hooks', 'install', '--agent', 'gemini', '--mcp', '--dir', dir], { cwd: dir });
    expect(gemini.status, gemini.stderr).toBe(0);
    expect(gemini.stdout).toContain('Gemini CLI asks before it runs project hooks');
    const written = JSON.parse(readFileSync(settings, 'utf8')) as { ui: unknown; hooks: Record<string, unknown[]>; mcpServers: Record<string, { args: string[] }> };
    expect(written.ui).toEqual({ theme: 'GitHub' });
    expect(Object.keys(written.hooks)).toEqual(['BeforeModel', 'BeforeAgent', 'AfterTool', 'SessionEnd']);
    expect(written.mcpServers['beads-recovery']!.args).toEqual([cli, 'mcp']);
    expect(runCli(['hooks', 'uninstall', '--agent', 'gemini', '--mcp', '--dir', dir], { cwd: dir }).status).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(`${JSON.stringify({ ui: { theme: 'GitHub' } }, null, 2)}\n`);

    const copilot = runCli(['hooks', 'install', '--agent', 'copilot-cli', '--dir', dir], { cwd: dir });
    expect(copilot.status, copilot.stderr).toBe(0);
    const hooks = JSON.parse(readFileSync(path.join(dir, '.github', 'hooks', 'beads-recovery.json'), 'utf8')) as { version: number; hooks: Record<string, unknown> };
    expect(hooks.version).toBe(1);
    expect(Object.keys(hooks.hooks)).toEqual(['SessionStart', 'PreCompact', 'UserPromptSubmit', 'PostToolUse']);
  });
});

describe('a hook outside a beads project, or with bad input', { timeout: 60_000 }, () => {
  it('says nothing at all outside a beads project, taking the project from the stdin cwd', () => {
    const dir = project('not-beads');
    runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    const commands = ourCommands(readFileSync(path.join(dir, '.claude', 'settings.local.json'), 'utf8'));
    for (const { event, command } of commands) {
      const result = runHook(command, scratch, { session_id: 's1', cwd: dir, hook_event_name: event, source: 'startup', trigger: 'manual' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe('{}\n');
      expect(result.stderr).toBe('');
    }
  });

  it.each([
    ['not JSON', 'this is not json {'],
    ['a JSON array', '[1,2,3]'],
    ['no cwd', JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', source: 'compact' })],
    ['oversized', JSON.stringify({ cwd: scratch, tool_output: 'x'.repeat(5 * 1024 * 1024) })],
  ])('still gives valid output and exit 0 for stdin that is %s', (_name, input) => {
    const result = spawnSync(process.execPath, [cli, 'hook', 'codex', 'SessionStart'], { cwd: scratch, input, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('{}\n');
  });

  it('answers {} for an unknown agent or event, exit 0', () => {
    for (const args of [['hook', 'windsurf', 'SessionStart'], ['hook', 'cursor', 'stop'], ['hook']]) {
      const result = runCli(args, { cwd: scratch });
      expect(result.status, args.join(' ')).toBe(0);
      expect(result.stdout).toBe('{}\n');
    }
  });

  it('does not wait for a stdin that never closes', async () => {
    const dir = project('open-stdin');
    const started = Date.now();
    // stdin stays an open pipe that nobody writes to or closes.
    const child = spawn(process.execPath, [cli, 'hook', 'claude', 'SessionStart'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(stdout).toBe('{}\n');
  });
});

/** Each agent's stdin for the moments that matter, as that agent writes it. */
const STDIN: Record<Exclude<AgentId, 'gemini'>, (dir: string) => { sessionStart: object; preCompact: object; afterCompaction: object; toolCall?: object }> = {
  claude: (dir) => {
    const common = { session_id: 'c1', transcript_path: '/tmp/t.jsonl', cwd: dir, permission_mode: 'default' };
    return {
      sessionStart: { ...common, hook_event_name: 'SessionStart', source: 'startup', model: 'claude' },
      preCompact: { ...common, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' },
      afterCompaction: { ...common, hook_event_name: 'SessionStart', source: 'compact', model: 'claude' },
    };
  },
  codex: (dir) => {
    const common = { session_id: 'x1', transcript_path: null, cwd: dir, model: 'gpt-5.5' };
    return {
      sessionStart: { ...common, hook_event_name: 'SessionStart', source: 'startup', permission_mode: 'default' },
      preCompact: { ...common, hook_event_name: 'PreCompact', turn_id: 't7', trigger: 'auto' },
      afterCompaction: { ...common, hook_event_name: 'SessionStart', source: 'compact', permission_mode: 'default' },
    };
  },
  copilot: (dir) => {
    const common = { timestamp: '2026-11-23T10:00:00.000Z', cwd: dir, sessionId: 'v1', transcript_path: '/tmp/v.json' };
    return {
      sessionStart: { ...common, hookEventName: 'SessionStart', source: 'new' },
      preCompact: { ...common, hookEventName: 'PreCompact', trigger: 'auto' },
      afterCompaction: { ...common, hookEventName: 'PostToolUse', tool_name: 'readFile', tool_input: { path: 'a.ts' }, tool_use_id: 'u1', tool_response: 'text' },
      toolCall: { ...common, hookEventName: 'PostToolUse', tool_name: 'readFile', tool_input: { path: 'b.ts' }, tool_use_id: 'u2', tool_response: 'text' },
    };
  },
  // What our opencode plugin (src/core/opencodePlugin.ts) sends for opencode's events.
  opencode: (dir) => {
    const common = { session_id: 'ses_o1', cwd: dir };
    return {
      sessionStart: { ...common, hook_event_name: 'session.resumed', source: 'resume' },
      preCompact: { ...common, hook_event_name: 'session.compacting', source: 'compacting' },
      afterCompaction: { ...common, hook_event_name: 'session.compacted', source: 'compact' },
    };
  },
  cursor: (dir) => {
    const common = { conversation_id: 'k1', generation_id: 'g1', model: 'auto', cursor_version: '2026.06.1', workspace_roots: [dir], user_email: null, transcript_path: null };
    return {
      sessionStart: { ...common, hook_event_name: 'sessionStart', session_id: 'k1', is_background_agent: false, composer_mode: 'agent' },
      preCompact: { ...common, hook_event_name: 'preCompact', trigger: 'auto', context_usage_percent: 91, context_tokens: 180000, context_window_size: 200000, message_count: 80, messages_to_compact: 60, is_first_compaction: true },
      afterCompaction: { ...common, hook_event_name: 'postToolUse', tool_name: 'Read', tool_input: { path: 'a.ts' }, tool_output: 'text', tool_use_id: 'u1', cwd: dir, duration: 12 },
      toolCall: { ...common, hook_event_name: 'postToolUse', tool_name: 'Read', tool_input: { path: 'b.ts' }, tool_output: 'text', tool_use_id: 'u2', cwd: dir, duration: 9 },
    };
  },
};

/** The context an agent's output carries, in that agent's shape; undefined for `{}`. */
function contextIn(agent: AgentId, stdout: string, event: string): string | undefined {
  const output = JSON.parse(stdout) as Record<string, unknown>;
  if (Object.keys(output).length === 0) return undefined;
  if (agent === 'cursor') {
    expect(Object.keys(output)).toEqual(['additional_context']);
    return output.additional_context as string;
  }
  if (agent === 'copilot') {
    // VS Code reads hookSpecificOutput, Copilot CLI the top-level additionalContext: the same block for each.
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: event, additionalContext: expect.any(String) }, additionalContext: expect.any(String) });
    expect(output.additionalContext).toBe((output.hookSpecificOutput as { additionalContext: string }).additionalContext);
  } else {
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: event, additionalContext: expect.any(String) } });
  }
  return (output.hookSpecificOutput as { additionalContext: string }).additionalContext;
}

describe.each(AGENTS)('%s hooks on a beads project that already has bd\'s (stand-in br on PATH)', { timeout: 90_000 }, (agent) => {
  // HOME is a scratch folder: the user's own agent settings must not decide what the hook prints.
  const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: project('home'), USERPROFILE: project('home') };
  const format = AGENT_FORMATS[agent];
  let dir: string;
  let hookFileText: string;
  let commands: Map<string, string>;

  function comments(id: string): string[] {
    const lines = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    const issue = lines.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
    return (issue?.comments ?? []).map((comment) => comment.text);
  }

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, `agent-${agent}`), dialect: 'br', data: 'scenario', git: true }).dir;
    const bd = BD_HOOK_FILES[agent];
    mkdirSync(path.dirname(path.join(dir, bd.file)), { recursive: true });
    writeFileSync(path.join(dir, bd.file), bd.text);
    const args = ['hooks', 'install', '--agent', agent, '--dir', dir, ...(agent === 'claude' ? ['--shared'] : [])];
    const installed = runCli(args, { cwd: dir, env });
    expect(installed.status, installed.stderr).toBe(0);
    const file = agent === 'claude' ? format.file.shared! : format.file.local;
    hookFileText = readFileSync(path.join(dir, file), 'utf8');
    commands = new Map(ourCommands(hookFileText).map(({ event, command }) => [event, command]));
  }, 60_000);

  // Gemini CLI's hooks read its chat file: their own test is below ('Gemini CLI, from its chat file').
  it.skipIf(agent === 'gemini')('hands the context over at a new session, checkpoints before a compaction, and hands it over once after it', () => {
    const stdin = STDIN[agent as Exclude<AgentId, 'gemini'>](dir);
    const [startEvent, compactEvent] = [format.hooks[0]!.event, format.hooks[1]!.event];
    const afterEvent = stdin.toolCall || agent === 'opencode' ? format.hooks.at(-1)!.event : startEvent;
    const start = runHook(commands.get(startEvent)!, dir, stdin.sessionStart, env);
    expect(start.status, start.stderr).toBe(0);
    const atStart = contextIn(agent, start.stdout, startEvent);
    expect(atStart).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
    expect(Buffer.byteLength(atStart!, 'utf8')).toBeLessThanOrEqual(2048);

    writeFileSync(path.join(dir, `${agent}-work.ts`), 'export const done = true;\n');
    const before = comments(SCENARIO.inProgress).length;
    const compact = runHook(commands.get(compactEvent)!, dir, stdin.preCompact, env);
    expect(compact.status, compact.stderr).toBe(0);
    // Claude Code takes a PreCompact hook's output into its compaction prompt: plain lines, no JSON.
    if (agent === 'claude') expect(compact.stdout).toContain(`The beads issue in progress is ${SCENARIO.inProgress}`);
    else expect(JSON.parse(compact.stdout)).toEqual({});
    const added = comments(SCENARIO.inProgress).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^Auto-checkpoint \(pre-compaction\): /);
    expect(added[0]).toContain(`${agent}-work.ts`);

    // Claude Code and Codex start the session again with source compact; VS Code and Cursor call the next tool.
    const after = runHook(commands.get(afterEvent)!, dir, stdin.afterCompaction, env);
    expect(after.status, after.stderr).toBe(0);
    const restored = contextIn(agent, after.stdout, afterEvent);
    expect(restored).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
    expect(restored).toContain('Auto-checkpoint (pre-compaction)');
    expect(Buffer.byteLength(restored!, 'utf8')).toBeLessThanOrEqual(2048);
    if (stdin.toolCall) {
      expect(restored!.startsWith('The conversation was compacted; this is the beads recovery context.\n\n')).toBe(true);
      const next = runHook(commands.get(afterEvent)!, dir, stdin.toolCall, env);
      expect(next.status, next.stderr).toBe(0);
      expect(next.stdout).toBe('{}\n');
    }
  });

  it('uninstalls to bd\'s file exactly as it was', () => {
    const bd = BD_HOOK_FILES[agent];
    const removed = runCli(['hooks', 'uninstall', '--agent', agent, '--dir', dir], { cwd: dir, env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(path.join(dir, bd.file), 'utf8')).toBe(bd.text);
    // Copilot's hooks had a file of their own: it goes with them.
    for (const ours of [format.file.local, format.file.shared].filter((file): file is string => file !== undefined && file !== bd.file)) {
      expect(existsSync(path.join(dir, ours)), ours).toBe(false);
    }
  });
});

describe('the Claude Code SessionStart hook: rules and budget (stand-in br on PATH)', { timeout: 60_000 }, () => {
  const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: project('home'), USERPROFILE: project('home') };
  let dir: string;
  let sessionStart: string;

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, 'scenario'), dialect: 'br', data: 'scenario', git: true }).dir;
    expect(runCli(['hooks', 'install', '--dir', dir], { cwd: dir, env }).status).toBe(0);
    [sessionStart] = ourCommands(readFileSync(path.join(dir, '.claude', 'settings.local.json'), 'utf8')).map(({ command }) => command) as [string];
  }, 60_000);

  it('prints the same context as the command line, within the budget', () => {
    const hook = runHook(sessionStart, dir, { session_id: 's2', cwd: dir, hook_event_name: 'SessionStart', source: 'compact' }, env);
    expect(hook.status, hook.stderr).toBe(0);
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(Buffer.byteLength(context, 'utf8')).toBeLessThanOrEqual(2048);
    // The same block, ending with the line that marks it (exactly once).
    const [block, mark] = context.split(/\n\n(?=beads-recovery block [0-9a-f]{8}$)/);
    expect(mark).toMatch(/^beads-recovery block [0-9a-f]{8}$/);
    expect(`${block}\n`).toBe(runCli(['context'], { cwd: dir, env }).stdout);
  });

  it("leaves the rules out when bd's own prime hook reaches Claude Code, and keeps them in the plain context", () => {
    const shared = path.join(dir, '.claude', 'settings.json');
    writeFileSync(shared, JSON.stringify({ hooks: { SessionStart: [{ matcher: '', hooks: [{ type: 'command', command: 'bd prime --hook-json' }] }] } }));
    try {
      const input = { session_id: 's4', cwd: dir, hook_event_name: 'SessionStart', source: 'compact' };
      const hook = runHook(sessionStart, dir, input, env);
      expect(hook.status, hook.stderr).toBe(0);
      const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      expect(context).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
      expect(context).not.toContain('## Core Rules');
      expect(context).not.toContain('## Essential Commands');
      expect(hook.stderr).toContain('rules left out: a bd prime SessionStart hook in .claude/settings.json already gives them');
      expect(runCli(['context'], { cwd: dir, env }).stdout).toContain('## Core Rules');
    } finally {
      rmSync(shared, { force: true });
    }
  });

  it('cuts a huge context to the budget and says what it dropped', () => {
    const huge = makeWorkspace({ dir: path.join(scratch, 'huge'), dialect: 'br', data: 'scenario', git: true }).dir;
    const issues = path.join(huge, '.beads', 'issues.jsonl');
    const records = readFileSync(issues, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
    const focused = records.find((record) => record.id === SCENARIO.inProgress)!;
    // Longer than Claude Code's hook budget (core/budget.ts) even after each section's own cap.
    focused.description = 'A very long description. '.repeat(400);
    focused.acceptance_criteria = '- [ ] a long criterion to meet\n'.repeat(200);
    focused.notes = 'A long note. '.repeat(400);
    focused.design = 'A long design. '.repeat(400);
    focused.comments = Array.from({ length: 40 }, (_, index) => ({
      id: 1000 + index,
      issue_id: SCENARIO.inProgress,
      author: 'agent',
      text: `Checkpoint: step ${index} ${'with many words of detail '.repeat(20)}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
    }));
    writeFileSync(issues, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    for (let index = 0; index < 12; index++) writeFileSync(path.join(huge, `uncommitted-${index}-${'long-name-'.repeat(20)}.txt`), 'x\n');
    const hook = runHook(sessionStart, scratch, { session_id: 's3', cwd: huge, hook_event_name: 'SessionStart', source: 'resume' }, env);
    expect(hook.status, hook.stderr).toBe(0);
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(Buffer.byteLength(context, 'utf8')).toBeLessThanOrEqual(hookSurfaceBudget('claude').bytes);
    expect(context).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    // The latest checkpoint is kept whole; the older trail goes before the description.
    expect(context).toContain('### Latest Checkpoint');
    expect(context).toContain('Checkpoint: step 39 with many words of detail');
    // The block's budget leaves room for its mark line.
    expect(context).toMatch(/Trimmed to fit 8\d\d\d bytes; dropped /);
  });
});

describe('one session start that runs our hook from two files (VS Code running Claude Code\'s hooks too)', { timeout: 60_000 }, () => {
  it('hands the context over once, and again for the compaction that follows', () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'both-files'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: project('home'), USERPROFILE: project('home') };
    const start = JSON.stringify({ timestamp: '2026-11-23T10:00:00.000Z', cwd: dir, sessionId: 'both-1', hookEventName: 'SessionStart', source: 'new' });
    const run = (agent: string) => spawnSync(process.execPath, [cli, 'hook', agent, 'SessionStart'], { cwd: dir, input: start, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
    const first = run('copilot');
    expect(contextIn('copilot', first.stdout, 'SessionStart')).toMatch(/^## Resuming: /m);
    const second = run('claude');
    expect(second.status).toBe(0);
    expect(second.stdout).toBe('{}\n');
    expect(second.stderr).toContain('already went to this session moments ago');
    const compacted = spawnSync(process.execPath, [cli, 'hook', 'claude', 'SessionStart'], {
      cwd: dir,
      input: JSON.stringify({ session_id: 'both-1', cwd: dir, hook_event_name: 'SessionStart', source: 'compact' }),
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(contextIn('claude', compacted.stdout, 'SessionStart')).toMatch(/^## Resuming: /m);
  });
});

describe('one session start that runs our hook from two files, when the agent sends no session id', { timeout: 90_000 }, () => {
  // TMPDIR is the test's own: the delivery claims live there, and the test ages them by hand.
  const claims = project('claims-tmp');
  const home = project('home');
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home, TMPDIR: claims, TMP: claims, TEMP: claims };
  let dir: string;

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, 'no-session'), dialect: 'br', data: 'scenario', git: true }).dir;
  });

  /** Runs `hook <agent> SessionStart` without waiting, as an agent starts its hooks: all at once. */
  function start(agent: AgentId, input: object): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, 'hook', agent, 'SessionStart'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(JSON.stringify(input));
    });
  }

  async function both(input: object): Promise<(string | undefined)[]> {
    const runs = await Promise.all([start('copilot', input), start('claude', input)]);
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    return [contextIn('copilot', runs[0]!.stdout, 'SessionStart'), contextIn('claude', runs[1]!.stdout, 'SessionStart')];
  }

  const delivered = (contexts: (string | undefined)[]) => contexts.filter((context) => context !== undefined && /^## Resuming: /m.test(context)).length;

  it('hands the context over once when both run at the same moment', async () => {
    expect(delivered(await both({ cwd: dir, hookEventName: 'SessionStart', source: 'new' }))).toBe(1);
  });

  it('still hands it over to a start of another source, and to a new session once the start is a few seconds past', async () => {
    expect(delivered(await both({ cwd: dir, hookEventName: 'SessionStart', source: 'compact' }))).toBe(1);
    // The claims of the starts above, ten seconds older: the next start is a session of its own.
    const past = new Date(Date.now() - 10_500);
    const folder = path.join(claims, `beads-recovery-${process.getuid?.() ?? 'user'}`, 'hooks');
    for (const name of readdirSync(folder).filter((name) => name.endsWith('.delivered'))) utimesSync(path.join(folder, name), past, past);
    expect(delivered(await both({ cwd: dir, hookEventName: 'SessionStart', source: 'new' }))).toBe(1);
  });

  it('tells sessions apart by their transcript file when that is all the agent sends', async () => {
    const transcript = (name: string) => ({ cwd: dir, hook_event_name: 'SessionStart', source: 'startup', transcript_path: path.join(home, `${name}.jsonl`) });
    expect(delivered(await both(transcript('one')))).toBe(1);
    expect(delivered(await both(transcript('two')))).toBe(1);
  });
});

describe('a hook whose beads CLI hangs', { timeout: 60_000 }, () => {
  it('answers from .beads/issues.jsonl in its agent\'s shape within its deadline, and exits 0', () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'hanging'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_STANDIN_FAULT: 'hang', BEADS_RECOVERY_TIMEOUT_MS: '50000', BEADS_RECOVERY_HOOK_DEADLINE_MS: '12000' };
    const started = Date.now();
    const result = spawnSync(process.execPath, [cli, 'hook', 'copilot', 'SessionStart'], {
      cwd: dir,
      input: JSON.stringify({ cwd: dir, hookEventName: 'SessionStart', sessionId: 'h', source: 'new' }),
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(0);
    // The fallback gets its full 3 s (see test/unit/bin/hook.faults.test.ts); only the deadline can
    // have ended the wait for the CLI, whose own timeout is far later.
    expect(Date.now() - started).toBeLessThan(12_000 + 5_000);
    expect(result.stderr).toContain('ran out of time');
    const context = contextIn('copilot', result.stdout, 'SessionStart');
    expect(context).toContain('Read-only here');
    expect(context).toContain(SCENARIO.inProgress);
  });
});

describe('Gemini CLI, from its chat file: a checkpoint per compression, the block whenever the history holds none', { timeout: 90_000 }, () => {
  // Records as Gemini CLI 0.61 writes them (test/unit/core/geminiHistory.test.ts has the shapes).
  const sessionContext = { id: 'ctx', timestamp: '2026-11-26T10:00:00.000Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] };
  const user = (id: string, ...texts: string[]) => ({ id, timestamp: '2026-11-26T10:00:01.000Z', type: 'user', content: texts.map((text) => ({ text })) });
  const model = (id: string, text: string) => ({ id, timestamp: '2026-11-26T10:00:02.000Z', type: 'gemini', content: text });
  const compression = (summaryId: string, ...kept: object[]) => ({ $set: { messages: [sessionContext, user(summaryId, '<state_snapshot>the work so far</state_snapshot>'), { ...model(`${summaryId}-ack`, ''), content: [{ text: 'Got it. Thanks for the additional context!' }] }, ...kept] } });

  let dir: string;
  let chat: string;
  let commands: Map<string, string>;
  const home = project('home-gemini');
  const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home };

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, 'gemini-chat'), dialect: 'br', data: 'scenario', git: true }).dir;
    expect(runCli(['hooks', 'install', '--agent', 'gemini', '--dir', dir], { cwd: dir, env }).status).toBe(0);
    commands = new Map(ourCommands(readFileSync(path.join(dir, '.gemini', 'settings.json'), 'utf8')).map(({ event, command }) => [event, command]));
    chat = path.join(project('home-gemini-chats'), 'session-2026-11-26T10-00-g1.jsonl');
    writeFileSync(chat, `${[{ sessionId: 'g1', projectHash: 'p', startTime: '2026-11-26T10:00:00.000Z', kind: 'main' }, { $set: { messages: [sessionContext] } }].map((record) => JSON.stringify(record)).join('\n')}\n`);
  }, 60_000);

  const record = (...records: object[]) => appendFileSync(chat, records.map((value) => `${JSON.stringify(value)}\n`).join(''));
  const input = (event: string, extra: object = {}) => ({ session_id: 'g1', transcript_path: chat, cwd: dir, hook_event_name: event, timestamp: '2026-11-26T10:00:00.000Z', ...extra });
  const hook = (event: string, extra: object = {}) => {
    const result = runHook(commands.get(event)!, dir, input(event, extra), env);
    expect(result.status, result.stderr).toBe(0);
    return contextIn('gemini', result.stdout, event);
  };
  const beforeAgent = (prompt: string) => hook('BeforeAgent', { prompt });
  const afterTool = () => hook('AfterTool', { tool_name: 'read_file', tool_input: { path: 'a.ts' }, tool_response: { llmContent: 'text' } });
  const checkpoints = () => readComments(dir, SCENARIO.inProgress).filter((text) => text.startsWith('Auto-checkpoint (pre-compaction)'));

  it('hands the block over with the first prompt, then nothing while the history holds it; no checkpoint over many requests without a compression', () => {
    const block = beforeAgent('STEP1 write the notes');
    expect(block).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
    expect(block).toMatch(/\n\nbeads-recovery block [0-9a-f]{8}$/);
    expect(block!.startsWith('The conversation was compacted')).toBe(false);
    // Gemini CLI appends it to the prompt, which its chat file then holds.
    record(user('u1', 'STEP1 write the notes', `<hook_context>${block}</hook_context>`));
    writeFileSync(path.join(dir, 'gemini-work.ts'), 'export const work = 1;\n');
    for (let request = 0; request < 3; request++) {
      expect(hook('BeforeModel', { llm_request: { model: 'gemini', messages: [] } })).toBeUndefined();
      expect(afterTool()).toBeUndefined();
      record(model(`m${request}`, 'Done.'));
    }
    expect(beforeAgent('STEP2 go on')).toBeUndefined();
    expect(checkpoints()).toEqual([]);
  });

  it('a compression gets one checkpoint at the request after it, and the next tool call (one of two side by side) the block once, saying why', async () => {
    record(user('u2', 'COMPACT-NOW'), compression('s1', user('k1', 'COMPACT-NOW')));
    expect(hook('BeforeModel')).toBeUndefined();
    expect(checkpoints()).toHaveLength(1);
    expect(checkpoints()[0]).toContain('gemini-work.ts');
    expect(hook('BeforeModel')).toBeUndefined();
    expect(checkpoints()).toHaveLength(1);

    const both = await Promise.all([0, 1].map(() => runHookAsync(commands.get('AfterTool')!, dir, input('AfterTool', { tool_name: 'read_file', tool_input: {}, tool_response: {} }), env)));
    const given = both.map((result) => contextIn('gemini', result.stdout, 'AfterTool')).filter((context) => context !== undefined);
    expect(given).toHaveLength(1);
    expect(given[0]!.startsWith('The conversation was compacted; this is the beads recovery context.\n\n')).toBe(true);
    expect(given[0]).toContain('Auto-checkpoint (pre-compaction)');
    record({ ...model('m3', ''), toolCalls: [{ id: 'c1', name: 'read_file', result: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: `text\n\n<hook_context>${given[0]}</hook_context>` } } }] }] });
    expect(afterTool()).toBeUndefined();
    expect(beforeAgent('STEP3')).toBeUndefined();
  });

  it('a resume writes the same compression again: no second checkpoint, and the block it holds is enough', () => {
    const kept = [user('k1', 'COMPACT-NOW'), { ...model('m3', ''), toolCalls: [{ id: 'c1', name: 'read_file', result: [{ text: 'beads-recovery block 0123abcd' }] }] }];
    record({ sessionId: 'g1', projectHash: 'p', startTime: '2026-11-26T10:05:00.000Z', kind: 'main' }, { $set: { messages: [sessionContext] } }, { $set: { messages: compression('s1', ...kept).$set.messages } });
    expect(hook('BeforeModel')).toBeUndefined();
    expect(beforeAgent('STEP4 more work')).toBeUndefined();
    expect(checkpoints()).toHaveLength(1);
  });

  it('a second compression, with the very same summary text, gets its own checkpoint and its own block', () => {
    writeFileSync(path.join(dir, 'gemini-more.ts'), 'export const more = 1;\n');
    record(user('u5', 'COMPACT-NOW'), compression('s2', user('k2', 'COMPACT-NOW')));
    expect(hook('BeforeModel')).toBeUndefined();
    expect(checkpoints()).toHaveLength(2);
    const block = beforeAgent('STEP2 go on');
    expect(block!.startsWith('The conversation was compacted; this is the beads recovery context.\n\n')).toBe(true);
    expect(block).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
  });

  // Gemini CLI's start-up cleanup deletes every chat file that holds no turn yet, another live
  // session's too, and the session then appends its first prompt to a new file without its first
  // record (docs/gemini-session-race.md). Here the cleanup is played by the br our hook asks: it
  // deletes the new session's chat file while the hook works on the block.
  it("a new session's chat file deleted while its first prompt's hook runs is written back as it was, and the block still goes", () => {
    const fresh = path.join(project('home-gemini-race-chats'), 'session-2026-11-28T07-00-g2.jsonl');
    const started = `${[{ sessionId: 'g2', projectHash: 'p', startTime: '2026-11-28T07:00:00.000Z', kind: 'main' }, { $set: { messages: [sessionContext] } }].map((value) => JSON.stringify(value)).join('\n')}\n`;
    writeFileSync(fresh, started);
    const bin = project('gemini-race-bin');
    const br = path.join(bin, 'br');
    writeFileSync(br, `#!${process.execPath}\nrequire('node:fs').rmSync(${JSON.stringify(fresh)}, { force: true });\nprocess.exit(require('node:child_process').spawnSync(${JSON.stringify(process.execPath)}, [${JSON.stringify(path.join(STANDIN_BIN_DIR, 'br'))}, ...process.argv.slice(2)], { stdio: 'inherit' }).status ?? 1);\n`);
    chmodSync(br, 0o755);
    const result = runHook(commands.get('BeforeAgent')!, dir, { ...input('BeforeAgent', { prompt: 'STEP1' }), session_id: 'g2', transcript_path: fresh }, { ...env, BEADS_RECOVERY_CLI_PATH: br });
    expect(result.status, result.stderr).toBe(0);
    expect(contextIn('gemini', result.stdout, 'BeforeAgent')).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    expect(readFileSync(fresh, 'utf8')).toBe(started);
    expect(result.stderr).toContain('its first record is written back');
    // Not deleted: nothing is written over the file Gemini CLI keeps appending to.
    appendFileSync(fresh, `${JSON.stringify(user('u1', 'STEP1'))}\n`);
    const again = runHook(commands.get('BeforeAgent')!, dir, { ...input('BeforeAgent', { prompt: 'STEP1' }), session_id: 'g2', transcript_path: fresh }, env);
    expect(again.status).toBe(0);
    expect(readFileSync(fresh, 'utf8')).toBe(`${started}${JSON.stringify(user('u1', 'STEP1'))}\n`);
    expect(again.stderr).not.toContain('written back');
  });

  // The same cleanup can run before our BeforeAgent hook reads the file, or after it answered and
  // before Gemini CLI records the prompt (it asks its routing model first): the session's first
  // record is rebuilt from the hook's input, and never written to a file not named after the session.
  it("a new session's chat file deleted before its first prompt's hook reads it gets its first record back, rebuilt, and the block still goes", () => {
    const session = 'a1b2c3d4-0000-4000-8000-000000000001';
    const gone = path.join(project('home-gemini-gone-chats'), `session-2026-11-28T08-00-${session.slice(0, 8)}.jsonl`);
    const result = runHook(commands.get('BeforeAgent')!, dir, { ...input('BeforeAgent', { prompt: 'STEP1' }), session_id: session, transcript_path: gone, timestamp: '2026-11-28T08:00:05.000Z' }, env);
    expect(result.status, result.stderr).toBe(0);
    expect(contextIn('gemini', result.stdout, 'BeforeAgent')).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    // As Gemini CLI's ChatRecordingService writes it: its project hash is the SHA-256 of the project folder.
    expect(readFileSync(gone, 'utf8')).toBe(`${JSON.stringify({ sessionId: session, projectHash: createHash('sha256').update(dir).digest('hex'), startTime: '2026-11-28T08:00:05.000Z', lastUpdated: '2026-11-28T08:00:05.000Z', kind: 'main' })}\n`);
    expect(result.stderr).toContain('its first record is written back');

    const stranger = path.join(project('home-gemini-gone-chats'), 'session-2026-11-28T08-00-ffffffff.jsonl');
    expect(runHook(commands.get('BeforeAgent')!, dir, { ...input('BeforeAgent', { prompt: 'STEP1' }), session_id: session, transcript_path: stranger }, env).status).toBe(0);
    expect(existsSync(stranger)).toBe(false);
  });

  it('a chat file that lost its first record after the hook answered gets it back at the next model request, appended once, the turns kept', () => {
    const session = 'b1b2c3d4-0000-4000-8000-000000000002';
    const headless = path.join(project('home-gemini-headless-chats'), `session-2026-11-28T09-00-${session.slice(0, 8)}.jsonl`);
    // What Gemini CLI appends to a deleted file: the prompt and its lastUpdated, no first record.
    const turns = `${JSON.stringify(user('u1', 'STEP1 write the notes'))}\n${JSON.stringify({ $set: { lastUpdated: '2026-11-28T09:00:03.000Z' } })}\n`;
    writeFileSync(headless, turns);
    const model = () => runHook(commands.get('BeforeModel')!, dir, { ...input('BeforeModel', { llm_request: { model: 'gemini', messages: [] } }), session_id: session, transcript_path: headless, timestamp: '2026-11-28T09:00:04.000Z' }, env);
    const first = model();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('its first record is written back');
    const repaired = readFileSync(headless, 'utf8');
    expect(repaired.startsWith(turns)).toBe(true);
    const record = repaired.slice(turns.length);
    expect(record.indexOf('\n')).toBe(record.length - 1);
    expect(JSON.parse(record)).toEqual({ sessionId: session, projectHash: createHash('sha256').update(dir).digest('hex'), startTime: '2026-11-28T09:00:04.000Z', lastUpdated: '2026-11-28T09:00:04.000Z', kind: 'main' });
    const second = model();
    expect(second.status).toBe(0);
    expect(second.stderr).not.toContain('written back');
    expect(readFileSync(headless, 'utf8')).toBe(`${turns}${record}`);
  });

  it('outside a beads folder every Gemini hook says nothing, even with a compression in the chat file', () => {
    const plain = project('gemini-plain');
    for (const event of ['BeforeModel', 'BeforeAgent', 'AfterTool']) {
      const result = runHook(commands.get(event)!, plain, { ...input(event), cwd: plain }, env);
      expect(result.status).toBe(0);
      expect(result.stdout).toBe('{}\n');
      expect(result.stderr).toBe('');
    }
  });
});

describe('exactly once per compaction and per start, resumed sessions included', { timeout: 90_000 }, () => {
  const home = project('home-once');
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home };
  let dir: string;

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, 'exactly-once'), dialect: 'br', data: 'scenario', git: true }).dir;
  });

  function hook(agent: AgentId, event: string, input: object): string | undefined {
    const result = spawnSync(process.execPath, [cli, 'hook', agent, event], { cwd: dir, input: JSON.stringify({ cwd: dir, ...input }), env, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    return event === 'PreCompact' ? undefined : contextIn(agent, result.stdout, event);
  }

  /** Appends one record to a Claude Code transcript, as Claude Code writes it (one JSON object a line). */
  function record(transcript: string, value: object): void {
    writeFileSync(transcript, `${existsSync(transcript) ? readFileSync(transcript, 'utf8') : ''}${JSON.stringify(value)}\n`);
  }

  it('gives a second compaction of one session within the minute the block again', () => {
    const session = { session_id: 'twice-1', hook_event_name: 'SessionStart', source: 'compact' };
    expect(hook('claude', 'PreCompact', { session_id: 'twice-1', hook_event_name: 'PreCompact', trigger: 'manual' })).toBeUndefined();
    expect(hook('claude', 'SessionStart', session)).toMatch(/^## Resuming: /m);
    expect(hook('claude', 'PreCompact', { session_id: 'twice-1', hook_event_name: 'PreCompact', trigger: 'manual' })).toBeUndefined();
    expect(hook('claude', 'SessionStart', session)).toMatch(/^## Resuming: /m);
  });

  it('ends the block with its mark, and gives a resumed conversation that holds it nothing, reading the transcript', () => {
    const transcript = path.join(home, 'resumed.jsonl');
    const common = { session_id: 'resumed-1', transcript_path: transcript };
    const first = hook('claude', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'startup' })!;
    expect(first).toMatch(/\n\nbeads-recovery block [0-9a-f]{8}$/);
    expect(Buffer.byteLength(first, 'utf8')).toBeLessThanOrEqual(hookSurfaceBudget('claude').bytes);
    record(transcript, { type: 'attachment', attachment: { type: 'hook_additional_context', content: [first], hookName: 'SessionStart:startup' } });
    record(transcript, { type: 'user', message: { role: 'user', content: 'go on' } });
    expect(hook('claude', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume' })).toBeUndefined();

    // Compacted away: the block stands before the last boundary, so the next resume needs it again.
    record(transcript, { type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted' });
    const again = hook('claude', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume' });
    expect(again).toBe(first);
    record(transcript, { type: 'attachment', attachment: { type: 'hook_additional_context', content: [again], hookName: 'SessionStart:resume' } });
    expect(hook('claude', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume' })).toBeUndefined();
  });

  it('gives nothing to a resume of a real Claude Code transcript that holds a block after its compaction, though the state moved since', () => {
    // Claude Code 2.1's own transcript of start, a resume, /compact (the block after the boundary, digest f087daec).
    const transcript = path.join(home, 'claude-real.jsonl');
    writeFileSync(transcript, readFileSync(path.join(__dirname, '../../fixtures/transcripts/claude/nested-keys.jsonl'), 'utf8'));
    expect(hook('claude', 'SessionStart', { session_id: 'real-1', transcript_path: transcript, hook_event_name: 'SessionStart', source: 'resume' })).toBeUndefined();
  });

  it("gives every Copilot CLI run its block, resumes seconds apart included: a run does not get the last run's start context again", () => {
    // Copilot CLI's VS Code-format input: a stamp per hook, no transcript at a start.
    const start = (source: string, at: number) => hook('copilot', 'SessionStart', { session_id: 'cli-runs', hook_event_name: 'SessionStart', source, timestamp: new Date(at).toISOString() });
    const now = Date.now();
    expect(start('new', now)).toMatch(/^## Resuming: /m);
    expect(start('resume', now + 2_000)).toMatch(/^## Resuming: /m);
    expect(start('resume', now + 4_000)).toMatch(/^## Resuming: /m);
    // The hook files of one start share its stamp: once.
    expect(start('resume', now + 4_000)).toBeUndefined();
  });

  it('remembers a Copilot CLI hand-over after a compaction, which a resume gets again: the resume adds none, until the next compaction', () => {
    const common = { session_id: 'cli-handover' };
    const at = (offset: number) => new Date(Date.now() + offset).toISOString();
    hook('copilot', 'PreCompact', { ...common, hook_event_name: 'PreCompact', trigger: 'auto', timestamp: at(0) });
    expect(hook('copilot', 'PostToolUse', { ...common, hook_event_name: 'PostToolUse', tool_name: 'bash', timestamp: at(1_000) })).toMatch(/^The conversation was compacted/);
    expect(hook('copilot', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume', timestamp: at(2_000) })).toBeUndefined();
    hook('copilot', 'PreCompact', { ...common, hook_event_name: 'PreCompact', trigger: 'auto', timestamp: at(3_000) });
    expect(hook('copilot', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume', timestamp: at(4_000) })).toMatch(/^## Resuming: /m);
  });

  describe("Copilot CLI's next prompt after a compaction", () => {
    const logLine = (value: object) => `${JSON.stringify(value)}\n`;
    const preCompactStarted = logLine({ type: 'hook.start', data: { hookInvocationId: 'p1', hookType: 'preCompact', input: { trigger: 'auto' } } });
    const at = (offset: number) => new Date(Date.now() + offset).toISOString();
    const compact = (session: string, transcript: string) => hook('copilot', 'PreCompact', { session_id: session, transcript_path: transcript, hook_event_name: 'PreCompact', trigger: 'auto', timestamp: at(0) });
    const prompt = (session: string, offset: number) => hook('copilot', 'UserPromptSubmit', { session_id: session, hook_event_name: 'UserPromptSubmit', prompt: 'go on', timestamp: at(offset) });

    it('hands the block over in the run that compacted, once, and a later resume adds none', () => {
      const events = path.join(home, 'cli-prompt-events.jsonl');
      writeFileSync(events, logLine({ type: 'session.start', data: { producer: 'copilot-agent' } }) + preCompactStarted);
      compact('cli-prompt', events);
      expect(prompt('cli-prompt', 1_000)).toMatch(/^The conversation was compacted/);
      expect(prompt('cli-prompt', 2_000)).toBeUndefined();
      expect(hook('copilot', 'PostToolUse', { session_id: 'cli-prompt', hook_event_name: 'PostToolUse', tool_name: 'bash', timestamp: at(3_000) })).toBeUndefined();
      expect(hook('copilot', 'SessionStart', { session_id: 'cli-prompt', hook_event_name: 'SessionStart', source: 'resume', timestamp: at(4_000) })).toBeUndefined();
    });

    it("leaves a later run's first prompt to that run's SessionStart, which runs beside it", () => {
      const events = path.join(home, 'cli-next-run-events.jsonl');
      writeFileSync(events, preCompactStarted);
      compact('cli-next-run', events);
      writeFileSync(events, preCompactStarted + logLine({ type: 'session.resume', data: { eventCount: 40 } }));
      expect(prompt('cli-next-run', 1_000)).toBeUndefined();
      expect(hook('copilot', 'SessionStart', { session_id: 'cli-next-run', hook_event_name: 'SessionStart', source: 'resume', timestamp: at(1_000) })).toMatch(/^## Resuming: /m);
    });

    it("keeps the marker for VS Code's PostToolUse: VS Code takes no context from UserPromptSubmit, and its transcript is no Copilot CLI log", () => {
      const transcript = path.join(home, 'vscode-transcript.jsonl');
      writeFileSync(transcript, logLine({ type: 'user', text: 'go on' }));
      const common = { sessionId: 'vscode-prompt', transcript_path: transcript, timestamp: at(0) };
      hook('copilot', 'PreCompact', { ...common, hookEventName: 'PreCompact', trigger: 'auto' });
      expect(hook('copilot', 'UserPromptSubmit', { ...common, hookEventName: 'UserPromptSubmit', prompt: 'go on' })).toBeUndefined();
      expect(hook('copilot', 'PostToolUse', { ...common, hookEventName: 'PostToolUse', tool_name: 'readFile' })).toMatch(/^The conversation was compacted/);
    });
  });

  it('falls back to what it gave the session when the agent names no transcript, until a compaction', () => {
    const common = { session_id: 'codex-once', transcript_path: null };
    expect(hook('codex', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'startup' })).toMatch(/^## Resuming: /m);
    expect(hook('codex', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume' })).toBeUndefined();
    hook('codex', 'PreCompact', { ...common, hook_event_name: 'PreCompact', trigger: 'auto' });
    expect(hook('codex', 'SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'resume' })).toMatch(/^## Resuming: /m);
  });
});
