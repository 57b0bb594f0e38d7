import { HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

export const claude: AgentProfile<'claude'> = {
  id: 'claude',
  name: 'Claude Code',
  label: 'Claude Code',
  // "Hook output strings, including additionalContext, systemMessage, and plain stdout, are capped
  // at 10,000 characters"; longer output is saved to a file and only a 2 KB preview shown
  // (code.claude.com/docs/en/hooks, "JSON output"). 9,000 leaves room for the prefix and mark.
  hookBudget: { bytes: 9000, source: 'Claude Code hooks docs: hook output capped at 10,000 characters' },
  mcp: { file: '.mcp.json', kind: 'json', container: 'mcpServers', typed: true },
  // bd setup claude: SessionStart `bd prime --hook-json` (or `--stealth`) in the project's or the
  // user's settings; the beads Claude plugin, enabled through `enabledPlugins: {"beads@…": true}`,
  // runs `bd prime` on SessionStart itself.
  primeLocations: [
    { scope: 'project', path: '.claude/settings.json' },
    { scope: 'project', path: '.claude/settings.local.json' },
    { scope: 'user', path: '.claude/settings.json' },
  ],
  configFiles: ['.claude/settings.json', '.claude/settings.local.json'],
  // Claude Code runs a command hook with its `shell`, "bash" by default, on Windows too: Git Bash
  // (CLAUDE_CODE_GIT_BASH_PATH, or Git for Windows found); without it, it asks the user to install
  // Git for Windows or to set "shell": "powershell" (the 2.1.332 bundle). So the POSIX command.
  hookFile: {
    layout: 'nested',
    file: { local: '.claude/settings.local.json', shared: '.claude/settings.json' },
    hooks: [
      // `fork`: a session started with --fork-session (2.1.332 reports it so, with the new session's
      // id and transcript), a session of its own whose conversation copies its parent's.
      { event: 'SessionStart', matcher: 'startup|resume|clear|compact|fork', timeout: HOOK_TIMEOUT_S },
      { event: 'PreCompact', matcher: 'auto|manual', timeout: HOOK_TIMEOUT_S },
      // Hands over Claude Code's own summary of what it compacted (`compact_summary`, v2.1.76+).
      { event: 'PostCompact', matcher: 'auto|manual', timeout: HOOK_TIMEOUT_S },
      // The session ended (any reason): the issue it held is free for the next session.
      { event: 'SessionEnd', timeout: HOOK_TIMEOUT_S },
    ],
    signs: { folders: ['.claude'], executables: ['claude'], extensions: ['anthropic.claude-code'] },
  },
  // SessionStart (source `compact`) gives the context again after a compaction.
  events: {
    SessionStart: { ...NO_PLAN, inject: 'always' },
    PreCompact: { ...NO_PLAN, checkpoint: true, steerCompaction: true },
    PostCompact: { ...NO_PLAN, keepSummary: true },
    SessionEnd: { ...NO_PLAN, endSession: true },
    // Not installed by us, but what a hand-written `context --format claude-hook` on it expects.
    UserPromptSubmit: { ...NO_PLAN, inject: 'always' },
  },
  answer: 'hook-specific-output',
  // A `compact_boundary` system record (the transcript reader in ../transcriptClaude.ts).
  transcriptBoundaries: ['"subtype":"compact_boundary"'],
  startContextKept: true,
  usage: 'the context at a start and after a compaction, a checkpoint before one, the session freed at its end',
};
