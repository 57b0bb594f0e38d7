import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointActivity } from '../core/checkpoint';
import { reconcileFocus, recordFileChange, setFocus, trackedPathFilter, type Ledger, type LedgerState } from '../core/ledger';
import type { Issue } from '../core/model';
import { fnv1a } from '../core/hash';
import { activityOf } from '../services/checkpoints';
import { CommitLinker, type CommitFocus } from '../services/commitLinker';
import { describeDamage } from '../services/durableJson';
import { LedgerStore, locateLedger } from '../services/ledgerStore';
import type { WriteQueue } from '../services/writeQueue';
import { reportFailure } from './commandErrors';
import { readSettings } from './config';
import { isOwnWrite } from '../services/ownWrites';
import type { Project, ProjectRegistry } from './projects';
import { errorMessage } from '../core/errors';

// File tracking and commit linking for every workspace folder that holds a beads project. VS Code
// events become ledger transitions here; the ledger, its store and the commit linker know nothing
// of VS Code.

/** A burst of `.beads/` events (one CLI write touches several files) becomes one in-progress query. */
const IN_PROGRESS_DEBOUNCE_MS = 500;
/**
 * Hints (reflog watcher, terminal, git extension) arrive in clusters for one commit. The wait also
 * lets the watcher deliver the events of the files written just before the commit, so that the
 * commit's checkpoint resets them rather than leaving them counted for the next period.
 */
const LINK_DEBOUNCE_MS = 750;
const LEDGER_RELOAD_DEBOUNCE_MS = 100;
/** Created paths are looked at in batches: a new folder's files may have no events of their own. */
const CREATED_SETTLE_MS = 100;
/** Files listed from one batch of new folders, at most. */
const NEW_FOLDER_FILES_LIMIT = 1_000;
/** Files changed while nothing is focused wait this long for a claim to attribute them to. */
const UNFOCUSED_KEEP_MS = 5 * 60_000;
const UNFOCUSED_LIMIT = 500;
/** Commands after which the reflog may have new commits. */
const GIT_COMMIT_COMMAND = /\bgit\b[^|;&]*\b(?:commit|merge|rebase|cherry-pick|am|pull|revert)\b/;
// Files under .beads/ that change without the issues changing (locks, sockets, logs, temporary
// files); a query's own reads may touch them, and re-querying on them would loop.
const VOLATILE_BEADS_FILE = /(?:^|\/)(?:[^/]*\.lock|[^/]*\.sock|[^/]*\.pid|[^/]*\.log|[^/]*\.tmp|daemon[^/]*|last-touched|\.br_history\/.*|\.br_recovery\/.*)$/;

export interface ActivityDeps {
  projects: ProjectRegistry;
  log: vscode.LogOutputChannel;
  /** The extension's workspace storage: the ledger's home for folders outside git. */
  storageUri: vscode.Uri | undefined;
  /** The outbox of a project's beads writes; undefined while there is none (commits then wait). */
  writeQueue: (project: Project) => WriteQueue | undefined;
}

/**
 * Where a folder outside git keeps its ledger and its outbox: a folder of the extension's workspace
 * storage named by the folder's URI. Undefined without workspace storage.
 */
export function ledgerFallbackDir(storageUri: vscode.Uri | undefined, folder: vscode.WorkspaceFolder): string | undefined {
  return storageUri ? path.join(storageUri.fsPath, 'activity', fnv1a(folder.uri.toString())) : undefined;
}

/** One workspace folder with a beads project: its ledger, its watchers, its commit linker. */
export class FolderActivity implements vscode.Disposable {
  private inProgress: Issue[] | undefined;
  private readonly unfocused = new Map<string, number>();
  /** Paths created since the last batch, with when: files or folders, not known until looked at. */
  private readonly created = new Map<string, number>();
  private classifying: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly rootPrefix: string;
  private readonly ignoredPrefix: string | undefined;
  private isTracked: (relativePath: string) => boolean = () => true;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private linkTimer: ReturnType<typeof setTimeout> | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private createdTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private disposed = false;

  /** Undefined outside git: files are tracked, commits are not linked. */
  readonly linker: CommitLinker | undefined;

