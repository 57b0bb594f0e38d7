import * as vscode from 'vscode';
import { showInformationMessage, showWarningMessage } from './notify';
import type { BeadsBackend } from '../beads/backend';
import { migrationEnded } from '../beads/bdMigration';
import { releaseWarningOnce } from '../beads/releaseWarnings';
import { detectProject, type Detection, type ReadOnlyReason } from '../beads/detect';
import { errorMessage } from '../core/errors';
import type { ProjectInfo } from '../shared/protocol';
import type { Dialect } from '../core/model';
import { increaseCliTimeout } from './cliSettings';
import { Commands } from './commandIds';
import { readSettings } from './config';
import { Disposable } from '../services/disposable';

/** A workspace folder that holds a beads project, with the backend chosen for it. */
export interface Project {
  folder: vscode.WorkspaceFolder;
  backend: BeadsBackend;
  /** The CLI whose syntax the recovery context teaches; for the read-only backend, the likely one. */
  cli: Dialect;
  /** Why the backend is read-only, for banners and messages; undefined for a CLI backend. */
  readOnlyReason: string | undefined;
  /** What kind of reason that is; undefined for a CLI backend. */
  readOnlyKind: ReadOnlyReason | undefined;
}

/** What the sidebar says about a project: its name, what serves it, and why it is read-only. */
export function projectInfo(project: Project): ProjectInfo {
  const info: ProjectInfo = { name: project.folder.name, backend: project.backend.kind };
  if (project.readOnlyReason) info.readOnlyReason = project.readOnlyReason;
  if (project.readOnlyKind) info.readOnlyKind = project.readOnlyKind;
  return info;
}

/** What a write command answers on a read-only project: the project's own reason, not a guess. */
export function readOnlyWarning(project: Project): string {
  return `Beads: ${project.readOnlyReason ?? 'this beads project is open read-only.'} Claim, Close and Checkpoint are unavailable.`;
}

/**
 * Detects, per workspace folder, whether it is a beads project and which backend serves it, and
 * caches the answer until settings, trust or the folders change. Detection costs one process, so
 * it is done once, not per refresh.
 */
