import { DEFAULT_SURFACE_BUDGET, HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

/** The events the plugin (src/plugins/opencode.js) passes to `beads-recovery hook opencode <event>`. */
export const OPENCODE_EVENTS = ['session.resumed', 'session.compacting', 'session.compacted'] as const;

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
  hookFile: {
    layout: 'plugin',
    file: { local: '.opencode/plugins/beads-recovery.js' },
    hooks: OPENCODE_EVENTS.map((event) => ({ event, timeout: HOOK_TIMEOUT_S })),
    signs: { folders: ['.opencode'], executables: ['opencode'], extensions: [] },
  },
  // The events our plugin passes on. Before a compaction it only checkpoints: the block goes in
  // after it, once (session.compacted), not into the summary request too.
  events: {
    'session.resumed': { ...NO_PLAN, inject: 'always' },
    'session.compacting': { ...NO_PLAN, checkpoint: true },
    'session.compacted': { ...NO_PLAN, inject: 'always' },
  },
  answer: 'hook-specific-output',
  transcriptBoundaries: [],
  startContextKept: true,
  usage: 'a plugin: the first message of a session, before and after a compaction',
};
