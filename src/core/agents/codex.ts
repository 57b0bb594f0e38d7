import { type AgentProfile } from './profile';

const CODEX_CONFIG = '.codex/config.toml';

export const codex: AgentProfile<'codex'> = {
  id: 'codex',
  name: 'Codex',
  label: 'Codex',
  // About 2,500 tokens per model-visible hook message (approx_token_count: 4 bytes a token), the
  // rest spilled to a file with a head-and-tail preview (developers.openai.com/codex/hooks, "Large
  // hook output"; codex-rs/hooks/src/output_spill.rs).
  hookBudget: { bytes: 9000, source: 'Codex hooks docs: about 2,500 tokens (10,000 bytes) per hook message' },
  // `[mcp_servers.beads-recovery]` in the project's config.
  mcp: { file: CODEX_CONFIG, kind: 'toml' },
  // bd setup codex: SessionStart `bd codex-hook SessionStart`, which injects prime; beads' Codex
  // plugin, enabled in config.toml (project or $CODEX_HOME) as `[plugins."beads@…"] enabled = true`,
  // ships the same hooks (bd setup codex then writes no hooks.json).
  primeLocations: [
    { scope: 'project', path: '.codex/hooks.json' },
    { scope: 'user', path: '.codex/hooks.json' },
    { scope: 'project', path: CODEX_CONFIG },
    { scope: 'user', path: CODEX_CONFIG },
  ],
  configFiles: ['.codex/hooks.json'],
};
