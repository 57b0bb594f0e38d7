import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_FORMATS,
  AGENTS,
  hookCommandLine,
  installHooks,
  isOurCommand,
  isSiblingVersion,
  ourCommands,
  parseHookCommand,
  shimCommandLine,
  launcherScripts,
  repairHooks,
  uninstallHooks,
  type ConfigEdit,
  type HookLauncher,
} from '../../../src/core/hookConfig';
import { OPENCODE_PLUGIN_MARKER, readOpencodePlugin } from '../../../src/core/opencodePlugin';
import { installMcpServer } from '../../../src/core/mcpConfig';
import { BD_HOOK_FILES } from '../../fixtures/agentHookFiles.mjs';

const launcher: HookLauncher = {
  runtime: '/opt/VS Code/code',
  script: '/home/dev/.vscode/extensions/beads-recovery.beads-recovery-0.1.0/dist/cli.js',
  electron: true,
};
const updated: HookLauncher = { ...launcher, script: '/home/dev/.vscode/extensions/beads-recovery.beads-recovery-0.2.0/dist/cli.js' };

function onPath(program: string): boolean {
  return spawnSync(program, ['-c', 'exit 0']).status === 0;
}

function text(edit: ConfigEdit): string {
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
}

// A project's Claude settings with other keys, a comment, another SessionStart hook and a PreToolUse hook, 4-space indented.
const CLAUDE_EXISTING = `{
    // team settings
    "permissions": {
        "allow": ["Bash(npm test)"]
    },
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [{ "type": "command", "command": "echo hello" }]
            }
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{ "type": "command", "command": "./check.sh", "timeout": 5 }]
            }
        ]
    },
    "model": "opus",
}
`;

