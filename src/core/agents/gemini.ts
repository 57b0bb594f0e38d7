import { DEFAULT_SURFACE_BUDGET, type AgentProfile } from './profile';

const SETTINGS = '.gemini/settings.json';

export const gemini: AgentProfile<'gemini'> = {
  id: 'gemini',
  name: 'Gemini CLI',
  label: 'Gemini CLI',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  // Gemini CLI's `mcpServers` sits in the same settings file as its hooks.
  mcp: { file: SETTINGS, kind: 'json', container: 'mcpServers' },
  // bd setup gemini: SessionStart `bd prime --hook-json` in the project's or the user's settings.
  primeLocations: [
    { scope: 'project', path: SETTINGS },
    { scope: 'user', path: SETTINGS },
  ],
  configFiles: [SETTINGS],
};
