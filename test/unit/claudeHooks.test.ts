import { describe, expect, it } from 'vitest';
import {
  contextHookOutput,
  hookCommand,
  installHooks,
  isOurCommand,
  isSiblingVersion,
  ourCommands,
  parseHookCommand,
  parseHookInput,
  repairHooks,
  uninstallHooks,
  type HookLauncher,
  type SettingsEdit,
} from '../../src/core/claudeHooks';

const launcher: HookLauncher = {
  runtime: '/opt/VS Code/code',
  script: '/home/dev/.vscode/extensions/beads-recovery.beads-recovery-0.1.0/dist/cli.js',
  electron: true,
};
const updated: HookLauncher = { ...launcher, script: '/home/dev/.vscode/extensions/beads-recovery.beads-recovery-0.2.0/dist/cli.js' };

const CONTEXT = `ELECTRON_RUN_AS_NODE=1 '/opt/VS Code/code' '${launcher.script}' context --format claude-hook # beads-recovery`;
const CHECKPOINT = `ELECTRON_RUN_AS_NODE=1 '/opt/VS Code/code' '${launcher.script}' checkpoint --auto --pre-compact # beads-recovery`;

// A project's settings with other keys, another SessionStart hook and a PreToolUse hook, 4-space indented.
const EXISTING = `{
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
    "model": "opus"
}
`;

const EXISTING_WITH_OURS = `{
    "permissions": {
        "allow": [
            "Bash(npm test)"
        ]
    },
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo hello"
                    }
                ]
            },
            {
                "matcher": "startup|resume|clear|compact",
                "hooks": [
                    {
                        "type": "command",
                        "command": ${JSON.stringify(CONTEXT)},
                        "timeout": 30
                    }
                ]
            }
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./check.sh",
                        "timeout": 5
                    }
                ]
            }
        ],
        "PreCompact": [
            {
                "matcher": "auto|manual",
                "hooks": [
                    {
                        "type": "command",
                        "command": ${JSON.stringify(CHECKPOINT)},
                        "timeout": 30
                    }
                ]
            }
        ]
    },
    "model": "opus"
}
`;

const EXISTING_AFTER_UNINSTALL = `{
    "permissions": {
        "allow": [
            "Bash(npm test)"
        ]
    },
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo hello"
                    }
                ]
            }
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./check.sh",
                        "timeout": 5
                    }
                ]
            }
        ]
    },
    "model": "opus"
}
`;

function text(edit: SettingsEdit): string {
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
}

describe('hookCommand', () => {
  it('quotes the paths for a POSIX shell, sets ELECTRON_RUN_AS_NODE for VS Code\'s runtime and ends with the marker', () => {
    expect(hookCommand(launcher, ['context', '--format', 'claude-hook'])).toBe(CONTEXT);
    expect(hookCommand({ runtime: '/usr/bin/node', script: '/x/dist/cli.js', electron: false }, ['checkpoint'])).toBe(
      "'/usr/bin/node' '/x/dist/cli.js' checkpoint # beads-recovery",
    );
  });

  it('keeps quotes, dollars and backslashes in paths literal, and reads them back', () => {
    const odd: HookLauncher = { runtime: "C:\\Users\\O'Neil\\Code.exe", script: '/tmp/$HOME/`x`/cli.js', electron: true };
    const command = hookCommand(odd, ['context', '--format', 'claude-hook']);
    expect(command).toBe(`ELECTRON_RUN_AS_NODE=1 'C:\\Users\\O'\\''Neil\\Code.exe' '/tmp/$HOME/\`x\`/cli.js' context --format claude-hook # beads-recovery`);
    expect(parseHookCommand(command)).toEqual({ launcher: odd, args: ['context', '--format', 'claude-hook'] });
  });

  it('recognises only commands that end with the marker', () => {
    expect(isOurCommand(CONTEXT)).toBe(true);
    expect(isOurCommand('bd prime')).toBe(false);
    expect(isOurCommand('echo "# beads-recovery" && rm -rf x')).toBe(false);
    expect(isOurCommand(42)).toBe(false);
    expect(parseHookCommand('beads-recovery context # beads-recovery')).toBeUndefined();
  });
});

