import * as vscode from 'vscode';
import { oneLine, truncate } from '../core/markdown';
import type { AgentContext, CheckpointReport } from './agentContext';
import { withAbortSignal } from './commandErrors';

// Two tools that Copilot's agent mode (or any chat agent) can call: one reads the recovery
// context, one writes a checkpoint. Both are declared in package.json `languageModelTools`,
// where the model description tells agents when to call them.

const Tools = {
  getRecoveryContext: 'beads_getRecoveryContext',
  checkpoint: 'beads_checkpoint',
} as const;

export interface CheckpointInput {
  summary: string;
}

/** A checkpoint longer than this is not a summary; the comment would crowd the recovery trail. */
const SUMMARY_CHARS = 1000;

export function registerLanguageModelTools(agents: AgentContext): vscode.Disposable[] {
  return [
    vscode.lm.registerTool<Record<string, never>>(Tools.getRecoveryContext, {
      prepareInvocation: () => ({ invocationMessage: 'Reading the beads recovery context' }),
      invoke: async (_options, token) => {
        const result = await agents.recovery(await agents.project(), token);
        return textResult(result.markdown);
      },
    }),
    vscode.lm.registerTool<CheckpointInput>(Tools.checkpoint, {
      // Must stay free of side effects: VS Code may prepare a call that is never made.
      prepareInvocation: (options) => {
        const summary = checkedSummary(options.input);
        const message = new vscode.MarkdownString('Add this checkpoint comment to the in-progress beads issue?\n\n');
        message.appendText(`Checkpoint: ${summary}`);
        return {
          invocationMessage: 'Writing a beads checkpoint',
          confirmationMessages: { title: 'Write a beads checkpoint', message },
        };
      },
      invoke: async (options, token) => {
        const summary = checkedSummary(options.input);
        const project = await agents.project();
        const report = await withAbortSignal(token, (signal) => agents.checkpoint(project, summary, signal));
        return textResult(describeCheckpoint(report));
      },
    }),
  ];
}

/** One line an agent (or a person) can act on. */
export function describeCheckpoint(report: CheckpointReport): string {
  switch (report.kind) {
    case 'written':
      return report.queued
        ? `Checkpoint queued for ${report.issueId}: the beads CLI is not answering right now, and the comment will be written when it is back.`
        : `Checkpoint written to ${report.issueId}: ${oneLine(report.comment)}`;
    case 'not-beads':
      return 'No beads project in this workspace (no .beads directory), so there is nothing to checkpoint.';
    case 'nothing-in-progress':
      return `No issue is in progress, so the checkpoint has nowhere to go: claim one first (\`${report.cli} update --claim -- <id>\`).`;
    case 'read-only':
      return `Cannot write a checkpoint here: ${oneLine(report.reason)}`;
    case 'not-written':
      return `No checkpoint was written: ${oneLine(report.reason)}`;
  }
}

/** The model's input, checked: tools receive whatever the model produced. */
function checkedSummary(input: Partial<CheckpointInput> | undefined): string {
  const summary = typeof input?.summary === 'string' ? oneLine(input.summary) : '';
  if (summary === '') throw new Error('beads_checkpoint needs a "summary": one line saying what is done and what is next.');
  return truncate(summary, SUMMARY_CHARS);
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}