describe('hook commands', () => {
  it('quotes the paths for a POSIX shell, sets ELECTRON_RUN_AS_NODE for VS Code\'s runtime and ends with the marker', () => {
    expect(hookCommandLine(launcher, ['hook', 'claude', 'SessionStart'])).toBe(
      `ELECTRON_RUN_AS_NODE=1 '/opt/VS Code/code' '${launcher.script}' hook claude SessionStart # beads-recovery`,
    );
    expect(hookCommandLine({ ...launcher, electron: false, runtime: '/usr/bin/node' }, ['hook', 'codex', 'PreCompact'])).toBe(
      `'/usr/bin/node' '${launcher.script}' hook codex PreCompact # beads-recovery`,
    );
  });

  it('runs the per-user launcher in each shell, with no path of this machine, and does nothing where it is missing', () => {
    expect(shimCommandLine(['hook', 'claude', 'SessionStart'], 'posix')).toBe(
      '[ ! -x "$HOME/.beads-recovery/bin/beads-recovery" ] || "$HOME/.beads-recovery/bin/beads-recovery" hook claude SessionStart # beads-recovery',
    );
    expect(shimCommandLine(['hook', 'copilot', 'PreCompact'], 'powershell')).toBe(
      '$launcher = "$env:USERPROFILE\\.beads-recovery\\bin\\beads-recovery.cmd"; if (Test-Path -LiteralPath $launcher) { & $launcher hook copilot PreCompact } # beads-recovery',
    );
  });

  it("writes Codex's commandWindows without a quote character: powershell.exe with the script encoded", () => {
    const command = shimCommandLine(['hook', 'codex', 'SessionStart'], 'encoded-powershell');
    // Rust's argument quoting (Codex runs `%COMSPEC% /C <command>`) turns each `"` into `\"`, which cmd.exe keeps.
    expect(command).not.toContain('"');
    const [program, ...options] = command.split(' ');
    expect(program).toBe('powershell.exe');
    expect(options.slice(0, -1)).toEqual(['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand']);
    expect(Buffer.from(options.at(-1)!, 'base64').toString('utf16le')).toBe(
      '$launcher = "$env:USERPROFILE\\.beads-recovery\\bin\\beads-recovery.cmd"; if (Test-Path -LiteralPath $launcher) { & $launcher hook codex SessionStart; exit $LASTEXITCODE }',
    );
  });

  it('writes one command for sh and PowerShell (Gemini CLI, Cursor): sh runs the POSIX half, PowerShell the other', () => {
    const command = shimCommandLine(['hook', 'gemini', 'BeforeModel'], 'posix-or-powershell');
    expect(command).toBe(
      'set BR "\\" <# "; [ ! -x "$HOME/.beads-recovery/bin/beads-recovery" ] || "$HOME/.beads-recovery/bin/beads-recovery" hook gemini BeforeModel ' +
        '#>; $launcher = "$env:USERPROFILE\\.beads-recovery\\bin\\beads-recovery.cmd"; if (Test-Path -LiteralPath $launcher) { & $launcher hook gemini BeforeModel } # beads-recovery',
    );
    expect(isOurCommand(command)).toBe(true);
  });

  for (const shell of ['sh', 'bash']) {
    it.skipIf(!onPath(shell))(`runs the launcher from the one command in ${shell}, with the hook's stdin, and does nothing where it is missing`, () => {
      const home = mkdtempSync(path.join(tmpdir(), 'br-shim-'));
      try {
        const command = shimCommandLine(['hook', 'cursor', 'sessionStart'], 'posix-or-powershell');
        const run = () => spawnSync(shell, ['-c', command], { env: { PATH: process.env.PATH, HOME: home }, input: '{"hook_event_name":"sessionStart"}', encoding: 'utf8' });
        expect(run()).toMatchObject({ status: 0, stdout: '', stderr: '' });
        mkdirSync(path.join(home, '.beads-recovery', 'bin'), { recursive: true });
        writeFileSync(path.join(home, '.beads-recovery', 'bin', 'beads-recovery'), '#!/bin/sh\necho "args: $*"; cat\n', { mode: 0o755 });
        expect(run()).toMatchObject({ status: 0, stdout: 'args: hook cursor sessionStart\n{"hook_event_name":"sessionStart"}', stderr: '' });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  }

  it('writes the launcher for sh and for cmd.exe: paths quoted, % doubled in the batch file, & and ^ literal', () => {
    const odd: HookLauncher = { runtime: 'C:/Program Files/Microsoft VS Code/Code.exe', script: "C:/Users/a&b^c (x)/100%PATH%/O'Neil/cli.js", electron: true };
    const scripts = launcherScripts(odd);
    expect(scripts.posix.split('\n')[2]).toBe(`ELECTRON_RUN_AS_NODE=1 exec 'C:/Program Files/Microsoft VS Code/Code.exe' 'C:/Users/a&b^c (x)/100%PATH%/O'\\''Neil/cli.js' "$@"`);
    expect(scripts.cmd.split('\r\n').slice(2)).toEqual([
      'setlocal',
      'set "ELECTRON_RUN_AS_NODE=1"',
      `"C:\\Program Files\\Microsoft VS Code\\Code.exe" "C:\\Users\\a&b^c (x)\\100%%PATH%%\\O'Neil\\cli.js" %*`,
      '',
    ]);
    expect(scripts.cmdWarning).toBeUndefined();
    expect(launcherScripts({ ...odd, electron: false }).cmd).not.toContain('ELECTRON_RUN_AS_NODE');
  });

  it("names the launcher's folders by their Windows variable, the longest that fits, so no character outside ASCII is written", () => {
    const launcher: HookLauncher = { runtime: 'C:/Users/Jürgen/AppData/Local/Programs/Microsoft VS Code/Code.exe', script: 'c:/users/jürgen/.vscode/extensions/x.beads-recovery-1.0.0/dist/cli.js', electron: true };
    const env = { USERPROFILE: 'C:\\Users\\Jürgen', LOCALAPPDATA: 'C:\\Users\\Jürgen\\AppData\\Local\\', APPDATA: 'C:\\Users\\Jürgen\\AppData\\Roaming', ProgramFiles: 'C:\\Program Files' };
    const scripts = launcherScripts(launcher, env);
    expect(scripts.cmd.split('\r\n')[4]).toBe('"%LOCALAPPDATA%\\Programs\\Microsoft VS Code\\Code.exe" "%USERPROFILE%\\.vscode\\extensions\\x.beads-recovery-1.0.0\\dist\\cli.js" %*');
    expect(scripts.cmd).not.toMatch(/[^\t\r\n\x20-\x7e]/);
    expect(scripts.cmdWarning).toBeUndefined();
    // A variable whose value only starts the folder's name names nothing.
    expect(launcherScripts({ ...launcher, runtime: 'C:/Users/Jürgen2/node.exe' }, env).cmd).toContain('"C:\\Users\\Jürgen2\\node.exe"');
    // Outside every such folder a name stays as it is, and the warning says what cmd.exe will not read.
    const outside = launcherScripts({ ...launcher, runtime: 'D:/Übung/node.exe' }, env);
    expect(outside.cmd).toContain('"D:\\Übung\\node.exe"');
    expect(outside.cmdWarning).toContain('D:/Übung/node.exe');
  });

  it('keeps quotes, dollars and backslashes in paths literal, and reads them back', () => {
    const odd: HookLauncher = { runtime: "/o'dd/$HOME/node", script: 'C:/Users/a b/cli.js', electron: false };
    expect(parseHookCommand(hookCommandLine(odd, ['hook', 'cursor', 'preCompact']))).toEqual({ launcher: odd, args: ['hook', 'cursor', 'preCompact'] });
  });

  it('recognises only commands that end with the marker', () => {
    expect(isOurCommand('bd prime --hook-json')).toBe(false);
    expect(isOurCommand("'/x/node' '/y/cli.js' hook claude SessionStart # beads-recovery")).toBe(true);
    expect(isOurCommand('echo "# beads-recovery" && rm -rf x')).toBe(false);
  });
});

describe.each(AGENTS)('%s: install next to bd\'s entries', (agent) => {
  const bd = BD_HOOK_FILES[agent];
  // Copilot's hooks get a file of their own; the others share bd's file.
  const before = AGENT_FORMATS[agent].file.local === bd.file || AGENT_FORMATS[agent].file.shared === bd.file ? bd.text : undefined;

  it('adds one entry per event, keeps every byte of bd\'s, is idempotent, and uninstalls to the exact bytes', () => {
    const installed = text(installHooks(before, launcher, agent));
    const events = AGENT_FORMATS[agent].hooks.map((spec) => spec.event);
    expect(ourCommands(installed).map(({ event }) => event).sort()).toEqual([...events].sort());
    for (const { event, command } of ourCommands(installed)) {
      expect(command).toContain(`hook ${agent} ${event} `);
      expect(isOurCommand(command)).toBe(true);
    }
    for (const line of (before ?? '').split('\n').filter((line) => line.includes('bd '))) expect(installed).toContain(line.trim());
    expect(installHooks(installed, launcher, agent)).toEqual({ ok: true, text: installed, changed: false });
    expect(uninstallHooks(installed, agent)).toEqual({ ok: true, text: before ?? '', changed: true });
  });

  it.skipIf(AGENT_FORMATS[agent].layout === 'plugin')('writes the agent\'s own shape', () => {
    const parsed = JSON.parse(text(installHooks(before, launcher, agent))) as { version?: number; hooks: Record<string, unknown[]> };
    const first = parsed.hooks[AGENT_FORMATS[agent].hooks[0]!.event]!.at(-1) as Record<string, unknown>;
    if (agent === 'gemini') {
      // Gemini CLI: lifecycle matchers are exact strings, `*` matches all; timeouts are in milliseconds.
      expect(first).toMatchObject({ matcher: '*', hooks: [{ type: 'command', timeout: 30_000 }] });
    } else if (AGENT_FORMATS[agent].layout === 'nested') {
      expect(first).toMatchObject({ matcher: agent === 'claude' ? 'startup|resume|clear|compact|fork' : 'startup|resume|clear|compact', hooks: [{ type: 'command', timeout: 30 }] });
    } else {
      expect(first).toMatchObject({ type: 'command', timeout: 30 });
      expect(first.command).toEqual(expect.stringContaining(`hook ${agent} `));
    }
    if (agent === 'cursor' || agent === 'copilot') expect(parsed.version).toBe(1);
    // VS Code's `powershell` runs in PowerShell; its `windows` runs in cmd.exe, Codex's `commandWindows` in cmd.exe or PowerShell.
    if (agent === 'copilot') expect(first.powershell).toMatch(/^\$launcher = "\$env:USERPROFILE\\/);
    if (agent === 'copilot') expect(first.windows).toBeUndefined();
    if (agent === 'codex') expect((first.hooks as Record<string, unknown>[])[0]!.commandWindows).toMatch(/^powershell\.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand [A-Za-z0-9+/=]+$/);
    // One command for every platform: the same text whichever platform installed it.
    if (agent === 'gemini') expect((first.hooks as Record<string, unknown>[])[0]!.command).toMatch(/^set BR "\\" <# "; \[ ! -x /);
    if (agent === 'cursor') expect(first.command).toMatch(/^set BR "\\" <# "; \[ ! -x /);
  });
});

describe('installHooks', () => {
  it('creates the file content when there is none', () => {
    const created = text(installHooks(undefined, launcher, 'cursor'));
    expect(JSON.parse(created)).toMatchObject({ version: 1, hooks: { sessionStart: [{}], preCompact: [{}], postToolUse: [{}] } });
    expect(created.endsWith('}\n')).toBe(true);
  });

  it('keeps comments, trailing commas, other keys and the 4-space indent', () => {
    const installed = text(installHooks(CLAUDE_EXISTING, launcher, 'claude'));
    expect(installed).toContain('// team settings');
    expect(installed).toContain('"model": "opus",\n}');
    expect(installed).toContain('\n                "matcher": "startup|resume|clear|compact|fork",');
    expect(uninstallHooks(installed, 'claude')).toEqual({ ok: true, text: CLAUDE_EXISTING, changed: true });
  });

  it('keeps every other entry as written, a neighbour on one line included, and uninstalls to the exact bytes', () => {
    const compact = `{
  "version": 1,
  "hooks": {
    "sessionStart": [{ "command": "bd cursor-hook sessionStart" }],
    "postToolUse": [
      { "command": "./lint.sh", "timeout": 5 }
    ],
    "stop": [{ "command": "./notify.sh" }]
  }
}
`;
    const installed = text(installHooks(compact, launcher, 'cursor'));
    // Ours goes after the last entry of each list; the entries before it keep their lines.
    expect(installed).toContain('    "sessionStart": [{ "command": "bd cursor-hook sessionStart" },\n      {\n        "type": "command",');
    expect(installed).toContain('      { "command": "./lint.sh", "timeout": 5 },\n      {\n');
    expect(installed).toContain('    "stop": [{ "command": "./notify.sh" }],\n    "preCompact": [\n      {\n');
    expect(JSON.parse(installed).hooks.sessionStart).toHaveLength(2);
    expect(uninstallHooks(installed, 'cursor')).toEqual({ ok: true, text: compact, changed: true });
  });

  it('keeps a nested group written on one line as it is', () => {
    const oneLine = '{\n  "hooks": {\n    "SessionStart": [{ "matcher": "", "hooks": [{ "type": "command", "command": "bd prime --hook-json" }] }]\n  }\n}\n';
    const installed = text(installHooks(oneLine, launcher, 'claude'));
    expect(installed).toContain('    "SessionStart": [{ "matcher": "", "hooks": [{ "type": "command", "command": "bd prime --hook-json" }] },\n      {\n        "matcher": "startup|resume|clear|compact|fork",\n');
    expect(uninstallHooks(installed, 'claude')).toEqual({ ok: true, text: oneLine, changed: true });
  });

  it('keeps tabs, CRLF line ends and a missing final newline', () => {
    const tabbed = '{\r\n\t"model": "opus"\r\n}';
    const installed = text(installHooks(tabbed, launcher, 'claude'));
    expect(installed).toMatch(/^\{\r\n\t"model": "opus",\r\n\t"hooks": \{\r\n\t\t"SessionStart"/);
    expect(installed.endsWith('}')).toBe(true);
    expect(uninstallHooks(installed, 'claude')).toEqual({ ok: true, text: tabbed, changed: true });
  });

  it('moves our entries to a new extension directory in place, without adding a second set', () => {
    const installed = text(installHooks(BD_HOOK_FILES.codex.text, launcher, 'codex'));
    const moved = text(installHooks(installed, updated, 'codex'));
    expect(moved).toBe(text(installHooks(BD_HOOK_FILES.codex.text, updated, 'codex')));
    expect(moved).not.toContain(launcher.script);
  });

  it('moves 0.1.0\'s PowerShell text out of VS Code\'s cmd.exe `windows` field into `powershell`', () => {
    const v010 = JSON.stringify({ hooks: { SessionStart: [{ type: 'command', command: hookCommandLine(launcher, ['hook', 'copilot', 'SessionStart']), windows: "& 'x' # beads-recovery", timeout: 30 }] } });
    const handler = (JSON.parse(text(installHooks(v010, launcher, 'copilot'))) as { hooks: Record<string, Record<string, unknown>[]> }).hooks.SessionStart![0]!;
    expect(handler.windows).toBeUndefined();
    expect(handler.powershell).toMatch(/^\$launcher = /);
  });

  it('migrates the 0.1.0 Claude commands to the hook entry point where they stand', () => {
    const old = (args: string) => `ELECTRON_RUN_AS_NODE=1 '/opt/VS Code/code' '${launcher.script}' ${args} # beads-recovery`;
    const v010 = JSON.stringify({
      hooks: {
        SessionStart: [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: old('context --format claude-hook'), timeout: 30 }] }],
        PreCompact: [{ matcher: 'auto|manual', hooks: [{ type: 'command', command: old('checkpoint --auto --pre-compact'), timeout: 30 }] }],
      },
    }, null, 2);
    const migrated = text(installHooks(v010, launcher, 'claude'));
    // Where they stand, now through the per-user launcher: no path of this machine is left.
    expect(ourCommands(migrated)).toEqual([
      { event: 'SessionStart', command: shimCommandLine(['hook', 'claude', 'SessionStart'], 'posix') },
      { event: 'PreCompact', command: shimCommandLine(['hook', 'claude', 'PreCompact'], 'posix') },
      // Added beside them: what 0.1.0 did not install.
      { event: 'PostCompact', command: shimCommandLine(['hook', 'claude', 'PostCompact'], 'posix') },
      { event: 'SessionEnd', command: shimCommandLine(['hook', 'claude', 'SessionEnd'], 'posix') },
    ]);
    expect(migrated).not.toContain(launcher.script);
  });

  it('updates our hook inside a group the user shares with it, keeping the user\'s matcher', () => {
    const shared = JSON.stringify({
      hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }, { type: 'command', command: `'/old/node' '/old/cli.js' hook claude SessionStart # beads-recovery` }] }] },
    }, null, 2);
    const installed = JSON.parse(text(installHooks(shared, launcher, 'claude'))) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } };
    expect(installed.hooks.SessionStart).toHaveLength(1);
    expect(installed.hooks.SessionStart[0]!.matcher).toBe('startup');
    expect(installed.hooks.SessionStart[0]!.hooks.map((hook) => hook.command)).toEqual(['echo hi', shimCommandLine(['hook', 'claude', 'SessionStart'], 'posix')]);
  });

  it('drops duplicates of our entries and keeps one', () => {
    const ours = { type: 'command', command: hookCommandLine(launcher, ['hook', 'cursor', 'sessionStart']), timeout: 30 };
    const doubled = JSON.stringify({ version: 1, hooks: { sessionStart: [ours, { command: 'bd cursor-hook sessionStart' }, ours] } }, null, 2);
    const fixed = JSON.parse(text(installHooks(doubled, launcher, 'cursor'))) as { hooks: { sessionStart: { command: string }[] } };
    expect(fixed.hooks.sessionStart.map((hook) => hook.command)).toEqual([shimCommandLine(['hook', 'cursor', 'sessionStart'], 'posix-or-powershell'), 'bd cursor-hook sessionStart']);
  });
});

