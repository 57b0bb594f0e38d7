// The command line as Claude Code's hooks run it: the built dist/cli.js, installed into a project's
// settings by `beads-recovery hooks install`, then run through a shell exactly as the settings
// file says, with the JSON Claude Code writes to a hook's stdin.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ourCommands, parseHookCommand } from '../../src/core/claudeHooks';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from './builtCli';

const cli = CLI_SCRIPT;
const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hook-cli-'));

function runCli(args: string[], options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a hook command the way Claude Code does: through a shell, in the project, JSON on stdin. */
function runHook(command: string, cwd: string, input: object, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync('/bin/sh', ['-c', command], {
    cwd,
    input: JSON.stringify(input),
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
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
    expect(first.stdout).toContain('Added the SessionStart and PreCompact hooks to .claude/settings.local.json');
    const installed = JSON.parse(readFileSync(settings, 'utf8'));
    expect(installed.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(installed.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'echo bye' }] }]);
    expect(installed.hooks.SessionStart[0].matcher).toBe('startup|resume|clear|compact');
    expect(installed.hooks.PreCompact[0].matcher).toBe('auto|manual');
    const [sessionStart, preCompact] = ourCommands(readFileSync(settings, 'utf8'));
    expect(parseHookCommand(sessionStart!.command)).toEqual({
      launcher: { runtime: process.execPath, script: cli, electron: false },
      args: ['context', '--format', 'claude-hook'],
    });
    expect(parseHookCommand(preCompact!.command)?.args).toEqual(['checkpoint', '--auto', '--pre-compact']);

    const afterFirst = readFileSync(settings, 'utf8');
    const second = runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    expect(second.stdout).toContain('already in .claude/settings.local.json');
    expect(readFileSync(settings, 'utf8')).toBe(afterFirst);

    const status = runCli(['hooks', 'status', '--dir', dir], { cwd: dir });
    expect(status.stdout.split('\n').filter(Boolean)).toEqual([`SessionStart: ${sessionStart!.command}`, `PreCompact: ${preCompact!.command}`]);

    const removed = runCli(['hooks', 'uninstall', '--dir', dir], { cwd: dir });
    expect(removed.status).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(original);
  });

  it('writes .claude/settings.json with --shared, and prints without writing with --dry-run', () => {
    const dir = project('shared');
    const dry = runCli(['hooks', 'install', '--shared', '--dry-run', '--dir', dir], { cwd: dir });
    expect(dry.status).toBe(0);
    expect(ourCommands(dry.stdout)).toHaveLength(2);
    expect(existsSync(path.join(dir, '.claude'))).toBe(false);
    expect(runCli(['hooks', 'install', '--shared', '--dir', dir], { cwd: dir }).status).toBe(0);
    expect(ourCommands(readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8'))).toHaveLength(2);
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

  it('reports a read-only settings file and changes nothing', () => {
    const dir = project('readonly');
    mkdirSync(path.join(dir, '.claude'));
    const settings = path.join(dir, '.claude', 'settings.local.json');
    writeFileSync(settings, '{}\n');
    chmodSync(settings, 0o444);
    // Root may write any file, so as root the command runs as nobody, to whom the file is read-only.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) for (const entry of [scratch, dir, path.join(dir, '.claude')]) chmodSync(entry, 0o755);
    const command = asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath] : [process.execPath];
    const result = spawnSync(command[0]!, [...command.slice(1), cli, 'hooks', 'install', '--dir', dir], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/read-only \(EACCES\); nothing was changed/);
    expect(readFileSync(settings, 'utf8')).toBe('{}\n');
  });

  it('rejects an unknown action with usage and exit code 2', () => {
    const result = runCli(['hooks', 'reinstall'], { cwd: scratch });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('beads-recovery hooks install|uninstall|status');
  });
});

describe('the installed SessionStart command', { timeout: 60_000 }, () => {
  it('runs through a shell and answers with hook JSON, taking the project from the stdin cwd', () => {
    const dir = project('not-beads');
    runCli(['hooks', 'install', '--dir', dir], { cwd: dir });
    const [sessionStart] = ourCommands(readFileSync(path.join(dir, '.claude', 'settings.local.json'), 'utf8'));
    const result = runHook(sessionStart!.command, scratch, { session_id: 's1', cwd: dir, hook_event_name: 'SessionStart', source: 'startup' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'Not a beads project: no .beads directory found here.' },
    });
  });

  it('does not wait for a stdin that never closes', async () => {
    const dir = project('open-stdin');
    const started = Date.now();
    // stdin stays an open pipe that nobody writes to or closes.
    const child = spawn(process.execPath, [cli, 'context', '--format', 'claude-hook'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(JSON.parse(stdout).hookSpecificOutput.additionalContext).toMatch(/^Not a beads project/);
  });
});

describe('the installed hooks on a beads project (stand-in br on PATH)', { timeout: 60_000 }, () => {
  // HOME is a scratch folder: the user's own ~/.claude settings must not decide what the hook prints.
  const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: project('home'), USERPROFILE: project('home') };
  let dir: string;
  let sessionStart: string;
  let preCompact: string;

  function comments(id: string): string[] {
    const lines = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    const issue = lines.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
    return (issue?.comments ?? []).map((comment) => comment.text);
  }

  beforeAll(() => {
    dir = makeWorkspace({ dir: path.join(scratch, 'scenario'), dialect: 'br', data: 'scenario', git: true }).dir;
    expect(runCli(['hooks', 'install', '--dir', dir], { cwd: dir, env }).status).toBe(0);
    [sessionStart, preCompact] = ourCommands(readFileSync(path.join(dir, '.claude', 'settings.local.json'), 'utf8')).map(({ command }) => command) as [string, string];
  }, 60_000);

  it('SessionStart after a compaction prints the recovery context as additionalContext, within the budget', () => {
    const input = { session_id: 's2', transcript_path: '/tmp/t.jsonl', cwd: dir, permission_mode: 'default', hook_event_name: 'SessionStart', source: 'compact', model: 'claude' };
    const hook = runHook(sessionStart, dir, input, env);
    expect(hook.status, hook.stderr).toBe(0);
    const output = JSON.parse(hook.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(Object.keys(output)).toEqual(['hookSpecificOutput']);
    expect(output.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context = output.hookSpecificOutput.additionalContext;
    expect(context).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — Parse widget config$`, 'm'));
    expect(Buffer.byteLength(context, 'utf8')).toBeLessThanOrEqual(2048);
    const plain = runCli(['context'], { cwd: dir, env });
    expect(`${context}\n`).toBe(plain.stdout);
  });

  it("leaves the rules out of SessionStart when bd's own prime hook reaches Claude Code, and keeps them in the plain context", () => {
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
      const plain = runCli(['context'], { cwd: dir, env });
      expect(plain.stdout).toContain('## Core Rules');
    } finally {
      rmSync(shared, { force: true });
    }
  });

  it('PreCompact (trigger auto) writes an Auto-checkpoint (pre-compaction) comment with the changed files, and says so', () => {
    writeFileSync(path.join(dir, 'widget-config.ts'), 'export const keys = [];\n');
    const before = comments(SCENARIO.inProgress).length;
    const input = { session_id: 's2', transcript_path: '/tmp/t.jsonl', cwd: dir, permission_mode: 'default', hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' };
    const hook = runHook(preCompact, dir, input, env);
    expect(hook.status, hook.stderr).toBe(0);
    const added = comments(SCENARIO.inProgress).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^Auto-checkpoint \(pre-compaction\): /);
    expect(added[0]).toContain('widget-config.ts');
    expect(hook.stdout).toBe(`beads-recovery: checkpoint written on ${SCENARIO.inProgress}: ${added[0]!.split('\n')[0]}\n`);
  });

  it('cuts a huge context to the budget and says what it dropped', () => {
    const huge = makeWorkspace({ dir: path.join(scratch, 'huge'), dialect: 'br', data: 'scenario', git: true }).dir;
    const issues = path.join(huge, '.beads', 'issues.jsonl');
    const records = readFileSync(issues, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
    const focused = records.find((record) => record.id === SCENARIO.inProgress)!;
    focused.description = 'A very long description. '.repeat(400);
    focused.comments = Array.from({ length: 40 }, (_, index) => ({
      id: 1000 + index,
      issue_id: SCENARIO.inProgress,
      author: 'agent',
      text: `Checkpoint: step ${index} ${'with many words of detail '.repeat(20)}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
    }));
    writeFileSync(issues, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const hook = runHook(sessionStart, scratch, { session_id: 's3', cwd: huge, hook_event_name: 'SessionStart', source: 'resume' }, env);
    expect(hook.status, hook.stderr).toBe(0);
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(Buffer.byteLength(context, 'utf8')).toBeLessThanOrEqual(2048);
    expect(context).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    // The latest checkpoint is kept whole; the older trail goes before the description.
    expect(context).toContain('### Latest Checkpoint');
    expect(context).toContain('Checkpoint: step 39 with many words of detail');
    expect(context).toMatch(/Trimmed to fit 2048 bytes; dropped .*trail entries/);
  });
});