  private constructor(
    readonly folder: vscode.WorkspaceFolder,
    private currentProject: Project,
    readonly store: LedgerStore,
    linkerFor: ((activity: FolderActivity) => CommitLinker) | undefined,
    private readonly deps: ActivityDeps,
  ) {
    this.linker = linkerFor?.(this);
    this.rootPrefix = folder.uri.fsPath.endsWith(path.sep) ? folder.uri.fsPath : `${folder.uri.fsPath}${path.sep}`;
    // Outside git the ledger lives in workspace storage, which a user may have put in the folder.
    this.ignoredPrefix = this.linker ? undefined : path.dirname(store.file) + path.sep;
  }

  static async open(folder: vscode.WorkspaceFolder, project: Project, deps: ActivityDeps): Promise<FolderActivity | undefined> {
    const settings = readSettings(folder.uri);
    const fallback = ledgerFallbackDir(deps.storageUri, folder);
    const location = await locateLedger(folder.uri.fsPath, fallback, { timeoutMs: settings.cliTimeoutMs });
    if (!location) {
      deps.log.warn(`${folder.name}: no place to keep the activity ledger (not a git repository and no workspace storage); activity is not tracked`);
      return undefined;
    }
    const store = new LedgerStore(location.file, {
      log: (message) => deps.log.warn(`${folder.name}: ${message}`),
      onDamage: (report) => void vscode.window.showWarningMessage(`Beads: ${describeDamage('activity ledger', report)}`),
    });
    await store.load();
    const repository = location.repository;
    const linkerFor = repository
      ? (activity: FolderActivity) =>
          new CommitLinker({
            store,
            repository,
            focus: () => activity.commitFocus(),
            queue: () => deps.writeQueue(activity.project),
            now: Date.now,
            git: { timeoutMs: settings.cliTimeoutMs },
            log: (message) => deps.log.warn(`${folder.name}: ${message}`),
          })
      : undefined;
    const activity = new FolderActivity(folder, project, store, linkerFor, deps);
    activity.start();
    const linking = activity.linker ? `; commits linked from ${activity.linker.reflogFile}` : '; not a git repository, commits are not linked';
    deps.log.info(`${folder.name}: activity ledger at ${location.file}${linking}`);
    return activity;
  }

  get project(): Project {
    return this.currentProject;
  }

  /** Detection ran again (settings, trust, PATH): the same folder, maybe another backend. */
  setProject(project: Project): void {
    this.currentProject = project;
    this.scheduleInProgressRefresh(0);
  }

  /** In-progress issues, most recently updated first; undefined until the first query answered. */
  get inProgressIssues(): readonly Issue[] | undefined {
    return this.inProgress;
  }

  /**
   * The issue work is attributed to. Until the first in-progress query answers it is the focus the
   * ledger file remembers, so that a reloaded window carries on where it was; the query then
   * corrects it if that issue is no longer in progress.
   */
  focusedIssue(): string | undefined {
    return this.store.state.focusedId;
  }

  focusedLedger(): Ledger | undefined {
    const id = this.focusedIssue();
    return id === undefined ? undefined : this.store.state.ledgers[id];
  }

  get state(): LedgerState {
    return this.store.state;
  }

  /** The user picked the issue to attribute work to (or, with `pinned` false, let it follow the most recently updated). */
  async focus(issueId: string | undefined, pinned = true): Promise<void> {
    await this.store.update((state) => {
      const chosen = setFocus(state, issueId, Date.now(), pinned);
      return pinned ? chosen : reconcileFocus(chosen, (this.inProgress ?? []).map((issue) => issue.id), Date.now());
    });
    this.attributeUnfocused();
    this.changed.fire();
  }

  /** Queries the in-progress issues now (coalesced with a query already running). */
  refreshInProgress(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = this.queryInProgress().finally(() => {
      this.refreshing = undefined;
      if (this.refreshAgain && !this.disposed) {
        this.refreshAgain = false;
        void this.refreshInProgress();
      }
    });
    return this.refreshing;
  }

