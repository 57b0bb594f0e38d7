import * as vscode from 'vscode';

const CHAT_OPEN = 'workbench.action.chat.open';

export type InjectOutcome = 'chat' | 'clipboard';

/**
 * Pre-fills VS Code's chat input with `text` and never sends it: the user reads it and presses
 * Enter. `workbench.action.chat.open` is internal and missing in some hosts (or disabled with AI
 * features off), so when it is absent or throws, the text goes to the clipboard instead and the
 * user is told so.
 */
export async function injectIntoChat(text: string): Promise<InjectOutcome> {
  const commands = await vscode.commands.getCommands(true);
  if (commands.includes(CHAT_OPEN)) {
    try {
      await vscode.commands.executeCommand(CHAT_OPEN, { query: text, isPartialQuery: true });
      return 'chat';
    } catch {
      // Fall through to the clipboard.
    }
  }
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage('Beads: chat is not available here, so the text was copied to the clipboard instead.');
  return 'clipboard';
}
