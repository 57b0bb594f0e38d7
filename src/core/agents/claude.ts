import { type AgentProfile } from './profile';

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
};