  /** Everything gathered in memory written, the reflog read, the in-progress issues current: for tests and before shutdown. */
  async flush(): Promise<void> {
    if (this.createdTimer !== undefined) {
      this.clearTimer('createdTimer');
      await this.classifyCreated();
    }
    await this.classifying;
    if (this.refreshTimer !== undefined || this.refreshing) {
      this.clearTimer('refreshTimer');
      await this.refreshInProgress();
    }
    if (this.linker) {
      this.clearTimer('linkTimer');
      await this.linker.check();
    }
    await this.store.flush();
  }

  /** Reads the reflog soon; hints from anywhere end here. */
  scheduleLink(delayMs = LINK_DEBOUNCE_MS): void {
    if (!this.linker || this.disposed) return;
    this.clearTimer('linkTimer');
    this.linkTimer = setTimeout(() => {
      this.linkTimer = undefined;
      this.linker?.check().then(
        (outcome) => {
          if (outcome.linked.length > 0) this.deps.log.info(`${this.folder.name}: ${outcome.linked.join('; ')}`);
        },
        (error: unknown) => this.deps.log.warn(`${this.folder.name}: reading the reflog failed: ${String(error)}`),
      );
    }, delayMs);
  }

  /**
   * A file event or a save, by URI. The hot path: string work and an in-memory transition only;
   * a created path waits a moment in a batch, to be told apart from a new folder.
   */
  noticeFile(uri: vscode.Uri, created = false): void {
    if (uri.scheme !== 'file') return;
    const fsPath = uri.fsPath;
    if (!fsPath.startsWith(this.rootPrefix)) return;
    const relative = path.sep === '/' ? fsPath.slice(this.rootPrefix.length) : fsPath.slice(this.rootPrefix.length).replace(/\\/g, '/');
    if (relative.startsWith('.beads/')) {
      if (this.beadsInFolder && !VOLATILE_BEADS_FILE.test(relative)) this.scheduleInProgressRefresh();
      return;
    }
    if (!this.isTracked(relative) || (this.ignoredPrefix !== undefined && fsPath.startsWith(this.ignoredPrefix)) || isOwnWrite(fsPath)) return;
    if (!created) {
      this.recordPath(relative, Date.now());
      return;
    }
    this.created.set(relative, Date.now());
    if (this.createdTimer === undefined && !this.disposed) {
      this.createdTimer = setTimeout(() => {
        this.createdTimer = undefined;
        void this.classifyCreated();
      }, CREATED_SETTLE_MS);
    }
  }

  /** Commits wait for the in-progress issues to be known: a comment on the wrong issue cannot be taken back. */
  commitFocus(): CommitFocus {
    return this.inProgress === undefined ? { known: false } : { known: true, issueId: this.store.state.focusedId };
  }

  dispose(): void {
    // Best effort on shutdown: what the last burst gathered is written before the store lets go.
    void this.close();
  }

  /** Stops watching and writes what the store still holds. */
  async close(): Promise<void> {
    this.disposed = true;
    for (const timer of ['refreshTimer', 'linkTimer', 'reloadTimer', 'createdTimer'] as const) this.clearTimer(timer);
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
    this.changed.dispose();
    try {
      await this.store.flush();
    } finally {
      this.store.dispose();
    }
  }

  private get beadsInFolder(): boolean {
    return path.resolve(this.currentProject.backend.root) === path.resolve(this.folder.uri.fsPath);
  }

