import * as path from 'node:path';
import * as vscode from 'vscode';
import { storeFolderOf } from '../beads/backend';
import { CliError } from '../beads/errors';
import type { CheckpointActivity } from '../core/checkpoint';
import type { GitChange } from '../core/porcelain';
import type { Section } from '../core/recovery';
import { markRefreshing, newestCommentAt, nextViewState, DEFAULT_LIMITS, type ParkedWriteInput, type SidebarInput } from '../core/viewModel';
import { NotGitRepositoryError } from '../git/runGit';
import { gitStatus } from '../git/status';
import { Disposable, type Subscription } from '../services/disposable';
import { isVolatileBeadsFile } from '../core/beadsFiles';
import { withdrawnReason } from '../core/cliVersions';
import type { FileWatchers } from '../services/folderActivity';
import { redactSnapshot } from '../services/redaction';
import { loadSnapshot, type ProjectSnapshot } from '../services/snapshot';
import type { IssueDetails, IssueSummary } from '../core/model';
import { lastCloseHolds, type LastClose } from '../core/next';
import type { LastCloseStore } from '../services/lastClose';
import type { ProjectInfo, SessionView, ViewState } from '../shared/protocol';
import { readSettings } from './config';
import { RefreshScheduler } from './refreshScheduler';
import { projectInfo, type Project, type ProjectRegistry } from './projects';
import { errorMessage } from '../core/errors';

/** What changed since the last refresh; each costs only its own queries. */
export type Change = 'beads' | 'git' | 'local';

/** The activity tracker, as far as the sidebar reads it. */
export interface SidebarSources {
  activity?: ActivitySource;
  outbox?: OutboxSource;
  checkpoints?: CheckpointSource;
  work?: WorkSource;
  /** The extension's file watchers (the activity tracker's): the view follows `.beads/` and git through them. */
  watchers?: FileWatchers;
  /** The agent sessions working in the project's folder (src/adapters/agentSessions.ts). */
  sessions?: (project: Project, inProgress: readonly { id: string; title: string }[], focusedId: string | undefined) => Promise<SessionView[]>;
}

/** Closes and claims, as far as the sidebar follows them: the after-close offer lives between the two. */
export interface WorkSource {
  readonly onDidClose: vscode.Event<{ closed: IssueSummary; unblocked: readonly IssueSummary[] }>;
  readonly onDidClaim: vscode.Event<string>;
}

export interface ActivitySource {
  /** The issue work is attributed to in the project at `root` (the user's pick, if any) and its ledger. */
  focus(root: string): { issueId?: string; ledger?: CheckpointActivity } | undefined;
  /** The project's last close not followed up yet, kept beside its ledger. */
  lastCloseOf?(root: string): LastCloseStore | undefined;
  readonly onDidChange: vscode.Event<unknown>;
}

/** The outbox of beads writes, as far as the sidebar reads it. */
export interface OutboxSource {
  pendingCount(root: string): number | undefined;
  /** The writes beads refused, kept until someone sends them again or discards them. */
  parkedWrites(root: string): ParkedWriteInput[] | undefined;
  readonly onDidChange: vscode.Event<unknown>;
}

/** Told of the focused issue's freshly loaded details: a comment made elsewhere may be a checkpoint. */
export interface CheckpointSource {
  noticeRefreshedIssue(project: Project, details: IssueDetails): Promise<void>;
}

/** Coalesces a burst of `.beads/` events (a CLI write touches several files) into one refresh. */
const BEADS_DEBOUNCE_MS = 300;
/** Git and ledger events come in long bursts while an agent works: `git status` runs at most this often. */
const LOCAL_DEBOUNCE_MS = 1000;
/** Relative times ("5m ago") are recomputed from the cached data this often while the view is visible. */
const CLOCK_TICK_MS = 60_000;

/**
 * Keeps the sidebar's ViewState current. Events only mark what changed (RefreshScheduler decides
 * when to run: never while the view is hidden, never two at once). A refresh runs the snapshot's
 * constant set of CLI calls only when beads data changed, `git status` only when the work tree
 * may have, and neither for ledger or outbox changes or the clock.
 */
