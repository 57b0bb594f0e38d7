import { DEFAULT_SURFACE_BUDGET, HOOK_TIMEOUT_S, NO_PLAN, type AgentProfile } from './profile';

const SETTINGS = '.gemini/settings.json';
/** Gemini CLI counts a hook's timeout in milliseconds. */
const TIMEOUT_MS = HOOK_TIMEOUT_S * 1000;

export const gemini: AgentProfile<'gemini'> = {
  id: 'gemini',
  name: 'Gemini CLI',
  label: 'Gemini CLI',
  hookBudget: DEFAULT_SURFACE_BUDGET,
  // Gemini CLI's `mcpServers` sits in the same settings file as its hooks.
  mcp: { file: SETTINGS, kind: 'json', container: 'mcpServers' },
  // bd setup gemini: SessionStart `bd prime --hook-json` in the project's or the user's settings.
  primeLocations: [
    { scope: 'project', path: SETTINGS },
    { scope: 'user', path: SETTINGS },
  ],
  configFiles: [SETTINGS],
  // Gemini CLI (google-gemini/gemini-cli @5411f113, packages/core/src/hooks/types.ts and
  // docs/hooks/reference.md): Claude's nested layout in `.gemini/settings.json`; lifecycle
  // matchers are exact strings, `*` matches all; `timeout` is in milliseconds (default 60000);
  // the command runs with `bash -c`, or on Windows with `pwsh -NoProfile -Command` (powershell.exe
  // -NoProfile -NonInteractive -Command without pwsh), with `; if ($LASTEXITCODE -ne 0) { exit
  // $LASTEXITCODE }` appended (hookRunner.ts executeCommandHook and getShellConfiguration in the
  // 0.61.0 bundle): one command for both.
  hookFile: {
    layout: 'nested',
    file: { local: SETTINGS },
    commandShell: 'posix-or-powershell',
    hooks: [
      { event: 'BeforeModel', matcher: '*', timeout: TIMEOUT_MS },
      { event: 'BeforeAgent', matcher: '*', timeout: TIMEOUT_MS },
      { event: 'AfterTool', matcher: '*', timeout: TIMEOUT_MS },
      { event: 'SessionEnd', matcher: '*', timeout: TIMEOUT_MS },
    ],
    afterInstall: 'Gemini CLI asks before it runs project hooks it has not seen (or whose command changed): accept the beads-recovery hooks when it asks.',
    signs: { folders: ['.gemini'], executables: ['gemini'], extensions: ['google.geminicodeassist'] },
  },
  // Neither SessionStart nor PreCompress can serve (the real-agent suite, 0.61): PreCompress fires
  // before every model request, compressing or not, and a resume drops what SessionStart gave. The
  // session's chat file tells instead (../geminiHistory.ts, read whole, not for a boundary):
  // BeforeModel checkpoints each compression once; BeforeAgent (its additionalContext is appended
  // to the prompt, client.ts) and AfterTool (appended to the tool result, coreToolHookTriggers.ts)
  // hand the block over whenever the history holds none (a new session, after a compression);
  // BeforeAgent also corrects a held block that names another issue than the session's now.
  events: {
    BeforeModel: { ...NO_PLAN, checkpointCompression: true },
    BeforeAgent: { ...NO_PLAN, inject: 'if-missing', correctHeld: true },
    AfterTool: { ...NO_PLAN, inject: 'if-missing' },
    SessionEnd: { ...NO_PLAN, endSession: true },
  },
  answer: 'hook-specific-output',
  transcriptBoundaries: [],
  startContextKept: true,
  usage: 'its chat file tells a compression',
};
