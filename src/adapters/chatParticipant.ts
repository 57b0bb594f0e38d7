import * as vscode from 'vscode';
import type { ReadyItem } from '../core/graph';
import { cutBytes, inlineCode, verbatimLine } from '../core/markdown';
import type { AgentContext } from './agentContext';
import { withAbortSignal } from './commandErrors';
import { Commands } from './commandIds';
import { describeCheckpoint } from './lmTools';

// `@beads` in VS Code chat: /recover, /ready and /checkpoint, answered from beads and git alone,
// without a language model, so it works (and answers the same) whichever model the user picked.

const PARTICIPANT_ID = 'beadsRecovery.beads';
const TITLE_BYTES = 240;

/** The parts of a chat response stream the participant writes to (a test can pass a recorder). */
export type BeadsChatStream = Pick<vscode.ChatResponseStream, 'markdown' | 'reference' | 'button' | 'progress'>;

export type BeadsChatHandler = (
  request: Pick<vscode.ChatRequest, 'command' | 'prompt'>,
  context: unknown,
  stream: BeadsChatStream,
  token: vscode.CancellationToken,
) => Promise<vscode.ChatResult>;

export function createBeadsChatHandler(agents: AgentContext): BeadsChatHandler {
  return async (request, _context, stream, token) => {
    const command = request.command ?? 'recover';
    switch (command) {
      case 'ready':
        await answerReady(agents, stream, token);
        break;
      case 'checkpoint':
        await answerCheckpoint(agents, request.prompt, stream, token);
        break;
      default:
        await answerRecover(agents, stream, token);
    }
    return { metadata: { command } };
  };
}

export function registerChatParticipant(handler: BeadsChatHandler): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = new vscode.ThemeIcon('history');
  return participant;
}

async function answerRecover(agents: AgentContext, stream: BeadsChatStream, token: vscode.CancellationToken): Promise<void> {
  stream.progress('Reading beads and git…');
  const project = await agents.project();
  const touched = project ? agents.touchedFiles(project) : [];
  const result = await agents.recovery(project, token);
  stream.markdown(result.markdown);
  if (!project || result.state === 'not-beads') return;
  const files = await withAbortSignal(token, (signal) => agents.files(project, touched, signal));
  for (const uri of files) stream.reference(uri);
  stream.button({ command: Commands.copyRecoveryContext, title: 'Copy Recovery Context' });
}

async function answerReady(agents: AgentContext, stream: BeadsChatStream, token: vscode.CancellationToken): Promise<void> {
  const project = await agents.project();
  if (!project) {
    stream.markdown('No beads project in this workspace (no `.beads` directory).');
    return;
  }
  stream.progress('Reading the ready queue…');
  const { items, error } = await withAbortSignal(token, (signal) => agents.ready(project, signal));
  if (error !== undefined) {
    stream.markdown(`The ready queue could not be read: ${verbatimLine(cutBytes(error, 400))}`);
    return;
  }
  stream.markdown(readyMarkdown(items));
  if (items.length > 0 && (await vscode.commands.getCommands(true)).includes(Commands.claim)) {
    stream.button({ command: Commands.claim, title: 'Claim…' });
  }
}

async function answerCheckpoint(agents: AgentContext, prompt: string, stream: BeadsChatStream, token: vscode.CancellationToken): Promise<void> {
  const summary = prompt.trim();
  if (summary === '') {
    stream.markdown('Say what was done and what is next after the command, for example `@beads /checkpoint parser done; next: escapes`.');
    if ((await vscode.commands.getCommands(true)).includes(Commands.checkpoint)) {
      stream.button({ command: Commands.checkpoint, title: 'Checkpoint with a Summary of the Activity…' });
    }
    return;
  }
  const project = await agents.project();
  const report = await withAbortSignal(token, (signal) => agents.checkpoint(project, summary, signal));
  stream.markdown(verbatimLine(cutBytes(describeCheckpoint(report), 2400)));
}

/**
 * The ready queue with each item's parent and what it unblocks. Titles are untrusted
 * text, kept verbatim after the formatter's words on list-item lines (src/core/markdown.ts);
 * the chat renders it without HTML, so it stays inert.
 */
function readyMarkdown(items: readonly ReadyItem[]): string {
  if (items.length === 0) return 'Nothing is ready right now.';
  const lines = [`**Ready work** (${items.length === 1 ? '1 issue' : `${items.length} issues`}):`, ''];
  for (const { issue, parent, unblocks } of items) {
    let line = `- ${inlineCode(issue.id, 120)} ${verbatimLine(cutBytes(issue.title, TITLE_BYTES))} (P${issue.priority}, ${verbatimLine(cutBytes(issue.issueType, 40))})`;
    if (parent) line += ` · parent ${inlineCode(parent.id, 120)} ${verbatimLine(cutBytes(parent.title, TITLE_BYTES / 2))}`;
    if (unblocks.length > 0) line += ` · unblocks ${unblocks.map((issue) => inlineCode(issue.id, 120)).join(', ')}`;
    lines.push(line);
  }
  return lines.join('\n');
}