describe('installHooks', () => {
  it('creates the file content when there is none', () => {
    const edit = installHooks(undefined, launcher);
    expect(edit).toEqual({ ok: true, changed: true, text: expect.any(String) });
    expect(text(edit)).toBe(
      `${JSON.stringify(
        {
          hooks: {
            SessionStart: [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: CONTEXT, timeout: 30 }] }],
            PreCompact: [{ matcher: 'auto|manual', hooks: [{ type: 'command', command: CHECKPOINT, timeout: 30 }] }],
          },
        },
        null,
        2,
      )}\n`,
    );
  });

  it('keeps every other key, event, group and hook, and the file\'s indent', () => {
    expect(text(installHooks(EXISTING, launcher))).toBe(EXISTING_WITH_OURS);
  });

  it('changes nothing, not a byte, when installed twice', () => {
    const once = text(installHooks(EXISTING, launcher));
    const twice = installHooks(once, launcher);
    expect(twice).toEqual({ ok: true, changed: false, text: once });
  });

  it('keeps tabs, CRLF line ends and a missing final newline', () => {
    const windows = '{\r\n\t"model": "opus"\r\n}';
    const result = text(installHooks(windows, launcher));
    expect(result.startsWith('{\r\n\t"model": "opus",\r\n\t"hooks": {\r\n\t\t"SessionStart": [')).toBe(true);
    expect(result.endsWith('\r\n}')).toBe(true);
    expect(result.replace(/\r\n/g, '')).not.toMatch(/\n/);
  });

  it('moves our entries to a new extension directory in place, without adding a second pair', () => {
    const moved = text(installHooks(EXISTING_WITH_OURS, updated));
    expect(moved).toBe(EXISTING_WITH_OURS.split(launcher.script).join(updated.script));
  });

  it('updates our hook inside a group the user shares with it, keeping the user\'s matcher', () => {
    const shared = JSON.stringify({
      hooks: { SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: 'echo mine' }, { type: 'command', command: CONTEXT }] }] },
    });
    const result = JSON.parse(text(installHooks(shared, updated)));
    expect(result.hooks.SessionStart).toEqual([
      {
        matcher: 'compact',
        hooks: [
          { type: 'command', command: 'echo mine' },
          { type: 'command', command: CONTEXT.replace(launcher.script, updated.script), timeout: 30 },
        ],
      },
    ]);
  });

  it('drops duplicates of our entries and keeps one', () => {
    const duplicated = JSON.stringify({
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: CONTEXT }] },
          { matcher: 'compact', hooks: [{ type: 'command', command: CONTEXT }] },
        ],
      },
    });
    const result = JSON.parse(text(installHooks(duplicated, launcher)));
    expect(result.hooks.SessionStart).toEqual([
      { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: CONTEXT, timeout: 30 }] },
    ]);
    expect(result.hooks.PreCompact).toHaveLength(1);
  });
});

describe('uninstallHooks', () => {
  it('takes out exactly what install added', () => {
    expect(text(uninstallHooks(EXISTING_WITH_OURS))).toBe(EXISTING_AFTER_UNINSTALL);
    expect(JSON.parse(EXISTING_AFTER_UNINSTALL)).toEqual(JSON.parse(EXISTING));
  });

  it('removes the hooks key when only our hooks were in it', () => {
    const installed = text(installHooks('{\n  "model": "opus"\n}\n', launcher));
    expect(text(uninstallHooks(installed))).toBe('{\n  "model": "opus"\n}\n');
  });

  it('leaves a file without our hooks byte for byte', () => {
    expect(uninstallHooks(EXISTING)).toEqual({ ok: true, changed: false, text: EXISTING });
    expect(uninstallHooks(undefined)).toEqual({ ok: true, changed: false, text: '' });
  });

  it('leaves the user\'s empty groups and unknown shapes alone', () => {
    const odd = JSON.stringify({ hooks: { Stop: [{ hooks: [] }, 'x'], Notification: 'not a list', PreCompact: [{ hooks: [{ type: 'command', command: CHECKPOINT }] }] } });
    expect(JSON.parse(text(uninstallHooks(odd)))).toEqual({ hooks: { Stop: [{ hooks: [] }, 'x'], Notification: 'not a list' } });
  });
});