describe('uninstallHooks and repairHooks', () => {
  it('leaves a file without our hooks byte for byte', () => {
    for (const agent of AGENTS) expect(uninstallHooks(BD_HOOK_FILES[agent].text, agent)).toEqual({ ok: true, text: BD_HOOK_FILES[agent].text, changed: false });
  });

  it('leaves the user\'s empty groups and unknown shapes alone', () => {
    const odd = '{"hooks":{"SessionStart":[{"matcher":"x","hooks":[]},"a string",{"hooks":"not a list"}]}}';
    expect(uninstallHooks(odd, 'claude')).toEqual({ ok: true, text: odd, changed: false });
  });

  it('moves entries that name a machine\'s paths to the launcher, leaves current ones, and does not install into a file without them', () => {
    const installed = text(installHooks(BD_HOOK_FILES.claude.text, launcher, 'claude'));
    const inJson = (command: string) => JSON.stringify(command).slice(1, -1);
    const v010 = installed.split(inJson(shimCommandLine(['hook', 'claude', 'SessionStart'], 'posix'))).join(inJson(hookCommandLine(launcher, ['hook', 'claude', 'SessionStart'])));
    expect(v010).toContain(launcher.script);
    expect(repairHooks(v010, updated, 'claude')).toEqual({ ok: true, changed: true, text: installed });
    expect(repairHooks(installed, updated, 'claude')).toEqual({ ok: true, changed: false, text: installed });
    expect(repairHooks(BD_HOOK_FILES.claude.text, updated, 'claude')).toEqual({ ok: true, changed: false, text: BD_HOOK_FILES.claude.text });
  });
});

