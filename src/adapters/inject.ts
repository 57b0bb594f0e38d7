import * as vscode from 'vscode';
import { showInformationMessage, showWarningMessage } from './notify';
import { CLAUDE_CODE_EXTENSION_ID, claudeCodePromptUri } from '../core/claudeCodeUri';
import { errorMessage } from '../core/errors';
import { readSettings, SECTION, type InjectTarget } from './config';

// Puts a text (the recovery context, a continue prompt) where the user's agent will read it.
// Nothing here ever submits: chat is pre-filled, the terminal gets a paste without Enter, and
// the user reads the text before sending it. A target that cannot be used right now falls back
// to the clipboard, and the user is told why.

const CHAT_OPEN = 'workbench.action.chat.open';
const REPLACE_SETTING = 'chatInputReplace';
const BRACKETED_PASTE_START = '\x1b[200~';
const BRACKETED_PASTE_END = '\x1b[201~';
// Control characters other than tab and newline, including ESC and the 8-bit CSI: untrusted issue
// text must not be able to end the bracketed paste early and type commands into a shell.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export interface InjectOutcome {
  requested: InjectTarget;
  /** Where the text went; 'none' when the user declined the terminal paste. */
  delivered: InjectTarget | 'none';
  /** Why the requested target was not used, as told to the user. */
  fallbackReason?: string;
}

export interface InjectOptions {
  /** What the text is, for messages: "recovery context" unless told otherwise. */
  what?: string;
  /** The terminal to paste into; the active terminal when absent. */
  terminal?: vscode.Terminal;
  /** Asks before pasting into a terminal. A modal dialog unless the caller supplies its own question. */
  confirm?: (question: string, detail: string) => Thenable<boolean>;
  /** Asks before replacing the chat input. A modal dialog unless the caller supplies its own question. */
  confirmReplace?: (question: string, detail: string) => Thenable<ReplaceAnswer | undefined>;
  /** The chat models there are; `vscode.lm.selectChatModels()` unless the caller knows better. */
  chatModels?: () => Thenable<readonly unknown[]>;
}

/** Replace this time, replace from now on (remembered in `beadsRecovery.chatInputReplace`), or copy instead. */
export type ReplaceAnswer = 'replace' | 'always' | 'copy';

/**
 * Delivers `text` to `target`, or to the `beadsRecovery.injectTarget` setting's target when none
 * is given. Used by "Inject Recovery Context" and by the close flow's "Inject continue prompt".
 */
export async function inject(text: string, target?: InjectTarget, options: InjectOptions = {}): Promise<InjectOutcome> {
  const requested = target ?? readSettings(vscode.window.activeTextEditor?.document.uri).injectTarget;
  const what = options.what ?? 'recovery context';
  switch (requested) {
    case 'clipboard':
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(`$(check) Beads: ${what} copied (${Buffer.byteLength(text, 'utf8')} bytes)`, 4000);
      return { requested, delivered: 'clipboard' };
    case 'chat':
      return toChat(text, what, options);
    case 'claudeCode':
      return toClaudeCode(text, what);
    case 'terminal':
      return toTerminal(text, what, options);
  }
}

async function toChat(text: string, what: string, options: InjectOptions): Promise<InjectOutcome> {
  if (vscode.workspace.getConfiguration('chat').get<boolean>('disableAIFeatures') === true) {
    return fallBack(text, what, 'chat', 'chat is turned off here (chat.disableAIFeatures)');
  }
  if (!(await vscode.commands.getCommands(true)).includes(CHAT_OPEN)) {
    return fallBack(text, what, 'chat', 'this editor has no VS Code chat');
  }
  // Text in the chat input with no model to send it to waits for nobody.
  if (!(await hasLanguageModel(options.chatModels))) return fallBack(text, what, 'chat', 'no language model is available for chat');
  // No API reads the chat input, and pre-filling it replaces whatever the user was typing there.
  if (!(await mayReplaceChatInput(what, options.confirmReplace ?? askReplaceModal))) {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`$(check) Beads: ${what} copied; the chat input was left as it was`, 6000);
    return { requested: 'chat', delivered: 'clipboard', fallbackReason: 'the chat input was kept' };
  }
  try {
    // isPartialQuery only fills the input; without it the chat would send the text at once.
    await vscode.commands.executeCommand(CHAT_OPEN, { query: text, isPartialQuery: true });
  } catch (error) {
    return fallBack(text, what, 'chat', `chat could not be opened (${errorMessage(error)})`);
  }
  vscode.window.setStatusBarMessage(`$(comment-discussion) Beads: ${what} is in the chat input; read it, then press Enter`, 6000);
  return { requested: 'chat', delivered: 'chat' };
}