  private start(): void {
    this.readExcludes();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.folder, '**/*'));
    const notice = (uri: vscode.Uri) => this.noticeFile(uri);
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => this.noticeFile(uri, true)),
      watcher.onDidChange(notice),
      watcher.onDidDelete(notice),
      this.store.onDidChange(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('files.watcherExclude', this.folder.uri)) this.readExcludes();
      }),
    );
    if (!this.beadsInFolder) this.watchBeadsOutsideFolder();
    if (this.linker) this.watchReflog(this.linker);
    this.watchLedgerFile();
    void this.refreshInProgress();
  }

  private watchBeadsOutsideFolder(): void {
    const beads = vscode.Uri.file(path.join(this.currentProject.backend.root, '.beads'));
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(beads, '**/*'));
    const notice = (uri: vscode.Uri) => {
      if (!VOLATILE_BEADS_FILE.test(uri.path)) this.scheduleInProgressRefresh();
    };
    this.disposables.push(watcher, watcher.onDidCreate(notice), watcher.onDidChange(notice), watcher.onDidDelete(notice));
  }

  private watchReflog(linker: CommitLinker): void {
    // Not subject to files.watcherExclude, and works for a git dir outside the folder (worktrees).
    const logs = vscode.Uri.file(path.dirname(linker.reflogFile));
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(logs, path.basename(linker.reflogFile)));
    const hint = () => this.scheduleLink();
    this.disposables.push(watcher, watcher.onDidCreate(hint), watcher.onDidChange(hint));
  }

  private watchLedgerFile(): void {
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(path.dirname(this.store.file)), path.basename(this.store.file)),
    );
    const reload = () => {
      this.clearTimer('reloadTimer');
      this.reloadTimer = setTimeout(() => {
        this.reloadTimer = undefined;
        void this.store.reload().then(
          () => this.attributeUnfocused(),
          (error: unknown) => this.deps.log.warn(`${this.folder.name}: reading the ledger failed: ${String(error)}`),
        );
      }, LEDGER_RELOAD_DEBOUNCE_MS);
    };
    this.disposables.push(watcher, watcher.onDidCreate(reload), watcher.onDidChange(reload));
  }

  private readExcludes(): void {
    const excludes = vscode.workspace.getConfiguration('files', this.folder.uri).get<Record<string, boolean>>('watcherExclude') ?? {};
    this.isTracked = trackedPathFilter(Object.entries(excludes).filter(([, on]) => on).map(([glob]) => glob));
  }

  private recordPath(relative: string, now: number): void {
    const issueId = this.focusedIssue();
    if (issueId === undefined) {
      this.unfocused.delete(relative);
      this.unfocused.set(relative, now);
      if (this.unfocused.size > UNFOCUSED_LIMIT) this.unfocused.delete(this.unfocused.keys().next().value as string);
      return;
    }
    this.store.record((state) => recordFileChange(state, issueId, relative, now));
  }

  /**
   * Files changed while nothing was focused go to the issue focused now, if they are recent: the
   * agent that edits and then claims does not lose its first edits. Older ones are dropped.
   */
  private attributeUnfocused(): void {
    const issueId = this.focusedIssue();
    if (issueId === undefined || this.unfocused.size === 0) return;
    const since = Date.now() - UNFOCUSED_KEEP_MS;
    const recent = [...this.unfocused].filter(([, time]) => time >= since);
    this.unfocused.clear();
    if (recent.length === 0) return;
    this.store.record((state) => recent.reduce((current, [relative, time]) => recordFileChange(current, issueId, relative, time), state));
  }

  /**
   * Created paths, looked at: a file is recorded; a new folder is listed, because the watcher may
   * report only the folder when files are written into it right after it was made (an agent's
   * `mkdir -p a/b && write a/b/c`). A path gone already was a temporary file: its delete event
   * says what there is to say.
   */
  private classifyCreated(): Promise<void> {
    const batch = [...this.created];
    this.created.clear();
    this.classifying = this.classifying.then(async () => {
      let budget = NEW_FOLDER_FILES_LIMIT;
      for (const [relative, time] of batch) {
        if (this.disposed) return;
        const info = await stat(path.join(this.rootPrefix, relative)).catch(() => undefined);
        if (!info) continue;
        if (!info.isDirectory()) {
          this.recordPath(relative, time);
          continue;
        }
        for (const file of await this.listFolder(relative, budget)) {
          budget -= 1;
          this.recordPath(file, time);
        }
      }
    }).catch((error: unknown) => this.deps.log.warn(`${this.folder.name}: looking at created files failed: ${String(error)}`));
    return this.classifying;
  }

  /** Tracked files under a folder (relative paths), breadth first, at most `limit`. */
  private async listFolder(relative: string, limit: number): Promise<string[]> {
    const files: string[] = [];
    const folders = [relative];
    while (folders.length > 0 && files.length < limit) {
      const folder = folders.shift() as string;
      const entries = await readdir(path.join(this.rootPrefix, folder), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const child = `${folder}/${entry.name}`;
        if (!this.isTracked(child)) continue;
        if (entry.isDirectory()) folders.push(child);
        else if (files.length < limit) files.push(child);
      }
    }
    return files;
  }

  private scheduleInProgressRefresh(delayMs = IN_PROGRESS_DEBOUNCE_MS): void {
    if (this.disposed) return;
    this.clearTimer('refreshTimer');
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refreshInProgress();
    }, delayMs);
  }

  private async queryInProgress(): Promise<void> {
    let issues: Issue[];
    try {
      issues = await this.currentProject.backend.listInProgress();
    } catch (error) {
      this.deps.log.warn(`${this.folder.name}: could not list the in-progress issues: ${errorMessage(error)}`);
      return;
    }
    if (this.disposed) return;
    this.inProgress = issues;
    const ids = issues.map((issue) => issue.id);
    if (reconcileFocus(this.store.state, ids, Date.now()) !== this.store.state) {
      await this.store.update((state) => reconcileFocus(state, ids, Date.now()));
    }
    this.attributeUnfocused();
    this.changed.fire();
    this.scheduleLink(0);
  }

  private clearTimer(name: 'refreshTimer' | 'linkTimer' | 'reloadTimer' | 'createdTimer'): void {
    const timer = this[name];
    if (timer !== undefined) clearTimeout(timer);
    this[name] = undefined;
  }
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
 * checkpoints) and the focus (for the sidebar and the status bar).
 */
