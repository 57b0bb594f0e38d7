// A seventh agent, as a maintainer would add it: one profile. Its transcript reader is the other
// half of adding an agent (src/core/transcript*.ts); this one has no transcript.
import { DEFAULT_SURFACE_BUDGET, HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from '../../../../src/core/agents/profile';

export const aider: AgentProfile<'aider'> = {
  id: 'aider',
  name: 'Aider',
  label: 'Aider',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  mcp: { file: '.aider/mcp.json', kind: 'json', container: 'mcpServers' },
  primeLocations: [],
  configFiles: [],
  hookFile: {
    layout: 'flat',
    file: { local: '.aider/hooks.json' },
    preamble: { version: 1 },
    hooks: [
      { event: 'SessionStart', timeout: HOOK_TIMEOUT_S },
      { event: 'PreCompact', timeout: HOOK_TIMEOUT_S },
      { event: 'PostToolUse', timeout: HOOK_TIMEOUT_S },
    ],
    afterInstall: 'Aider reads new hooks at its next start.',
    signs: { folders: ['.aider'], executables: ['aider'], extensions: [] },
  },
  events: {
    SessionStart: { ...NO_PLAN, inject: 'always', disarm: true },
    PreCompact: { ...NO_PLAN, checkpoint: true, arm: true },
    PostToolUse: { ...NO_PLAN, inject: 'if-armed' },
  },
  answer: 'additional_context',
  transcriptBoundaries: [],
  startContextKept: true,
  usage: 'the next tool call after a compaction hands the context over',
};
