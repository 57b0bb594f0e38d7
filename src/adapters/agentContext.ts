import * as path from 'node:path';
import * as vscode from 'vscode';
import { readyItems, type ReadyItem } from '../core/graph';
import type { Dialect } from '../core/model';
import type { RecoveryResult } from '../core/recovery';
import { gitStatus } from '../git/status';
import { loadSnapshot } from '../services/snapshot';
import { checkpointIn, type WorkDeps } from './checkpointCommands';
import { reportErrors } from './commandErrors';
import { readSettings } from './config';
import type { Project, ProjectRegistry } from './projects';
import type { RecoveryProvider } from './recoveryCommands';

// What the agent surfaces (language-model tools, the @beads participant) need from the rest of
// the extension. Agents cannot answer a quick pick, so the project is chosen without asking
// (ProjectRegistry.activeProject), and a checkpoint goes straight to that project, not through the
// command, which would ask.

/** What happened to a checkpoint an agent or the user asked for. */
export type CheckpointReport =
  | { kind: 'written'; issueId: string; comment: string; queued: boolean }
  | { kind: 'not-beads' }
  | { kind: 'nothing-in-progress'; cli: Dialect }
  | { kind: 'read-only'; reason: string }
  | { kind: 'not-written'; reason: string };

/** Writes a checkpoint comment with `summary` on the project's focused in-progress issue. */
export type CheckpointWriter = (project: Project, summary: string, signal?: AbortSignal) => Promise<CheckpointReport>;

/** Files the project's focused issue touched since its last checkpoint (relative to the workspace folder), when activity is tracked. */
export type LedgerFiles = (project: Project) => readonly string[];

/**
 * Checkpoints the way "Beads: Checkpoint Now" does once its project is known: the summary is the
 * message, so no input box; it writes through the outbox and says where the comment went.
 */
export function checkpointWriter(deps: WorkDeps): CheckpointWriter {
  return async (project, summary, signal) => {
    if ((await project.backend.listInProgress(signal)).length === 0) return { kind: 'nothing-in-progress', cli: project.cli };
    const result = await reportErrors(deps.log, () => checkpointIn(deps, project, { message: summary, signal }));
    if (!result) return { kind: 'not-written', reason: 'the checkpoint command wrote nothing (the Beads log says why)' };
    return { kind: 'written', issueId: result.issueId, comment: result.comment, queued: result.state === 'queued' };
  };
}

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

  project(): Promise<Project | undefined> {
    return this.deps.projects.activeProject();
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
   * Files the focused issue touched since its last checkpoint. Read before a recovery context is
   * produced: producing one writes a checkpoint, which starts the ledger afresh.
   */
  touchedFiles(project: Project): readonly string[] {
    return this.deps.ledgerFiles?.(project) ?? [];
  }

  /**
   * The files a recovery answer points at: `touched` (from touchedFiles), then the uncommitted
   * changes, without deleted ones (a reference must open).
   */
  async files(project: Project, touched: readonly string[], signal?: AbortSignal): Promise<vscode.Uri[]> {
    const root = project.backend.root;
    const absolute = (base: string, files: readonly string[]) => files.filter((file) => !file.endsWith('/')).map((file) => path.resolve(base, file));
    const touchedPaths = absolute(project.folder.uri.fsPath, touched);
    let changed: string[] = [];
    try {
      const changes = await gitStatus(root, { timeoutMs: readSettings(project.folder.uri).cliTimeoutMs, signal });
      changed = absolute(root, changes.filter((change) => !change.status.includes('D')).map((change) => change.path));
    } catch {
      // Outside a git repository, or git failed: the answer still names the files it knows.
    }
    return [...new Set([...touchedPaths, ...changed])].slice(0, REFERENCES).map((file) => vscode.Uri.file(file));
  }
}
