// Adding a seventh agent is one profile file plus its reader (issue 31). This test registers a
// made-up agent's profile (./seventhAgent.ts) in the one table of profiles and nothing else, and
// shows every use reaching it: the install and status of `beads-recovery hooks`, the hook
// dispatch (is it ours, what each event does, the answer's shape), the usage text, and the files
// that are never work. A table or list kept by hand elsewhere would miss it and fail here; the
// compile-time half (an incomplete profile, a missing row) is in profiles.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HOOKS_USAGE, hooksCommand } from '../../../../src/bin/hooks';
import { agentName, isAgentConfigFile } from '../../../../src/core/agents';
import type { AgentId } from '../../../../src/core/agents/profile';
import { AGENT_FORMATS, launcherFor } from '../../../../src/core/hookConfig';
import { hookPlan, hookResponse, isHookAgent, START_CONTEXT_KEPT, TRANSCRIPT_BOUNDARIES } from '../../../../src/core/hookProtocol';
import { trackedPathFilter } from '../../../../src/core/ledger';
import { applyChange, installedEntries, planSetup } from '../../../../src/services/agentSetup';

vi.mock('../../../../src/core/agents/table', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../../src/core/agents/table')>();
  const { aider } = await import('./seventhAgent');
  return { ...real, AGENT_PROFILES: { ...real.AGENT_PROFILES, aider } };
});

// Outside the fixture the agent type has six names: the seventh is spelled through it here.
const seventh = 'aider' as AgentId;
const launcher = launcherFor({ execPath: process.execPath, electron: false, windows: false }, path.resolve('dist', 'cli.js'));

let work: string;
beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'seventh-agent-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('a seventh agent, registered by its profile alone', () => {
  it('is installed: its hook file with one entry per event, found again by status, and taken out by uninstall', async () => {
    expect(AGENT_FORMATS[seventh]).toMatchObject({ id: 'aider', layout: 'flat', file: { local: '.aider/hooks.json' } });
    const plan = await planSetup(work, [seventh], 'install', launcher);
    expect(plan.problems).toEqual([]);
    expect(plan.changes.map((change) => change.relative)).toEqual(['.aider/hooks.json']);
    for (const change of plan.changes) await applyChange(work, change);
    const written = JSON.parse(readFileSync(path.join(work, '.aider', 'hooks.json'), 'utf8')) as { version: number; hooks: Record<string, { command: string }[]> };
    expect(written.version).toBe(1);
    expect(Object.keys(written.hooks)).toEqual(['SessionStart', 'PreCompact', 'PostToolUse']);
    expect(written.hooks.PreCompact?.[0]?.command).toContain('hook aider PreCompact');
    expect((await installedEntries(work, seventh)).map((entry) => entry.event)).toEqual(['SessionStart', 'PreCompact', 'PostToolUse']);
    const removal = await planSetup(work, [seventh], 'uninstall', launcher);
    expect(removal.changes.map((change) => [change.relative, change.after])).toEqual([['.aider/hooks.json', '']]);
  });

  it('is installed from the command line by its name, its note said', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await hooksCommand(['install', '--agent', 'aider', '--dir', work, '--dry-run', '--mcp'], (text) => out.push(text), (text) => err.push(text));
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    expect(out.join('')).toContain('--- .aider/hooks.json\n');
    expect(out.join('')).toContain('--- .aider/mcp.json\n');
  });

  it('has its hooks dispatched: it is ours, each event does what its profile says, and the answer has its shape', () => {
    expect(isHookAgent('aider')).toBe(true);
    expect(hookPlan(seventh, 'PreCompact')).toMatchObject({ checkpoint: true, arm: true, inject: 'never' });
    expect(hookPlan(seventh, 'PostToolUse')).toMatchObject({ inject: 'if-armed', checkpoint: false });
    expect(hookPlan(seventh, 'SessionEnd')).toMatchObject({ inject: 'never', checkpoint: false, arm: false });
    expect(JSON.parse(hookResponse(seventh, 'SessionStart', 'the context'))).toEqual({ additional_context: 'the context' });
    expect(TRANSCRIPT_BOUNDARIES[seventh]).toEqual([]);
    expect(START_CONTEXT_KEPT[seventh]).toBe(true);
  });

  it('is in the usage text: its name for --agent, its hook file and events, its MCP file', () => {
    expect(HOOKS_USAGE).toContain('[--agent claude|copilot|copilot-cli|codex|cursor|gemini|opencode|aider|all]');
    expect(HOOKS_USAGE).toMatch(/\n {2}aider {4}\.aider\/hooks\.json: SessionStart, PreCompact, PostToolUse \(/);
    expect(HOOKS_USAGE.replace(/\s+/g, ' ')).toContain('PostToolUse (the next tool call after a compaction hands the context over)');
    expect(HOOKS_USAGE).toContain('.aider/mcp.json');
  });

  it("counts none of its own files as work, and is named where sessions are listed", () => {
    const tracked = trackedPathFilter([]);
    for (const file of ['.aider/hooks.json', '.aider/mcp.json']) {
      expect(isAgentConfigFile(file), file).toBe(true);
      expect(tracked(file), file).toBe(false);
    }
    expect(tracked('.aider/notes.md')).toBe(true);
    expect(agentName('aider')).toBe('Aider');
  });
});
