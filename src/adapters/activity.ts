import * as path from 'node:path';
import * as vscode from 'vscode';
import { showWarningMessage } from './notify';
import type { CheckpointActivity } from '../core/checkpoint';
import { errorMessage } from '../core/errors';
import { fnv1a } from '../core/hash';
import { activityOf } from '../services/checkpoints';
import { Disposable, systemTimers } from '../services/disposable';
import type { LastCloseStore } from '../services/lastClose';
import { FolderActivity as FolderActivityOf, type Clock, type FocusMove } from '../services/folderActivity';
import { reportFailure } from './commandErrors';
import { readSettings } from './config';
import { VscodeFileWatchers } from './fileWatchers';
import type { Project, ProjectRegistry } from './projects';

// Activity tracking for every workspace folder that holds a beads project. The work itself is
// services/folderActivity.ts (free of vscode, unit-tested); this adapter hands it VS Code's file
// watchers, settings and hints (saves, window focus, terminal commands, the git extension).

/** Commands after which the reflog may have new commits. */
const GIT_COMMIT_COMMAND = /\bgit\b[^|;&]*\b(?:commit|merge|rebase|cherry-pick|am|pull|revert)\b/;
const systemClock: Clock = { ...systemTimers, now: () => Date.now() };

/** One workspace folder's activity, with the extension's Project. */
export type FolderActivity = FolderActivityOf<Project>;

export interface ActivityDeps {
  projects: ProjectRegistry;
  log: vscode.LogOutputChannel;
  /** The extension's workspace storage: the ledger's home for folders outside git. */
  storageUri: vscode.Uri | undefined;
}

/**
 * Where a folder outside git keeps its ledger and its outbox: a folder of the extension's workspace
 * storage named by the folder's URI. Undefined without workspace storage.
 */
export function ledgerFallbackDir(storageUri: vscode.Uri | undefined, folder: vscode.WorkspaceFolder): string | undefined {
  return storageUri ? path.join(storageUri.fsPath, 'activity', fnv1a(folder.uri.toString())) : undefined;
}

/** The built-in git extension's API, as far as it is used here: events that say "HEAD may have moved". */
interface GitExtensionApi {
  repositories: GitExtensionRepository[];
  onDidOpenRepository: vscode.Event<GitExtensionRepository>;
}

interface GitExtensionRepository {
  rootUri: vscode.Uri;
  state: { onDidChange: vscode.Event<void> };
  onDidCommit?: vscode.Event<void>;
}

/**
 * Activity of every beads folder in the workspace. Exposes each folder's ledger store (for
 * checkpoints) and the focus (for the sidebar and the status bar). Owns the extension's file
 * watchers (`watchers`), which the sidebar shares.
 */