describe('files we cannot edit safely', () => {
  it('refuses broken JSON, a top level that is not an object, and hooks of the wrong shape', () => {
    expect(installHooks('{"hooks": {', launcher, 'claude')).toEqual({ ok: false, error: expect.stringContaining('not valid JSON') });
    expect(installHooks('[1, 2]', launcher, 'codex')).toEqual({ ok: false, error: 'the top level is not a JSON object' });
    expect(installHooks('{"hooks": []}', launcher, 'cursor')).toEqual({ ok: false, error: '"hooks" is not an object' });
    expect(installHooks('{"hooks": {"PostToolUse": {}}}', launcher, 'copilot')).toEqual({ ok: false, error: '"hooks.PostToolUse" is not a list' });
    expect(uninstallHooks('model = "o3"\n', 'codex')).toEqual({ ok: false, error: expect.stringContaining('not valid JSON') });
  });

  it('refuses a key written twice, naming it, at the top level and inside what it edits, and reads no entries from such a file', () => {
    // JSON readers keep the last "hooks"; an edit of the first would go where the agent never looks.
    const twice = `{\n  "hooks": {},\n  "model": "opus",\n  "hooks": { "Stop": [] }\n}\n`;
    expect(installHooks(twice, launcher, 'claude')).toEqual({ ok: false, error: expect.stringMatching(/^ambiguous: the key "hooks" appears twice in the top level, .*keep only the last/) });
    const installed = text(installHooks(undefined, launcher, 'claude'));
    const twiceWithOurs = installed.replace(/\n}\n$/, ',\n  "hooks": {}\n}\n');
    expect(ourCommands(installed)).toHaveLength(4);
    expect(ourCommands(twiceWithOurs)).toEqual([]);
    expect(uninstallHooks(twiceWithOurs, 'claude').ok).toBe(false);
    const nested = '{"hooks": {"SessionStart": [{"matcher": "a", "matcher": "b", "hooks": []}]}}';
    expect(installHooks(nested, launcher, 'claude')).toEqual({ ok: false, error: expect.stringContaining('the key "matcher" appears twice in the object at "hooks.SessionStart[0]"') });
    expect(installMcpServer('{"mcpServers": {"x": {}, "x": {}}}', launcher, 'claude')).toEqual({ ok: false, error: expect.stringContaining('the key "x" appears twice in the object at "mcpServers"') });
    // The same key in two different objects is no duplicate.
    expect(installHooks('{"a": {"k": 1}, "b": {"k": 2}}', launcher, 'claude').ok).toBe(true);
  });
});

