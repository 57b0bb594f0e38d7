// Claude Code's VS Code extension opens a tab with its prompt pre-filled — never sent — from a URI
// its handler serves: `<scheme>://anthropic.claude-code/open?prompt=<URL-encoded text>` (Claude
// Code 2.1.72+). The scheme is the host's own (`vscode`, `vscode-insiders`, `cursor`, …), so the
// URI reaches the window it was opened from. Pure.

export const CLAUDE_CODE_EXTENSION_ID = 'anthropic.claude-code';

/** The URI that opens Claude Code with `prompt` in its input; `uriScheme` is `vscode.env.uriScheme`. */
export function claudeCodePromptUri(uriScheme: string, prompt: string): string {
  if (!/^[a-z][a-z0-9+.-]*$/i.test(uriScheme)) throw new Error(`'${uriScheme}' is not a URI scheme`);
  return `${uriScheme}://${CLAUDE_CODE_EXTENSION_ID}/open?prompt=${encodeURIComponent(prompt)}`;
}
