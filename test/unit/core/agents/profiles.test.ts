// The agents' profiles (src/core/agents/): one complete profile per agent, keyed by the one agent
// type, and the files an agent owns are never work. The compile-time half runs under
// `npm run typecheck`: each `@ts-expect-error` below must meet an error, so a profile that stops
// being required (a field made optional, the table loosened to Record<string, …>) fails there.
import { describe, expect, it } from 'vitest';
import { AGENT_PROFILES, agentFiles, agentName, isAgentConfigFile, type ProfileTable } from '../../../../src/core/agents';
import { AGENTS, DEFAULT_SURFACE_BUDGET, type AgentId, type AgentProfile } from '../../../../src/core/agents/profile';
import { AGENT_FORMATS, type AgentFormat } from '../../../../src/core/hookConfig';
import { trackedPathFilter } from '../../../../src/core/ledger';
import { hookFile } from '../../../../src/services/agentSetup';
import { aider } from './seventhAgent';

// A seventh agent, as a maintainer would add it (seventhAgent.test.ts registers it in the table).
// @ts-expect-error a profile without its MCP file does not compile
const withoutMcp: AgentProfile<'aider'> = { ...aider, mcp: undefined };

// @ts-expect-error nor one without its hook file, its events, its answer or its usage text
const withoutHooks: AgentProfile<'aider'> = { id: 'aider', name: 'Aider', label: 'Aider', hookBudget: DEFAULT_SURFACE_BUDGET, mcp: aider.mcp, primeLocations: [], configFiles: [] };

// @ts-expect-error a seventh agent in the agent type, without its profile in the table, does not compile
const withoutProfile: ProfileTable<AgentId | 'aider'> = AGENT_PROFILES;

// @ts-expect-error nor does a profile filed under another agent's id
const misfiled: ProfileTable<AgentId> = { ...AGENT_PROFILES, gemini: AGENT_PROFILES.claude };

// @ts-expect-error and the hook formats, keyed by the same type, name the missing agent too
const formatsWithoutIt: Readonly<Record<AgentId | 'aider', AgentFormat>> = AGENT_FORMATS;

const withIt: ProfileTable<AgentId | 'aider'> = { ...AGENT_PROFILES, aider };

describe('agent profiles', () => {
  it('hold one profile per agent, under its own id, and the seventh agent completes the table', () => {
    expect(Object.keys(AGENT_PROFILES).sort()).toEqual([...AGENTS].sort());
    for (const agent of AGENTS) expect(AGENT_PROFILES[agent].id).toBe(agent);
    expect(Object.keys(withIt)).toContain('aider');
    // The rejected tables above are values too: what the compiler refused is indeed incomplete.
    expect(withoutMcp.mcp).toBeUndefined();
    expect(withoutHooks).not.toHaveProperty('hookFile');
    expect(withoutProfile).not.toHaveProperty('aider');
    expect(misfiled.gemini.id).toBe('claude');
    expect(formatsWithoutIt).not.toHaveProperty('aider');
  });

  it('give every event an agent registers a plan that does something', () => {
    for (const agent of AGENTS) {
      const { hookFile: file, events } = AGENT_PROFILES[agent];
      for (const { event } of file.hooks) {
        const plan = events[event];
        expect(plan, `${agent} ${event}`).toBeDefined();
        expect(plan && (plan.inject !== 'never' || plan.checkpoint || plan.checkpointCompression || plan.keepSummary || plan.endSession), `${agent} ${event} does nothing`).toBeTruthy();
      }
    }
  });

  it('name each agent where sessions are listed', () => {
    expect(agentName('gemini')).toBe('Gemini CLI');
    expect(agentName('vscode')).toBe('VS Code');
    expect(agentName('someone-else')).toBe('someone-else');
  });

  it("count none of an agent's own files as work, the hook files in either place and the MCP file", () => {
    const tracked = trackedPathFilter([]);
    for (const agent of AGENTS) {
      const own = [hookFile(agent), hookFile(agent, true), AGENT_PROFILES[agent].mcp.file];
      for (const file of own) {
        expect(isAgentConfigFile(file), `${agent}: ${file}`).toBe(true);
        expect(tracked(file), `${agent}: ${file}`).toBe(false);
      }
      for (const file of agentFiles(agent)) expect(isAgentConfigFile(file.replace('*', 'beads')), `${agent}: ${file}`).toBe(true);
    }
    // The file that drifted out of the hand-kept list: Gemini CLI's hooks and MCP servers.
    expect(tracked('.gemini/settings.json')).toBe(false);
  });

  it('still count the files beside them as work', () => {
    const tracked = trackedPathFilter([]);
    for (const file of ['settings.json', 'src/.gemini/settings.json', '.gemini/notes.md', '.github/workflows/ci.yml', '.github/hooks/nested/x.json', 'opencode.jsonc', 'mcp.json', '.claude/agents/reviewer.md']) {
      expect(tracked(file), file).toBe(true);
    }
  });
});
