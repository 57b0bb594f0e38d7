import * as vscode from 'vscode';
import type { ReadyItem } from '../core/graph';
import { cutBytes, inlineCode, verbatimLine } from '../core/markdown';
import type { AgentContext } from './agentContext';
import { withAbortSignal } from './commandErrors';
import { Commands } from './commandIds';
import { describeCheckpoint } from './lmTools';

// `@beads` in VS Code chat: /recover, /ready and /checkpoint, answered from beads and git alone,
// never sent to a language model, so it answers the same whichever model the user picked.
//
// VS Code itself will not call a participant when no model exists at all: its extension host
// resolves `request.model` before it invokes the handler and answers "Language model unavailable"
// instead (ExtHostChatAgents2.$invokeAgent → getModelForRequest, src/vs/workbench/api/common/
// extHostChatAgents2.ts). So the same answers are also one command away ("Beads: Show @beads
// Answer…", below), where no chat and no model is needed.

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

const ANSWER_SCHEME = 'beads-answer';
const ANSWERS = [
  { command: 'ready', label: '/ready', detail: 'Ready work, with each issue’s parent and what it unblocks' },
  { command: 'recover', label: '/recover', detail: 'The recovery context: the in-progress issue, its trail, commits and files' },
  { command: 'checkpoint', label: '/checkpoint', detail: 'Write a checkpoint on the in-progress issue' },
] as const;

/**
 * "Beads: Show @beads Answer…": what `@beads /ready` or `/recover` answers, without chat and
 * without a model, in a read-only Markdown document (`/checkpoint` is the Checkpoint command).
 * The handler is the participant's own, so both always say the same.
 */
export function registerChatAnswerCommand(handler: BeadsChatHandler): vscode.Disposable[] {
  const documents = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = { onDidChange: changed.event, provideTextDocumentContent: (uri) => documents.get(uri.path) ?? '' };
  const show = async (command?: unknown) => {
    const picked = ANSWERS.find((answer) => answer.command === command) ?? (await vscode.window.showQuickPick(ANSWERS.map((answer) => ({ ...answer })), { placeHolder: 'Which @beads answer?' }));
    if (!picked) return;
    if (picked.command === 'checkpoint') {
      await vscode.commands.executeCommand(Commands.checkpoint);
      return;
    }
    const recorder = new MarkdownRecorder();
    const cancel = new vscode.CancellationTokenSource();
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Beads: @beads ${picked.label}` }, () =>
        handler({ command: picked.command, prompt: '' }, undefined, recorder, cancel.token),
      );
    } finally {
      cancel.dispose();
    }
    const path = `/@beads ${picked.command}.md`;
    documents.set(path, recorder.text());
    const uri = vscode.Uri.from({ scheme: ANSWER_SCHEME, path });
    changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'markdown');
    await vscode.window.showTextDocument(document, { preview: true });
  };
  return [changed, vscode.workspace.registerTextDocumentContentProvider(ANSWER_SCHEME, provider), vscode.commands.registerCommand(Commands.showChatAnswer, show)];
}

/** A chat response stream that keeps the Markdown and lists the referenced files after it. */
class MarkdownRecorder implements BeadsChatStream {
  private readonly parts: string[] = [];
  private readonly files: string[] = [];

  markdown(value: string | vscode.MarkdownString): this {
    this.parts.push(typeof value === 'string' ? value : value.value);
    return this;
  }

  reference(value: vscode.Uri | vscode.Location): this {
    const uri = value instanceof vscode.Uri ? value : value.uri;
    this.files.push(vscode.workspace.asRelativePath(uri, false));
    return this;
  }

  button(): this {
    return this;
  }

  progress(): this {
    return this;
  }

  text(): string {
    const files = this.files.length > 0 ? `\n\n**Files:**\n\n${this.files.map((file) => `- ${inlineCode(file, 240)}`).join('\n')}` : '';
    return `${this.parts.join('')}${files}\n`;
  }
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