export class ActivityTracker extends Disposable {
  private readonly folders = new Map<string, FolderActivity>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private readonly focusMoved = this.register(new vscode.EventEmitter<{ folder: FolderActivity; move: FocusMove }>());
  /** A folder's focus followed an issue claimed elsewhere (a terminal, an agent). */
  readonly onDidMoveFocus = this.focusMoved.event;
  readonly watchers = this.register(new VscodeFileWatchers());
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ActivityDeps) {
    super();
    this.register(deps.projects.onDidChange(() => void this.sync()));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.sync()));
    this.register(
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (document.uri.scheme === 'file') this.folderOf(document.uri)?.noticeSave(document.uri.fsPath, document.getText());
      }),
    );
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        for (const folder of this.folders.values()) {
          const uri = folder.project.folder.uri;
          if (event.affectsConfiguration('files.watcherExclude', uri)) folder.setWatcherExcludes(watcherExcludes(uri));
        }
      }),
    );
    this.register(
      vscode.window.onDidChangeWindowState((state) => {
        if (!state.focused) return;
        for (const folder of this.folders.values()) {
          void folder.store.reload();
          folder.scheduleLink(0);
        }
      }),
    );
    this.register(
      vscode.window.onDidEndTerminalShellExecution((event) => {
        if (!GIT_COMMIT_COMMAND.test(event.execution.commandLine.value)) return;
        const cwd = event.execution.cwd;
        const folders = cwd ? [this.folderOf(cwd)].filter((folder): folder is FolderActivity => folder !== undefined) : [...this.folders.values()];
        for (const folder of folders.length > 0 ? folders : this.folders.values()) folder.scheduleLink();
      }),
    );
    // The folders go before the watchers they use: registered last, disposed first.
    this.register({
      dispose: () => {
        for (const folder of this.folders.values()) folder.dispose();
        this.folders.clear();
      },
    });
    this.listenToGitExtension();
  }

  /** Opens or closes folder activity to match the workspace folders that hold a beads project. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow()).catch((error: unknown) => reportFailure(this.deps.log, 'activity tracking failed', error));
    return this.syncing;
  }

  /** The folder the user is looking at: the active editor's, else the first one tracked. */
  active(): FolderActivity | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    return (uri ? this.folderOf(uri) : undefined) ?? this.folders.values().next().value;
  }

  all(): FolderActivity[] {
    return [...this.folders.values()];
  }

  /** The activity of the project at `root` (a backend root), if it is tracked. */
  forRoot(root: string): FolderActivity | undefined {
    const wanted = path.resolve(root);
    return [...this.folders.values()].find((folder) => path.resolve(folder.project.backend.root) === wanted || path.resolve(folder.root) === wanted);
  }

  forProject(project: Project): FolderActivity | undefined {
    return this.folders.get(project.folder.uri.toString());
  }

  /** The focused issue of the project at `root` and its work since the last checkpoint (the sidebar's view of activity). */
  focus(root: string): { issueId?: string; ledger?: CheckpointActivity } | undefined {
    const folder = this.forRoot(root);
    if (!folder) return undefined;
    const ledger = folder.focusedLedger();
    // The real last checkpoint, not activityOf's start-of-recording stand-in: the view says "no checkpoint yet".
    return { issueId: folder.focusedIssue(), ledger: ledger ? { ...activityOf(ledger), lastCheckpointAt: ledger.lastCheckpointAt } : undefined };
  }

  /** Where the project at `root` keeps its last close (see core/next.ts `nextFor`). */
  lastCloseOf(root: string): LastCloseStore | undefined {
    return this.forRoot(root)?.lastClose;
  }

  folderOf(uri: vscode.Uri): FolderActivity | undefined {
    const workspaceFolder = vscode.workspace.getWorkspaceFolder(uri);
    return workspaceFolder ? this.folders.get(workspaceFolder.uri.toString()) : undefined;
  }

  async flush(): Promise<void> {
    await this.syncing;
    await Promise.all([...this.folders.values()].map((folder) => folder.flush()));
  }

  /** Writes everything, drops every folder's in-memory state and opens them again from disk, as a window reload does. */
  async reopen(): Promise<void> {
    await this.flush();
    const closing = [...this.folders.values()];
    this.folders.clear();
    await Promise.all(closing.map((folder) => folder.close()));
    await this.sync();
  }

  private async syncNow(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const wanted = new Set(folders.map((folder) => folder.uri.toString()));
    for (const [key, activity] of this.folders) {
      if (!wanted.has(key)) {
        activity.dispose();
        this.folders.delete(key);
      }
    }
    for (const folder of folders) {
      const key = folder.uri.toString();
      const project = await this.deps.projects.project(folder);
      if (this.disposed) return;
      const existing = this.folders.get(key);
      if (!project) {
        existing?.dispose();
        this.folders.delete(key);
        continue;
      }
      if (existing) {
        if (existing.project !== project) existing.setProject(project);
        else void existing.reconcileWithGit();
        continue;
      }
      const opened = await this.open(folder, project).catch((error: unknown) => {
        reportFailure(this.deps.log, `${folder.name}: activity tracking could not start`, error);
        return undefined;
      });
      if (!opened) continue;
      if (this.disposed) {
        opened.dispose();
        return;
      }
      this.folders.set(key, opened);
      // Not kept: closing the folder drops its listeners, this one with them.
      opened.onDidChange(() => this.changed.fire());
      opened.onDidMoveFocus((move) => this.focusMoved.fire({ folder: opened, move }));
    }
    this.changed.fire();
  }

  private open(folder: vscode.WorkspaceFolder, project: Project): Promise<FolderActivity | undefined> {
    const { log } = this.deps;
    return FolderActivityOf.open<Project>({
      name: folder.name,
      root: folder.uri.fsPath,
      project,
      watchers: this.watchers,
      clock: systemClock,
      watcherExcludes: watcherExcludes(folder.uri),
      fallbackDir: ledgerFallbackDir(this.deps.storageUri, folder),
      timeoutMs: readSettings(folder.uri).cliTimeoutMs,
      log,
      onDamage: (message) => void showWarningMessage(`Beads: ${message}`),
    });
  }

  private listenToGitExtension(): void {
    const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitExtensionApi }>('vscode.git');
    if (!extension) return;
    const hint = (repository: GitExtensionRepository) => () => this.folderOf(repository.rootUri)?.scheduleLink();
    const follow = (repository: GitExtensionRepository) => {
      this.register(repository.state.onDidChange(hint(repository)));
      if (repository.onDidCommit) this.register(repository.onDidCommit(hint(repository)));
    };
    const unavailable = (error: unknown) => this.deps.log.info(`the git extension is not available (${errorMessage(error)}); the reflog alone links commits`);
    Promise.resolve(extension.isActive ? extension.exports : extension.activate()).then((exports) => {
      if (this.disposed) return;
      try {
        // getAPI throws while git is disabled (git.enabled false); the reflog works without it.
        const api = exports.getAPI(1);
        api.repositories.forEach(follow);
        this.register(api.onDidOpenRepository(follow));
      } catch (error) {
        unavailable(error);
      }
    }, unavailable);
  }
}

/** `files.watcherExclude`'s enabled globs for a folder. */
function watcherExcludes(uri: vscode.Uri): string[] {
  const excludes = vscode.workspace.getConfiguration('files', uri).get<Record<string, boolean>>('watcherExclude') ?? {};
  return Object.entries(excludes).filter(([, on]) => on).map(([glob]) => glob);
}