describe('isSiblingVersion', () => {
  const base = '/home/dev/.vscode/extensions';
  it('recognises an older or newer version of the same extension in the same folder', () => {
    expect(isSiblingVersion(`${base}/beads-recovery.beads-recovery-0.2.0/dist/cli.js`, `${base}/beads-recovery.beads-recovery-0.1.0/dist/cli.js`)).toBe(true);
  });

  it('leaves other installs alone: another extensions folder, a checkout, another extension, the same version', () => {
    const current = `${base}/beads-recovery.beads-recovery-0.2.0/dist/cli.js`;
    expect(isSiblingVersion(current, '/home/dev/.vscode-insiders/extensions/beads-recovery.beads-recovery-0.1.0/dist/cli.js')).toBe(false);
    expect(isSiblingVersion(current, '/home/dev/src/beads-recovery/dist/cli.js')).toBe(false);
    expect(isSiblingVersion(current, `${base}/other.ext-0.1.0/dist/cli.js`)).toBe(false);
    expect(isSiblingVersion(current, current)).toBe(false);
  });
});

describe('the opencode plugin', () => {
  it('is a module of ours alone that runs our hook on opencode\'s events, and reads its launcher back', () => {
    const written = text(installHooks(undefined, launcher, 'opencode'));
    expect(written.startsWith(OPENCODE_PLUGIN_MARKER)).toBe(true);
    expect(written).toContain("export default { id: 'beads-recovery', server };");
    for (const hook of ["'chat.message'", "'experimental.session.compacting'", "'session.compacted'"]) expect(written).toContain(hook);
    expect(readOpencodePlugin(written)).toEqual({ runtime: launcher.runtime, script: launcher.script, electron: launcher.electron });
    // An update moves it whole to the new paths; another file of that name is never ours to change.
    expect(readOpencodePlugin(text(repairHooks(written, updated, 'opencode')))?.script).toBe(updated.script);
    expect(installHooks('export default {};\n', launcher, 'opencode')).toMatchObject({ ok: false });
    expect(uninstallHooks('export default {};\n', 'opencode')).toEqual({ ok: true, text: 'export default {};\n', changed: false });
  });

  it('parses as a JavaScript module', async () => {
    const { transform } = await import('esbuild');
    await expect(transform(text(installHooks(undefined, launcher, 'opencode')), { loader: 'js', format: 'esm' })).resolves.toBeDefined();
  });
});
