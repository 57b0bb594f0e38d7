import { HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

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
  hookFile: {
    layout: 'nested',
    file: { local: '.codex/hooks.json' },
    // On Windows Codex takes `commandWindows` (codex-rs/hooks/src/engine/discovery.rs,
    // openai/codex@0082977c) and runs it as `%COMSPEC% /C <command>` through Rust's Command::arg
    // (engine/command_runner.rs, openai/codex@01746657), whose quoting turns each `"` in it into
    // `\"`, which cmd.exe keeps: any quoted path fails there. Some releases run it with PowerShell
    // instead (open-gsd/gsd-core#4557, codex-cli 0.153.4). So the command holds no quote and works
    // in both: powershell.exe with the script as -EncodedCommand, the shape Codex's own tests use
    // for Windows hooks (command_runner.rs, powershell_command).
    windows: { field: 'commandWindows', shell: 'encoded-powershell' },
    hooks: [
      { event: 'SessionStart', matcher: 'startup|resume|clear|compact', timeout: HOOK_TIMEOUT_S },
      { event: 'PreCompact', matcher: 'manual|auto', timeout: HOOK_TIMEOUT_S },
    ],
    afterInstall: 'Codex runs new or changed hooks only once you trust them: open /hooks in Codex and trust the beads-recovery entries.',
    signs: { folders: ['.codex'], executables: ['codex'], extensions: ['openai.chatgpt'] },
  },
  // SessionStart (source `compact`) gives the context again after a compaction.
  events: {
    SessionStart: { ...NO_PLAN, inject: 'always' },
    PreCompact: { ...NO_PLAN, checkpoint: true },
  },
  answer: 'hook-specific-output',
  // A `compacted` rollout item (the transcript reader in ../transcriptCodex.ts).
  transcriptBoundaries: ['"type":"compacted"'],
  startContextKept: true,
  usage: "trust them in Codex's /hooks afterwards",
};