export class ActivityTracker implements vscode.Disposable {
  private readonly folders = new Map<string, FolderActivity>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private syncing: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly deps: ActivityDeps) {
    this.disposables.push(
      this.changed,
      deps.projects.onDidChange(() => void this.sync()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.sync()),
      vscode.workspace.onDidSaveTextDocument((document) => this.folderOf(document.uri)?.noticeFile(document.uri)),
      vscode.window.onDidChangeWindowState((state) => {
        if (!state.focused) return;
        for (const folder of this.folders.values()) {
          void folder.store.reload();
          folder.scheduleLink(0);
        }
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => {
        if (!GIT_COMMIT_COMMAND.test(event.execution.commandLine.value)) return;
        const cwd = event.execution.cwd;
        const folders = cwd ? [this.folderOf(cwd)].filter((folder): folder is FolderActivity => folder !== undefined) : [...this.folders.values()];
        for (const folder of folders.length > 0 ? folders : this.folders.values()) folder.scheduleLink();
      }),
    );
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
    return [...this.folders.values()].find((folder) => path.resolve(folder.project.backend.root) === wanted || path.resolve(folder.folder.uri.fsPath) === wanted);
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

  dispose(): void {
    this.disposed = true;
    for (const folder of this.folders.values()) folder.dispose();
    this.folders.clear();
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
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
        continue;
      }
      const opened = await FolderActivity.open(folder, project, this.deps).catch((error: unknown) => {
        reportFailure(this.deps.log, `${folder.name}: activity tracking could not start`, error);
        return undefined;
      });
      if (!opened) continue;
      if (this.disposed) {
        opened.dispose();
        return;
      }
      this.folders.set(key, opened);
      // Not kept: closing the folder disposes its emitter, which drops this listener with it.
      opened.onDidChange(() => this.changed.fire());
    }
    this.changed.fire();
  }

  private listenToGitExtension(): void {
    const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitExtensionApi }>('vscode.git');
    if (!extension) return;
    const hint = (repository: GitExtensionRepository) => () => this.folderOf(repository.rootUri)?.scheduleLink();
    const follow = (repository: GitExtensionRepository) => {
      this.disposables.push(repository.state.onDidChange(hint(repository)));
      if (repository.onDidCommit) this.disposables.push(repository.onDidCommit(hint(repository)));
    };
    const unavailable = (error: unknown) => this.deps.log.info(`the git extension is not available (${String(error)}); the reflog alone links commits`);
    Promise.resolve(extension.isActive ? extension.exports : extension.activate()).then((exports) => {
      if (this.disposed) return;
      try {
        // getAPI throws while git is disabled (git.enabled false); the reflog works without it.
        const api = exports.getAPI(1);
        api.repositories.forEach(follow);
        this.disposables.push(api.onDidOpenRepository(follow));
      } catch (error) {
        unavailable(error);
      }
    }, unavailable);
  }
}
