// The MCP server's instructions are true to the hooks installed beside it: where a hook of ours
// hands the context over by itself, the model is told so and not sent to fetch it again.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookedAgents } from '../../../src/bin/mcp';
import { AGENT_PROFILES } from '../../../src/core/agents';
import { AGENTS, launcherFor } from '../../../src/core/hookConfig';
import { mcpInstructions } from '../../../src/core/mcpInstructions';
import { applyChange, planSetup } from '../../../src/services/agentSetup';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-mcp-instructions-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the MCP server instructions', () => {
  it('send the model to get_recovery_context when no hook of ours is installed', async () => {
    const dir = path.join(scratch, 'no-hooks');
    mkdirSync(path.join(dir, '.beads'), { recursive: true });
    expect(await hookedAgents(dir)).toEqual([]);
    const text = mcpInstructions([]);
    expect(text.length).toBeLessThanOrEqual(512);
    expect(text).toMatch(/Call get_recovery_context at the start of work/);
  });

  it('say the hooks already give the context, and to fetch it only when the conversation lacks it, where they are installed', async () => {
    const dir = path.join(scratch, 'hooked');
    mkdirSync(path.join(dir, '.beads'), { recursive: true });
    writeFileSync(path.join(dir, '.beads', 'issues.jsonl'), '');
    const launcher = launcherFor({ execPath: process.execPath, electron: false, windows: false }, path.join(dir, 'cli.js'));
    const plan = await planSetup(dir, ['claude', 'codex'], 'install', launcher, { mcp: true });
    for (const change of plan.changes) await applyChange(dir, change);
    const hooked = await hookedAgents(path.join(dir, 'src'));
    expect(hooked).toEqual(['Claude Code', 'Codex']);
    const text = mcpInstructions(hooked);
    expect(text.length).toBeLessThanOrEqual(512);
    expect(text).toContain('its hooks for Claude Code, Codex already put this project\'s recovery context into the conversation');
    expect(text).toContain('do not fetch it again');
    expect(text).not.toMatch(/Call get_recovery_context at the start/);
    expect(mcpInstructions(AGENTS.map((agent) => AGENT_PROFILES[agent].label)).length).toBeLessThanOrEqual(512);
  });
});
