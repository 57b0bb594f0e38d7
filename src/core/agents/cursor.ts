import { DEFAULT_SURFACE_BUDGET, HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

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
  // Its hooks.json has one `command` with no per-platform field, which Cursor runs with PowerShell
  // on Windows (Cursor is closed source; as its users found: Arize-ai/coding-harness-tracing#58,
  // speakeasy-api/gram#3736, obra/superpowers#871).
  hookFile: {
    layout: 'flat',
    file: { local: '.cursor/hooks.json' },
    preamble: { version: 1 },
    commandShell: 'posix-or-powershell',
    hooks: [
      { event: 'sessionStart', timeout: HOOK_TIMEOUT_S },
      { event: 'preCompact', timeout: HOOK_TIMEOUT_S },
      { event: 'postToolUse', timeout: HOOK_TIMEOUT_S },
    ],
    signs: { folders: ['.cursor'], executables: ['cursor'], extensions: [] },
  },
  // Cursor, like VS Code, has no post-compaction event: preCompact arms the marker, postToolUse hands over.
  events: {
    sessionStart: { ...NO_PLAN, inject: 'always', disarm: true },
    preCompact: { ...NO_PLAN, checkpoint: true, arm: true },
    postToolUse: { ...NO_PLAN, inject: 'if-armed' },
  },
  // `additional_context` on sessionStart and postToolUse.
  answer: 'additional_context',
  // Cursor starts no resumed session.
  transcriptBoundaries: [],
  startContextKept: true,
  usage: 'no event follows a compaction: the next tool call hands the context over',
};