export class SidebarRefresh extends Disposable {
  private state: ViewState = { kind: 'loading' };
  private readonly stateChanged = this.register(new vscode.EventEmitter<ViewState>());
  readonly onDidChangeState = this.stateChanged.event;
  private readonly scheduler = this.register(new RefreshScheduler<Change>((changes) => this.refreshOnce(changes)));
  private clock: Subscription | undefined;
  private readonly controller = new AbortController();
  private cache: { root: string; project: ProjectInfo; snapshot: ProjectSnapshot; uncommitted?: Section<GitChange[]> } | undefined;
  private focusRequest: string | undefined;
  private watched: { root: string; watches: Subscription } | undefined;
  private visible = false;
  /** The first refresh runs at activation, whether or not the view is open: the status bar reads its model too. */
  private loadedOnce = false;

  constructor(
    private readonly projects: ProjectRegistry,
    private readonly log: vscode.LogOutputChannel,
    private readonly sources: SidebarSources = {},
  ) {
    super();
    this.register({ dispose: () => this.controller.abort() });
    this.scheduler.invalidate(['beads', 'git', 'local'], 0);
    this.scheduler.setActive(true);
    this.registerAll(
      projects.onDidChange(() => this.invalidate(['beads', 'git', 'local'], 0)),
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (this.cache && isInside(document.uri, this.cache.root)) this.invalidate(['git'], LOCAL_DEBOUNCE_MS);
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) this.invalidate(['beads', 'git', 'local'], BEADS_DEBOUNCE_MS);
      }),
    );
    if (sources.activity) this.register(sources.activity.onDidChange(() => this.invalidate(['git', 'local'], LOCAL_DEBOUNCE_MS)));
    if (sources.work) {
      this.registerAll(
        sources.work.onDidClose(() => this.invalidate(['beads'], 0)),
        sources.work.onDidClaim(() => this.invalidate(['local'], 0)),
      );
    }
    if (sources.outbox) this.register(sources.outbox.onDidChange(() => this.invalidate(['local'], LOCAL_DEBOUNCE_MS)));
  }

  get current(): ViewState {
    return this.state;
  }

  /** The folder of the project on view, once one has loaded. */
  get root(): string | undefined {
    return this.cache?.root;
  }

  /**
   * When `issueId`'s last checkpoint was, as the model read it (the newest of its comments and its
   * ledger's checkpoints), for the status bar: `loaded: false` until the first refresh has
   * finished; undefined when the model is of another project or does not hold the issue.
   */
  checkpointsOf(root: string, issueId: string): { loaded: boolean; lastCheckpointAt?: number } | undefined {
    if (!this.loadedOnce) return { loaded: false };
    const details = this.cache?.root === root && this.cache.snapshot.details.ok ? this.cache.snapshot.details.value.find((issue) => issue.id === issueId) : undefined;
    if (!details) return undefined;
    const activity = this.state.kind === 'project' && this.state.model.focused?.issue.id === issueId ? this.state.model.activity : undefined;
    const at = Math.max(newestCommentAt(details) ?? -Infinity, activity?.lastCheckpointAt ?? -Infinity);
    return Number.isFinite(at) ? { loaded: true, lastCheckpointAt: at } : { loaded: true };
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.scheduler.setActive(visible || !this.loadedOnce);
    if (visible) {
      this.clock ??= this.setInterval(() => this.invalidate(['local'], 0), CLOCK_TICK_MS);
    } else {
      this.release(this.clock);
      this.clock = undefined;
    }
  }

  /** Marks `changes` and, when the view is visible, refreshes after `delayMs` (sooner requests win). */
  invalidate(changes: readonly Change[], delayMs: number): void {
    this.scheduler.invalidate(changes, delayMs);
  }

  /** The user put the after-close offer away: "next" is the best of the ready queue again, on every surface. */
  dismissNext(): void {
    const store = this.cache ? this.sources.activity?.lastCloseOf?.(this.cache.root) : undefined;
    if (!store) return;
    store.clear().then(
      () => this.invalidate(['local'], 0),
      (error: unknown) => this.log.warn(`could not forget the last close: ${errorMessage(error)}`),
    );
  }

  /** Focus another in-progress issue (when no activity tracker owns the focus). */
  focus(issueId: string): void {
    this.focusRequest = issueId;
    this.invalidate(['beads'], 0);
  }

  private async refreshOnce(changes: ReadonlySet<Change>): Promise<void> {
    try {
      await this.refreshModel(changes);
    } finally {
      if (!this.loadedOnce) {
        this.loadedOnce = true;
        // Loaded once: while the view is hidden, changes wait for it (each surface keeps its own counters meanwhile).
        this.scheduler.setActive(this.visible);
        this.stateChanged.fire(this.state);
      }
    }
  }

  private async refreshModel(changes: ReadonlySet<Change>): Promise<void> {
    const signal = this.controller.signal;
    try {
      const project = await this.projects.activeProject();
      if (!project) {
        this.cache = undefined;
        this.watch(undefined);
        const folders = vscode.workspace.workspaceFolders ?? [];
        this.publish(nextViewState(this.state, folders.length === 1 ? { kind: 'not-beads', folderName: folders[0]!.name } : { kind: 'not-beads' }));
        return;
      }
      const root = project.backend.root;
      this.watch(project);
      const info = projectInfo(project);
      const cached = this.cache?.root === root ? this.cache : undefined;
      const activity = this.sources.activity?.focus(root);
      const focusedId = activity?.issueId ?? this.focusRequest;
      // The tracker's focus moved to another in-progress issue: its tree needs that issue's context.
      const focusMoved = cached !== undefined && focusedId !== undefined && focusedId !== cached.snapshot.focusedId && isInProgress(cached.snapshot, focusedId);
      const needSnapshot = changes.has('beads') || !cached || focusMoved;
      const needGit = changes.has('git') || !cached;
      if (needSnapshot) this.publish(markRefreshing(this.state));
      const settings = readSettings(project.folder.uri);
      const [snapshot, uncommitted, cliVersion] = await Promise.all([
        needSnapshot ? this.loadSnapshot(project, focusedId, cached?.snapshot, signal) : cached!.snapshot,
        needGit ? this.gitStatus(root, settings.cliTimeoutMs, signal) : cached?.uncommitted,
        project.backend.version?.(),
      ]);
      // A withdrawn release says so where its version is shown.
      if (cliVersion) {
        info.cliVersion = cliVersion;
        if (withdrawnReason(project.cli, cliVersion)) info.cliWithdrawn = true;
      }
      this.cache = { root, project: info, snapshot, uncommitted };
      if (needSnapshot) this.noticeCheckpoints(project, snapshot);
      // Details two steps could not reach (a new focus's dependents, a deeper ancestor): the next
      // refresh asks for them alongside its lists. Only while that finds something new, so ids the
      // store does not know cannot keep it refreshing.
      if (needSnapshot && snapshot.incomplete && !sameIds(snapshot.contextIds, cached?.snapshot.contextIds)) this.invalidate(['beads'], 0);
      this.log.debug(`sidebar: refreshed (${[...changes].join(', ')})${needSnapshot ? ' with a beads snapshot' : ''}${needGit ? ' and git status' : ''}`);
      const lastClose = await this.lastClose(root, snapshot);
      // What the view shows passes the one redaction step (src/services/redaction.ts), as every context does.
      const shown = await redactSnapshot(snapshot, root);
      const input = this.input(shown, uncommitted, activity?.ledger, root, lastClose);
      const sessions = await this.sources.sessions?.(project, shown.inProgress.ok ? shown.inProgress.value : [], shown.focusedId).catch((error: unknown) => {
        this.log.warn(`could not list the agent sessions: ${errorMessage(error)}`);
        return undefined;
      });
      if (sessions) input.sessions = sessions;
      this.publish(nextViewState(this.state, { kind: 'loaded', project: info, input }));
    } catch (error) {
      if (error instanceof CliError && error.kind === 'canceled') return;
      const message = errorMessage(error);
      this.log.error(`sidebar refresh failed: ${message}`);
      this.publish(nextViewState(this.state, { kind: 'failed', project: this.cache?.project, message }));
    }
  }

  /** The last close while its offer holds; once something was claimed (here or in a terminal) it is forgotten. */
  private async lastClose(root: string, snapshot: ProjectSnapshot): Promise<LastClose | undefined> {
    const store = this.sources.activity?.lastCloseOf?.(root);
    const lastClose = await store?.read();
    if (!lastClose || !snapshot.inProgress.ok) return lastClose;
    if (lastCloseHolds(lastClose, snapshot.inProgress.value.map((issue) => issue.id))) return lastClose;
    await store?.clear().catch((error: unknown) => this.log.warn(`could not forget the last close: ${errorMessage(error)}`));
    return undefined;
  }

  private noticeCheckpoints(project: Project, snapshot: ProjectSnapshot): void {
    const focused = snapshot.details.ok ? snapshot.details.value.find((issue) => issue.id === snapshot.focusedId) : undefined;
    if (!focused || !this.sources.checkpoints) return;
    this.sources.checkpoints.noticeRefreshedIssue(project, focused).catch((error: unknown) => {
      this.log.warn(`could not compare ${focused.id}'s comments with its ledger: ${errorMessage(error)}`);
    });
  }

  private async loadSnapshot(project: Project, focusedId: string | undefined, previous: ProjectSnapshot | undefined, signal: AbortSignal): Promise<ProjectSnapshot> {
    return loadSnapshot(project.backend, {
      focusedId,
      // What the last refresh needed is shown alongside the lists: most refreshes take one step.
      hints: previous?.contextIds,
      alwaysReady: true,
      readyDetails: DEFAULT_LIMITS.ready,
      ancestors: true,
      signal,
    });
  }

  /** Undefined outside a git repository: the view then has no uncommitted section. */
  private async gitStatus(root: string, timeoutMs: number, signal: AbortSignal): Promise<Section<GitChange[]> | undefined> {
    try {
      return { ok: true, value: await gitStatus(root, { timeoutMs, signal }) };
    } catch (error) {
      if (error instanceof NotGitRepositoryError) return undefined;
      if (error instanceof CliError && error.kind === 'canceled') throw error;
      return { ok: false, error: errorMessage(error) };
    }
  }

  private input(snapshot: ProjectSnapshot, uncommitted: Section<GitChange[]> | undefined, ledger: CheckpointActivity | undefined, root: string, lastClose: LastClose | undefined): SidebarInput {
    const input: SidebarInput = {
      inProgress: snapshot.inProgress,
      ready: snapshot.ready,
      details: snapshot.details,
      focusedId: snapshot.focusedId,
      now: Date.now(),
    };
    if (uncommitted) input.uncommitted = uncommitted;
    if (ledger) input.activity = ledger;
    const pendingWrites = this.sources.outbox?.pendingCount(root);
    if (pendingWrites !== undefined) input.pendingWrites = pendingWrites;
    const parkedWrites = this.sources.outbox?.parkedWrites(root);
    if (parkedWrites) input.parkedWrites = parkedWrites;
    if (lastClose) input.lastClose = lastClose;
    return input;
  }

  /** Watches the shown project's `.beads/` and git state; a different project moves the watchers. */
  private watch(project: Project | undefined): void {
    const root = project?.backend.root;
    if (this.watched?.root === root) return;
    this.release(this.watched?.watches);
    this.watched = undefined;
    const watchers = this.sources.watchers;
    if (!project || !root || !watchers) return;
    const beadsDir = storeFolderOf(project.backend);
    const onBeads = (file: string) => {
      if (!isVolatileBeadsFile(path.relative(beadsDir, file))) this.invalidate(['beads'], BEADS_DEBOUNCE_MS);
    };
    // Simple patterns in the git dir are watched without recursion (and without files.watcherExclude).
    const onGit = () => this.invalidate(['git'], LOCAL_DEBOUNCE_MS);
    const watches = [
      watchers.watch(beadsDir, '**/*', { created: onBeads, changed: onBeads, deleted: onBeads }),
      watchers.watch(path.join(root, '.git'), '{index,HEAD}', { created: onGit, changed: onGit, deleted: onGit }),
      watchers.watch(path.join(root, '.git', 'logs'), 'HEAD', { created: onGit, changed: onGit }),
    ];
    this.watched = { root, watches: this.register({ dispose: () => watches.forEach((watch) => watch.dispose()) }) };
  }

  private publish(state: ViewState): void {
    if (state === this.state) return;
    this.state = state;
    this.stateChanged.fire(state);
  }

  private registerAll(...items: Subscription[]): void {
    for (const item of items) this.register(item);
  }
}

function isInProgress(snapshot: ProjectSnapshot, issueId: string): boolean {
  return snapshot.inProgress.ok && snapshot.inProgress.value.some((issue) => issue.id === issueId);
}

function isInside(uri: vscode.Uri, root: string): boolean {
  const rootPath = vscode.Uri.file(root).path;
  return uri.scheme === 'file' && (uri.path === rootPath || uri.path.startsWith(`${rootPath}/`));
}

function sameIds(a: readonly string[], b: readonly string[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((id, index) => id === b[index]);
}

