import { describe, expect, it } from 'vitest';
import { detectStyle } from '../../../src/core/hookConfig';
import { setJsonValue } from '../../../src/core/jsoncEdit';
import { installMcpServer, uninstallMcpServer } from '../../../src/core/mcpConfig';

const style = detectStyle('{\n  "a": 1\n}\n');

describe('setJsonValue', () => {
  it('adds a property after a neighbour written on one line without touching that line, and removal gives the bytes back', () => {
    const original = '{\n  "servers": {\n    "other": { "command": "x", "args": [] }\n  }\n}\n';
    const added = setJsonValue(original, ['servers', 'ours'], { command: 'y' }, style);
    expect(added).toBe('{\n  "servers": {\n    "other": { "command": "x", "args": [] },\n    "ours": {\n      "command": "y"\n    }\n  }\n}\n');
    expect(setJsonValue(added, ['servers', 'ours'], undefined, style)).toBe(original);
  });

  it('appends to an array written on one line, keeping its items and its closing bracket where they are', () => {
    const original = '{\n  "list": [1, { "b": 2 }]\n}';
    const added = setJsonValue(original, ['list', 2], { c: 3 }, style, true);
    expect(added).toBe('{\n  "list": [1, { "b": 2 },\n    {\n      "c": 3\n    }]\n}');
    expect(setJsonValue(added, ['list', 2], undefined, style)).toBe(original);
  });

  it('lays out an item put into an empty object or array, and takes the layout out with it', () => {
    const original = '{\n  "hooks": {},\n  "list": []\n}';
    const withHook = setJsonValue(original, ['hooks', 'Start'], [{ x: 1 }], style);
    expect(withHook).toBe('{\n  "hooks": {\n    "Start": [\n      {\n        "x": 1\n      }\n    ]\n  },\n  "list": []\n}');
    expect(setJsonValue(withHook, ['hooks', 'Start'], undefined, style)).toBe(original);
    const withItem = setJsonValue(original, ['list', 0], 'a', style, true);
    expect(withItem).toBe('{\n  "hooks": {},\n  "list": [\n    "a"\n  ]\n}');
    expect(setJsonValue(withItem, ['list', 0], undefined, style)).toBe(original);
  });

  it('replaces a value in place, leaving its neighbours on the same line alone', () => {
    const original = '{ "a": { "command": "old", "timeout": 5 } }';
    expect(setJsonValue(original, ['a', 'command'], 'new', style)).toBe('{ "a": { "command": "new", "timeout": 5 } }');
  });

  it('removes the first of several items with the comma after it, and leaves a missing path alone', () => {
    expect(setJsonValue('{ "a": 1, "b": 2 }', ['a'], undefined, style)).toBe('{ "b": 2 }');
    expect(setJsonValue('{ "a": 1 }', ['x', 'y'], undefined, style)).toBe('{ "a": 1 }');
  });
});

describe('MCP registrations beside other content', () => {
  const launcher = { runtime: '/usr/bin/node', script: '/ext/dist/cli.js', electron: false };

  it('keeps the neighbour as written and uninstalls to the exact bytes', () => {
    const original = '{\n  // mine\n  "mcpServers": {\n    "other": { "command": "other-server" }\n  }\n}\n';
    const installed = installMcpServer(original, launcher, 'cursor');
    if (!installed.ok) throw new Error(installed.error);
    expect(installed.text).toContain('    "other": { "command": "other-server" },\n    "beads-recovery": {\n      "command": "/usr/bin/node",\n');
    expect(uninstallMcpServer(installed.text, 'cursor')).toEqual({ ok: true, text: original, changed: true });
  });

  it('leaves nothing of a Codex config.toml that held only our table (the file goes)', () => {
    const installed = installMcpServer(undefined, launcher, 'codex');
    if (!installed.ok) throw new Error(installed.error);
    expect(installed.text).toMatch(/^\[mcp_servers\.beads-recovery\]\n/);
    expect(uninstallMcpServer(installed.text, 'codex')).toEqual({ ok: true, text: '', changed: true });
    const mine = '# mine\nmodel = "o3"\n';
    const beside = installMcpServer(mine, launcher, 'codex');
    if (!beside.ok) throw new Error(beside.error);
    expect(uninstallMcpServer(beside.text, 'codex')).toEqual({ ok: true, text: mine, changed: true });
  });
});
