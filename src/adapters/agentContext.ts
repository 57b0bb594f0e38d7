import * as path from 'node:path';
import * as vscode from 'vscode';
import { readyItems, type ReadyItem } from '../core/graph';
import type { Dialect } from '../core/model';
import type { RecoveryResult } from '../core/recovery';
import { gitStatus } from '../git/status';
import { loadSnapshot } from '../services/snapshot';
import type { CheckpointCommandResult } from './checkpointCommands';
import { Commands } from './commandIds';
import { readSettings } from './config';
import type { Project, ProjectRegistry } from './projects';
import type { RecoveryProvider } from './recoveryCommands';

// What the agent surfaces (language-model tools, the @beads participant) need from the rest of
// the extension. Agents cannot answer a quick pick, so the project is chosen without asking:
// the active editor's folder when it is a beads project, else the first folder that is.

/** What happened to a checkpoint an agent or the user asked for. */
export type CheckpointReport =
  | { kind: 'written'; issueId: string; comment: string; queued: boolean }
  | { kind: 'not-beads' }
  | { kind: 'nothing-in-progress'; cli: Dialect }
  | { kind: 'read-only'; reason: string }
  | { kind: 'not-written'; reason: string };

/** Writes a checkpoint comment with `summary` on the project's focused in-progress issue. */
export type CheckpointWriter = (project: Project, summary: string, signal?: AbortSignal) => Promise<CheckpointReport>;

/** Files the focused issue touched since its last checkpoint (relative to the project root), when activity is tracked. */
export type LedgerFiles = (project: Project, issueId: string) => readonly string[];

/**
 * A checkpoint through the `beadsRecovery.checkpoint` command, which takes the summary as its
 * message, skips its input box, writes through the outbox and says where the comment went.
 */
export const checkpointThroughCommand: CheckpointWriter = async (project, summary, signal) => {
  if ((await project.backend.listInProgress(signal)).length === 0) return { kind: 'nothing-in-progress', cli: project.cli };
  const result = await vscode.commands.executeCommand<CheckpointCommandResult | undefined>(Commands.checkpoint, { message: summary });
  if (!result) return { kind: 'not-written', reason: 'the checkpoint command wrote nothing (the Beads log says why)' };
  return { kind: 'written', issueId: result.issueId, comment: result.comment, queued: result.state === 'queued' };
};

export interface AgentContextDeps {
  projects: ProjectRegistry;
  recovery: RecoveryProvider;
  checkpoint: CheckpointWriter;
  ledgerFiles?: LedgerFiles;
}

/** How many ready items /ready lists, each with its parent and what it unblocks. */
const READY_LISTED = 10;
/** How many file references a chat answer carries; more would bury the answer. */
const REFERENCES = 20;

export class AgentContext {
  constructor(private readonly deps: AgentContextDeps) {}

  async project(): Promise<Project | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const active = vscode.window.activeTextEditor?.document.uri;
    const activeFolder = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
    const ordered = activeFolder ? [activeFolder, ...folders.filter((folder) => folder.index !== activeFolder.index)] : folders;
    for (const folder of ordered) {
      const project = await this.deps.projects.project(folder);
      if (project) return project;
    }
    return undefined;
  }

  async recovery(project: Project | undefined, token?: vscode.CancellationToken): Promise<RecoveryResult> {
    return this.deps.recovery.produceFor(project, token);
  }

  async checkpoint(project: Project | undefined, summary: string, signal?: AbortSignal): Promise<CheckpointReport> {
    if (!project) return { kind: 'not-beads' };
    if (project.backend.readOnly) return { kind: 'read-only', reason: project.readOnlyReason ?? 'this project is read-only here' };
    return this.deps.checkpoint(project, summary, signal);
  }

  async ready(project: Project, signal?: AbortSignal): Promise<{ items: ReadyItem[]; error?: string }> {
    const snapshot = await loadSnapshot(project.backend, { alwaysReady: true, readyDetails: READY_LISTED, signal });
    if (!snapshot.ready.ok) return { items: [], error: snapshot.ready.error };
    return { items: readyItems(snapshot.ready.value, snapshot.details.ok ? snapshot.details.value : []).slice(0, READY_LISTED) };
  }

  /**
   * The files a recovery answer points at: those the focused issue touched since its last
   * checkpoint, then the uncommitted changes, without deleted ones (a reference must open).
   */
  async files(project: Project, focusedId: string | undefined, signal?: AbortSignal): Promise<vscode.Uri[]> {
    const root = project.backend.root;
    const touched = focusedId ? (this.deps.ledgerFiles?.(project, focusedId) ?? []) : [];
    let changed: string[] = [];
    try {
      const changes = await gitStatus(root, { timeoutMs: readSettings(project.folder.uri).cliTimeoutMs, signal });
      changed = changes.filter((change) => !change.status.includes('D')).map((change) => change.path);
    } catch {
      // Outside a git repository, or git failed: the answer still names the files it knows.
    }
    const unique = [...new Set([...touched, ...changed])].filter((file) => !file.endsWith('/'));
    return unique.slice(0, REFERENCES).map((file) => vscode.Uri.file(path.resolve(root, file)));
  }
}
