import { DEFAULT_SURFACE_BUDGET, type AgentProfile } from './profile';

export const cursor: AgentProfile<'cursor'> = {
  id: 'cursor',
  name: 'Cursor',
  label: 'Cursor',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  mcp: { file: '.cursor/mcp.json', kind: 'json', container: 'mcpServers' },
  // bd setup cursor: sessionStart `bd cursor-hook sessionStart`.
  primeLocations: [
    { scope: 'project', path: '.cursor/hooks.json' },
    { scope: 'user', path: '.cursor/hooks.json' },
  ],
  configFiles: ['.cursor/hooks.json'],
};
