import { DEFAULT_SURFACE_BUDGET, HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

// VS Code's own agent hooks (Copilot agent mode) and Copilot CLI, which read one hook file.
export const copilot: AgentProfile<'copilot'> = {
  id: 'copilot',
  name: 'Copilot',
  label: 'GitHub Copilot (VS Code agent hooks, Copilot CLI)',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  mcp: { file: '.vscode/mcp.json', kind: 'json', container: 'servers', typed: true },
  // bd's copilot hook prints `bd prime` as plain text, which reaches neither reader of the file:
  // VS Code parses a hook's stdout as JSON, and Copilot CLI took only a top-level
  // `additionalContext` in the real-agent suite. Our block keeps the rules there.
  primeLocations: [],
  // Ours is .github/hooks/beads-recovery.json; bd setup writes its own file in the same folder.
  configFiles: ['.github/hooks/*.json'],
  // Copilot CLI reads the same file in VS Code's format: PascalCase events with snake_case input,
  // its "VS Code compatible format" (github/docs content/copilot/reference/copilot-cli-reference/
  // cli-command-reference.md, commit 8fa9f11; in @github/copilot 1.0.102 the hook config parser
  // holds that event list beside `_vsCodeCompat`, and requires `version: 1`, which VS Code ignores).
  hookFile: {
    layout: 'flat',
    file: { local: '.github/hooks/beads-recovery.json' },
    preamble: { version: 1 },
    // VS Code runs a handler's `windows` command through cmd.exe (`cmd.exe /c`); its `powershell`
    // field, the Copilot CLI spelling it also reads, is run by PowerShell. Up to 0.1.0 we wrote
    // PowerShell text into `windows`.
    windows: { field: 'powershell', shell: 'powershell', replaces: ['windows'] },
    hooks: [
      { event: 'SessionStart', timeout: HOOK_TIMEOUT_S },
      { event: 'PreCompact', timeout: HOOK_TIMEOUT_S },
      // Copilot CLI takes its context (the next prompt after a compaction, in the same run).
      { event: 'UserPromptSubmit', timeout: HOOK_TIMEOUT_S },
      { event: 'PostToolUse', timeout: HOOK_TIMEOUT_S },
    ],
    signs: { folders: ['.github/hooks'], executables: ['copilot'], extensions: ['github.copilot-chat', 'github.copilot'] },
  },
  // No event follows a compaction in either reader, so PreCompact arms a one-shot marker. Copilot
  // CLI applies a compaction in the background and goes on in the same run: its next prompt
  // (UserPromptSubmit) or tool call (PostToolUse) hands the block over, whichever comes first. A
  // prompt that starts a later run leaves it to that run's SessionStart; VS Code, which takes no
  // context from UserPromptSubmit, keeps the marker for its PostToolUse (src/bin/hook.ts).
  events: {
    SessionStart: { ...NO_PLAN, inject: 'always', disarm: true },
    PreCompact: { ...NO_PLAN, checkpoint: true, arm: true },
    PostToolUse: { ...NO_PLAN, inject: 'if-armed' },
    UserPromptSubmit: { ...NO_PLAN, inject: 'if-armed', sameRunOnly: true },
  },
  // The same file serves Copilot CLI, which takes a top-level `additionalContext` and not VS Code's
  // `hookSpecificOutput` one (the real-agent suite, @github/copilot 1.0.102); each reads its own.
  answer: 'hook-specific-and-top-level',
  transcriptBoundaries: [],
  // Copilot CLI keeps a SessionStart hook's text for that run only: a `--resume` (a run of its own)
  // does not send it again, while what PostToolUse and UserPromptSubmit hooks gave is sent again
  // (the real-agent suite, @github/copilot 1.0.102). There every start needs the block, and only a
  // hand-over after a compaction is remembered for the session.
  startContextKept: false,
  aliases: ['copilot-cli'],
  usage: "read by VS Code's agent hooks and by Copilot CLI, which --agent copilot-cli names too",
};
