import { DEFAULT_SURFACE_BUDGET, type AgentProfile } from './profile';

export const opencode: AgentProfile<'opencode'> = {
  id: 'opencode',
  name: 'opencode',
  label: 'opencode',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  mcp: { file: 'opencode.json', kind: 'json', container: 'mcp', opencode: true },
  // bd sets up no opencode integration.
  primeLocations: [],
  // Our plugin (src/plugins/opencode.js, written by ../opencodePlugin.ts), a file of ours alone.
  configFiles: ['.opencode/plugins/beads-recovery.js'],
};