async function hasLanguageModel(models: () => Thenable<readonly unknown[]> = () => vscode.lm.selectChatModels()): Promise<boolean> {
  try {
    return (await models()).length > 0;
  } catch {
    return false;
  }
}

/** Whether the chat input may be replaced: asks, unless the user said "always" once. */
async function mayReplaceChatInput(what: string, ask: NonNullable<InjectOptions['confirmReplace']>): Promise<boolean> {
  const config = vscode.workspace.getConfiguration(SECTION);
  if (config.get<string>(REPLACE_SETTING) === 'replace') return true;
  const answer = await ask(
    `Put the ${what} into the chat input?`,
    'It replaces anything typed there now (an extension cannot read the chat input to add to it). "Always Replace" stops this question (setting beadsRecovery.chatInputReplace).',
  );
  if (answer === 'always') await config.update(REPLACE_SETTING, 'replace', vscode.ConfigurationTarget.Global);
  return answer === 'replace' || answer === 'always';
}

async function askReplaceModal(question: string, detail: string): Promise<ReplaceAnswer | undefined> {
  const answers: Record<string, ReplaceAnswer> = { Replace: 'replace', 'Always Replace': 'always', 'Copy Instead': 'copy' };
  const choice = await showInformationMessage(question, { modal: true, detail }, ...Object.keys(answers));
  return choice === undefined ? undefined : answers[choice];
}

/**
 * Opens Claude Code with the text in its prompt through its URI handler, without sending it.
 * The handler is not there before Claude Code 2.1.72, and it cannot say whether it took the text:
 * the user is told where to look, and any failure leaves the text on the clipboard, saying so.
 */
async function toClaudeCode(text: string, what: string): Promise<InjectOutcome> {
  if (!vscode.extensions.getExtension(CLAUDE_CODE_EXTENSION_ID)) {
    return fallBack(text, what, 'claudeCode', 'Claude Code is not installed in this editor');
  }
  try {
    const opened = await vscode.env.openExternal(vscode.Uri.parse(claudeCodePromptUri(vscode.env.uriScheme, text)));
    if (!opened) return fallBack(text, what, 'claudeCode', 'Claude Code could not be opened with the text');
  } catch (error) {
    return fallBack(text, what, 'claudeCode', `Claude Code could not be opened (${errorMessage(error)})`);
  }
  vscode.window.setStatusBarMessage(`$(comment-discussion) Beads: ${what} is in Claude Code's prompt; read it, then press Enter`, 6000);
  return { requested: 'claudeCode', delivered: 'claudeCode' };
}

async function toTerminal(text: string, what: string, options: InjectOptions): Promise<InjectOutcome> {
  const terminal = options.terminal ?? vscode.window.activeTerminal;
  if (!terminal) return fallBack(text, what, 'terminal', 'there is no active terminal');
  if (terminal.exitStatus !== undefined) return fallBack(text, what, 'terminal', `terminal "${terminal.name}" has exited`);
  const question = `Paste the ${what} into terminal "${terminal.name}"?`;
  const detail =
    'It is pasted as one block (bracketed paste) and Enter is not pressed: read it in the terminal, then send it yourself. ' +
    'Programs that do not understand bracketed paste (a plain shell prompt, for one) show it with stray characters.';
  const confirm = options.confirm ?? askModal;
  if (!(await confirm(question, detail))) return { requested: 'terminal', delivered: 'none' };
  terminal.show(false);
  const body = text.replace(/\r\n?/g, '\n').replace(TERMINAL_UNSAFE, '');
  terminal.sendText(`${BRACKETED_PASTE_START}${body}${BRACKETED_PASTE_END}`, false);
  vscode.window.setStatusBarMessage(`$(terminal) Beads: ${what} pasted into "${terminal.name}"; read it, then press Enter there`, 6000);
  return { requested: 'terminal', delivered: 'terminal' };
}

async function askModal(question: string, detail: string): Promise<boolean> {
  const paste = 'Paste';
  return (await showWarningMessage(question, { modal: true, detail }, paste)) === paste;
}

async function fallBack(text: string, what: string, requested: InjectTarget, reason: string): Promise<InjectOutcome> {
  await vscode.env.clipboard.writeText(text);
  void showInformationMessage(`Beads: ${reason}, so the ${what} was copied to the clipboard instead.`);
  return { requested, delivered: 'clipboard', fallbackReason: reason };
}