export class ProjectRegistry extends Disposable {
  private readonly detections = new Map<string, Promise<Project | undefined>>();
  private readonly warned = new Set<string>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
  }

  project(folder: vscode.WorkspaceFolder): Promise<Project | undefined> {
    const key = folder.uri.toString();
    let detection = this.detections.get(key);
    if (!detection) {
      detection = this.detect(folder);
      this.detections.set(key, detection);
    }
    return detection;
  }

  /** Forget every detection: the next request detects again (settings, trust or PATH changed). */
  reset(): void {
    this.detections.clear();
    this.changed.fire();
  }

  // The one project-picking policy: the active editor's folder when it holds a beads project;
  // otherwise a command a person ran asks which project (pickProject), and everything nobody can
  // answer a quick pick for — language-model tools, the chat participant, the sidebar, the API —
  // takes the first folder that holds one (activeProject).

  /** The project a command acts on; asks (with `placeHolder`) when the active editor says nothing and several folders hold one. */
  async pickProject(placeHolder = 'Which beads project?'): Promise<Project | undefined> {
    const active = await this.activeEditorProject();
    if (active) return active;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const projects = (await Promise.all(folders.map((folder) => this.project(folder)))).filter(
      (project): project is Project => project !== undefined,
    );
    if (projects.length <= 1) return projects[0];
    const picked = await vscode.window.showQuickPick(
      projects.map((project) => ({ label: project.folder.name, description: project.folder.uri.fsPath, project })),
      { placeHolder },
    );
    return picked?.project;
  }

  /** The project something that cannot ask acts on: the active editor's, else the first folder's that holds one. */
  async activeProject(): Promise<Project | undefined> {
    const active = await this.activeEditorProject();
    if (active) return active;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const project = await this.project(folder);
      if (project) return project;
    }
    return undefined;
  }

  private async activeEditorProject(): Promise<Project | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
    return folder ? this.project(folder) : undefined;
  }

  private async detect(folder: vscode.WorkspaceFolder): Promise<Project | undefined> {
    if (folder.uri.scheme !== 'file') return undefined;
    const settings = readSettings(folder.uri);
    const detection = await detectProject(folder.uri.fsPath, {
      preferred: settings.cli,
      cliPath: vscode.workspace.isTrusted ? settings.cliPath : undefined,
      trusted: vscode.workspace.isTrusted,
      timeoutMs: settings.cliTimeoutMs,
    });
    this.log.info(`${folder.name}: ${describe(detection)}`);
    if (detection.kind === 'none') return undefined;
    if (detection.kind === 'cli') this.warnWithdrawnRelease(detection);
    if (detection.kind === 'readonly') this.warnReadOnly(folder, detection.message, detection.reason);
    // bd 1.3 migrating the store: read-only until its process ends, then detected again (writable).
    if (detection.kind === 'readonly' && detection.migration) {
      const key = folder.uri.toString();
      void migrationEnded(detection.migration).then(() => {
        this.log.info(`${folder.name}: bd's migration ended; detecting the project again`);
        this.warned.delete(`${key}:migrating`);
        this.detections.delete(key);
        this.changed.fire();
      });
    }
    return {
      folder,
      backend: detection.backend,
      cli: detection.cli,
      readOnlyReason: detection.kind === 'readonly' ? detection.message : undefined,
      readOnlyKind: detection.kind === 'readonly' ? detection.reason : undefined,
    };
  }

  /** The CLI's version (asked once per backend; the view shows it too), warned about once when withdrawn. */
  private warnWithdrawnRelease(detection: Extract<Detection, { kind: 'cli' }>): void {
    void detection.backend.version?.().then(async (version) => {
      const warning = version === undefined ? undefined : await releaseWarningOnce(detection.cli, version);
      if (warning) void showWarningMessage(`Beads: ${warning}`);
    });
  }

  private warnReadOnly(folder: vscode.WorkspaceFolder, message: string, reason: ReadOnlyReason): void {
    const key = `${folder.uri.toString()}:${reason}`;
    if (this.warned.has(key) || reason === 'untrusted') return;
    this.warned.add(key);
    if (reason === 'cli-timeout') {
      void this.offerRetry(key, message).catch((error: unknown) => this.log.error(`Increase Timeout: ${errorMessage(error)}`));
      return;
    }
    if (reason === 'migrating') {
      void showInformationMessage(`Beads: ${message} Showing the issues read-only meanwhile; Claim, Close and Checkpoint are queued or wait.`);
      return;
    }
    const setPath = 'Set CLI Path…';
    void showWarningMessage(`Beads: ${message}`, setPath).then((choice) => {
      if (choice === setPath) void vscode.commands.executeCommand(Commands.setCliPath);
    });
  }

  /** A CLI that hung is found, just slow or stuck: try again, or give it longer. */
  private async offerRetry(key: string, message: string): Promise<void> {
    const retry = 'Retry';
    const longer = 'Increase Timeout';
    const choice = await showWarningMessage(`Beads: ${message}`, retry, longer);
    if (!choice) return;
    // Asked for by the user, so a second timeout is told again.
    this.warned.delete(key);
    if (choice === longer) {
      const timeoutMs = await increaseCliTimeout();
      if (timeoutMs !== undefined) {
        this.log.info(`beadsRecovery.cliTimeoutMs raised to ${timeoutMs} ms`);
        return; // the settings listener detects again
      }
      void showWarningMessage('Beads: beadsRecovery.cliTimeoutMs is already at its maximum (600000 ms); trying once more.');
    }
    this.reset();
  }
}

function describe(detection: Detection): string {
  switch (detection.kind) {
    case 'none':
      return 'not a beads project';
    case 'cli':
      return `beads project served by ${detection.backend.kind} (${detection.backend.root})`;
    case 'readonly':
      return `read-only beads project (${detection.reason}): ${detection.message}`;
  }
}