describe('malformed settings', () => {
  it.each([
    ['broken JSON', '{ "hooks": { '],
    ['a comment', '{\n  // mine\n  "model": "opus"\n}'],
    ['a list at the top', '[1, 2]'],
    ['hooks that are not an object', '{ "hooks": [] }'],
    ['a SessionStart that is not a list', '{ "hooks": { "SessionStart": {} } }'],
  ])('reports %s and changes nothing', (_name, malformed) => {
    const edit = installHooks(malformed, launcher);
    expect(edit.ok).toBe(false);
    if (!edit.ok) expect(edit.error).toMatch(/JSON|object|list/);
  });

  it('reports broken JSON on uninstall too', () => {
    expect(uninstallHooks('{ nope').ok).toBe(false);
  });
});

describe('repairHooks', () => {
  it('rewrites the paths of our entries', () => {
    const repaired = repairHooks(EXISTING_WITH_OURS, updated);
    expect(repaired).toEqual({ ok: true, changed: true, text: EXISTING_WITH_OURS.split(launcher.script).join(updated.script) });
    expect(ourCommands(text(repaired)).map(({ event, command }) => [event, parseHookCommand(command)?.launcher.script])).toEqual([
      ['SessionStart', updated.script],
      ['PreCompact', updated.script],
    ]);
  });

  it('does not install into a file that has none of our hooks', () => {
    expect(repairHooks(EXISTING, updated)).toEqual({ ok: true, changed: false, text: EXISTING });
  });

  it('is a no-op when the paths are current', () => {
    expect(repairHooks(EXISTING_WITH_OURS, launcher)).toEqual({ ok: true, changed: false, text: EXISTING_WITH_OURS });
  });
});

describe('hook input and output', () => {
  it('reads the fields Claude Code sends on SessionStart and PreCompact', () => {
    expect(
      parseHookInput(JSON.stringify({ session_id: 's', transcript_path: '/t', cwd: '/p', hook_event_name: 'SessionStart', source: 'compact' })),
    ).toEqual({ event: 'SessionStart', source: 'compact', trigger: undefined, cwd: '/p' });
    expect(parseHookInput(JSON.stringify({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }))).toEqual({
      event: 'PreCompact',
      source: undefined,
      trigger: 'auto',
      cwd: undefined,
    });
    expect(parseHookInput('')).toBeUndefined();
    expect(parseHookInput('[1]')).toBeUndefined();
  });

  it('prints the context as hookSpecificOutput.additionalContext for the event that ran it', () => {
    expect(JSON.parse(contextHookOutput('## Resuming: a-1', 'SessionStart'))).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '## Resuming: a-1' },
    });
    expect(JSON.parse(contextHookOutput('x', 'UserPromptSubmit')).hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(JSON.parse(contextHookOutput('x', undefined)).hookSpecificOutput.hookEventName).toBe('SessionStart');
  });
});

describe('isSiblingVersion', () => {
  const ext = '/home/dev/.vscode/extensions';
  it('recognises an older or newer version of the same extension in the same folder', () => {
    expect(isSiblingVersion(`${ext}/beads-recovery.beads-recovery-0.2.0/dist/cli.js`, `${ext}/beads-recovery.beads-recovery-0.1.0/dist/cli.js`)).toBe(true);
    expect(isSiblingVersion(`${ext}/beads-recovery.beads-recovery-0.2.0/dist/cli.js`, `${ext}/beads-recovery.beads-recovery-0.1.9-linux-x64/dist/cli.js`)).toBe(true);
    expect(isSiblingVersion('C:\\Users\\d\\.vscode\\extensions\\p.n-1.0.0\\dist\\cli.js', 'C:/Users/d/.vscode/extensions/p.n-0.9.0/dist/cli.js')).toBe(true);
  });

  it('leaves other installs alone: another extensions folder, a checkout, another extension, the same version', () => {
    const current = `${ext}/beads-recovery.beads-recovery-0.2.0/dist/cli.js`;
    expect(isSiblingVersion(current, '/home/dev/.vscode-insiders/extensions/beads-recovery.beads-recovery-0.1.0/dist/cli.js')).toBe(false);
    expect(isSiblingVersion(current, '/home/dev/src/beads-recovery/dist/cli.js')).toBe(false);
    expect(isSiblingVersion(current, `${ext}/other.tool-0.1.0/dist/cli.js`)).toBe(false);
    expect(isSiblingVersion(current, current)).toBe(false);
  });
});
