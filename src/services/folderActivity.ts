import { readdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { storeFolderOf, type BeadsBackend } from '../beads/backend';
import { errorMessage } from '../core/errors';
import { isVolatileBeadsFile } from '../core/beadsFiles';
import { ledgerOf, reconcileFocus, recordFileChange, setFocus, trackedPathFilter, type Ledger, type LedgerState } from '../core/ledger';
import { missedFiles, recordMissedFiles, type DirtyBaseline, type DirtyFile } from '../core/missedFiles';
import type { Issue } from '../core/model';
import type { GitRepository } from '../git/repo';
import { gitStatus } from '../git/status';
import { CommitLinker, type CommitFocus } from './commitLinker';
import { ContentChanges } from './contentChanges';
import { Disposable, type Subscription, type Timers } from './disposable';
import { describeDamage } from './durableJson';
import { lastCloseBesideLedger, type LastCloseStore } from './lastClose';
import { LedgerStore, locateLedger } from './ledgerStore';
import { isOwnWrite, isUnchangedOwnWrite } from './ownWrites';

// File tracking and commit linking for one workspace folder that holds a beads project. File
// events become ledger transitions here; where the events come from (VS Code's file watchers) and
// what the time is are handed in, so that this runs, and is tested, without VS Code.

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
/** A file is read this long after its last event, so that a save's truncate-then-write is over. */
const CONTENT_SETTLE_MS = 150;
/** A file's event this soon after a save counted from its text is that save's own event. */
const SAVE_EVENT_MS = 5_000;
/** …or this little before it: the watcher may report the write a moment before the editor's save event. */
const SAVE_EVENT_EARLY_MS = 100;
/** Files changed while nothing is focused wait this long for a claim to attribute them to. */
const UNFOCUSED_KEEP_MS = 5 * 60_000;
const UNFOCUSED_LIMIT = 500;


/** What a file watcher reports, as absolute paths in the platform's form. */
export interface FileEvents {
  created?(file: string): void;
  changed?(file: string): void;
  deleted?(file: string): void;
}

/** Watches files; the adapter implements it with VS Code's file watchers. */
export interface FileWatchers {
  /** Reports events of the files under the absolute folder `base` that match the glob `pattern`. */
  watch(base: string, pattern: string, events: FileEvents): Subscription;
}

/** The time, and timers: the system's, or a test's. */
export interface Clock extends Timers {
  now(): number;
}

/** What a folder's project must offer: the backend that serves it. The adapter's Project carries more. */
export interface ActivityProject {
  readonly backend: BeadsBackend;
}

export interface FolderActivityOptions<P extends ActivityProject> {
  /** The workspace folder's name, for messages. */
  name: string;
  /** The workspace folder's path. */
  root: string;
  project: P;
  watchers: FileWatchers;
  clock: Clock;
  /** `files.watcherExclude`'s enabled globs when the folder opens (see `setWatcherExcludes`). */
  watcherExcludes: readonly string[];
  /** Where the ledger lives outside git (the extension's workspace storage); undefined: nowhere. */
  fallbackDir: string | undefined;
  /** For git. */
  timeoutMs: number;
  log: { info(message: string): void; warn(message: string): void };
  /** A damaged ledger file was read: what was kept, in words for the user. */
  onDamage: (message: string) => void;
}

/** The focus followed a newly claimed issue by itself. */
export interface FocusMove {
  from: string | undefined;
  to: string;
  title: string;
}

/** One workspace folder with a beads project: its ledger, its watchers, its commit linker. */
export class FolderActivity<P extends ActivityProject = ActivityProject> extends Disposable {
  private inProgress: Issue[] | undefined;
  private readonly unfocused = new Map<string, number>();
  /** Paths created since the last batch, with when: files or folders, not known until looked at. */
  private readonly created = new Map<string, number>();
  private classifying: Promise<void> = Promise.resolve();
  /** Paths with events whose content is still to be compared, with the time of their latest event. */
  private readonly toCompare = new Map<string, number>();
  /** Files whose last save was counted from its text, and when (see noticeSave). */
  private readonly countedBySave = new Map<string, number>();
  private comparing: Promise<void> = Promise.resolve();
  private compareQueued = false;
  private compareTimer: Subscription | undefined;
  private readonly contents: ContentChanges;
  private readonly listeners = new Set<() => void>();
  private readonly rootPrefix: string;
  private readonly ignoredPrefix: string | undefined;
  private isTracked: (relativePath: string) => boolean;
  private refreshTimer: Subscription | undefined;
  private linkTimer: Subscription | undefined;
  private reloadTimer: Subscription | undefined;
  private createdTimer: Subscription | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private reconciling: Promise<void> = Promise.resolve();
  private reconcileQueued = false;
  /** Where the folder sits in its work tree, as porcelain paths start (`sub/dir/`, or '' at the top). */
  private porcelainPrefix: Promise<string> | undefined;
  /** What the last reconciliation with `git status` saw, for the next one. */
  private dirtyBaseline: DirtyBaseline | undefined;
  private currentProject: P;
  protected override readonly timers: Clock;

  /** Undefined outside git: files are tracked, commits are not linked. */
  readonly linker: CommitLinker | undefined;
  /** The last close made here and not followed up yet, beside the ledger (see core/next.ts `nextFor`). */
  readonly lastClose: LastCloseStore;
  private readonly focusMoves = new Set<(move: FocusMove) => void>();
  /** Claims made in this window: the focus moving to them says nothing (the claim said it already). */
  private readonly ownClaims = new Set<string>();

  private constructor(
    private readonly options: FolderActivityOptions<P>,
    readonly store: LedgerStore,
    private readonly repository: GitRepository | undefined,
    linkerFor: ((activity: FolderActivity<P>) => CommitLinker) | undefined,
  ) {
    super();
    this.timers = options.clock;
    this.currentProject = options.project;
    this.isTracked = trackedPathFilter([...options.watcherExcludes]);
    this.linker = linkerFor?.(this);
    this.rootPrefix = options.root.endsWith(path.sep) ? options.root : `${options.root}${path.sep}`;
    // Outside git the ledger lives in workspace storage, which a user may have put in the folder.
    this.ignoredPrefix = this.linker ? undefined : path.dirname(store.file) + path.sep;
    this.lastClose = lastCloseBesideLedger(store.file);
    this.contents = new ContentChanges({
      root: options.root,
      inGit: repository !== undefined,
      timeoutMs: options.timeoutMs,
      log: (message) => options.log.warn(`${options.name}: ${message}`),
    });
  }

  /** Opens the folder's ledger and starts watching; undefined when the ledger has no place to live. */
  static async open<P extends ActivityProject>(options: FolderActivityOptions<P>): Promise<FolderActivity<P> | undefined> {
    const { name, log } = options;
    const location = await locateLedger(options.root, options.fallbackDir, { timeoutMs: options.timeoutMs });
    if (!location) {
      log.warn(`${name}: no place to keep the activity ledger (not a git repository and no workspace storage); activity is not tracked`);
      return undefined;
    }
    const store = new LedgerStore(location.file, {
      log: (message) => log.warn(`${name}: ${message}`),
      onDamage: (report) => options.onDamage(describeDamage('activity ledger', report)),
    });
    await store.load();
    const repository = location.repository;
    const linkerFor = repository
      ? (activity: FolderActivity<P>) =>
          new CommitLinker({
            store,
            repository,
            focus: () => activity.commitFocus(),
            now: () => options.clock.now(),
            git: { timeoutMs: options.timeoutMs },
            log: (message) => log.warn(`${name}: ${message}`),
          })
      : undefined;
    const activity = new FolderActivity(options, store, repository, linkerFor);
    activity.start();
    const linking = activity.linker ? `; commits linked from ${activity.linker.reflogFile}` : '; not a git repository, commits are not linked';
    log.info(`${name}: activity ledger at ${location.file}${linking}`);
    return activity;
  }

  get name(): string {
    return this.options.name;
  }

  /** The workspace folder's path. */
  get root(): string {
    return this.options.root;
  }

  get project(): P {
    return this.currentProject;
  }

  /** Detection ran again (settings, trust, PATH): the same folder, maybe another backend. */
  setProject(project: P): void {
    this.currentProject = project;
    this.scheduleInProgressRefresh(0);
  }

  /** `files.watcherExclude`'s enabled globs: excluded paths are not the user's work. */
  setWatcherExcludes(globs: readonly string[]): void {
    this.isTracked = trackedPathFilter([...globs]);
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
    return id === undefined ? undefined : ledgerOf(this.store.state, id);
  }

  get state(): LedgerState {
    return this.store.state;
  }

  /** This window is claiming `issueId`: the focus following it is no surprise. */
  expectClaim(issueId: string): void {
    this.ownClaims.add(issueId);
  }

  /** The focus moved by itself to an issue claimed outside this window (a terminal, an agent): the user is told. */
  onDidMoveFocus(listener: (move: FocusMove) => void): Subscription {
    this.focusMoves.add(listener);
    return { dispose: () => this.focusMoves.delete(listener) };
  }

  onDidChange(listener: () => void): Subscription {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The user picked the issue to attribute work to (or, with `pinned` false, let it follow the most recently updated). */
  async focus(issueId: string | undefined, pinned = true): Promise<void> {
    await this.store.update((state) => {
      const now = this.timers.now();
      const chosen = setFocus(state, issueId, now, pinned);
      return pinned ? chosen : reconcileFocus(chosen, (this.inProgress ?? []).map((issue) => issue.id), now);
    });
    this.attributeUnfocused();
    this.fireChanged();
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

  /** Everything gathered in memory written, files the watcher missed taken from git status, the reflog read, the in-progress issues current: before a checkpoint, a recovery or a close, for tests and before shutdown. */
  async flush(): Promise<void> {
    if (this.createdTimer !== undefined) {
      this.createdTimer = this.cancel(this.createdTimer);
      await this.classifyCreated();
    }
    await this.classifying;
    this.compareTimer = this.cancel(this.compareTimer);
    this.compareNow();
    await this.comparing;
    if (this.refreshTimer !== undefined || this.refreshing) {
      this.refreshTimer = this.cancel(this.refreshTimer);
      await this.refreshInProgress();
    }
    // The watcher can drop events (seen in code-server: a whole folder an agent wrote, never
    // reported); what a checkpoint, a recovery or a close names must not depend on it.
    await this.reconcileWithGit();
    if (this.linker) {
      this.linkTimer = this.cancel(this.linkTimer);
      await this.linker.check();
    }
    await this.store.flush();
  }

  /** Reads the reflog soon; hints from anywhere end here. */
  scheduleLink(delayMs = LINK_DEBOUNCE_MS): void {
    if (!this.linker) return;
    this.cancel(this.linkTimer);
    this.linkTimer = this.setTimeout(() => {
      this.linkTimer = undefined;
      this.linker?.check().then(
        (outcome) => {
          if (outcome.linked.length > 0) this.options.log.info(`${this.name}: ${outcome.linked.join('; ')}`);
        },
        (error: unknown) => this.options.log.warn(`${this.name}: reading the reflog failed: ${errorMessage(error)}`),
      );
    }, delayMs);
  }

  /** The ledger file changed on disk (another window, the command line): read it soon. */
  scheduleReload(): void {
    this.cancel(this.reloadTimer);
    this.reloadTimer = this.setTimeout(() => {
      this.reloadTimer = undefined;
      void this.store.reload().then(
        () => this.attributeUnfocused(),
        (error: unknown) => this.options.log.warn(`${this.name}: reading the ledger failed: ${errorMessage(error)}`),
      );
    }, LEDGER_RELOAD_DEBOUNCE_MS);
  }

  /**
   * A file event or a save, by absolute path. The hot path: string work only; the content is
   * compared in a batch right after (an edit is a change of content), and a created path waits a
   * moment in a batch, to be told apart from a new folder.
   */
  /**
   * An editor save: judged at once from the document's text, so each save that changes the file
   * is one edit however fast they come; the file's own event is then judged only to remember its
   * bytes. The first save of a file is judged on the file, against git, like any event.
   */
  noticeSave(fsPath: string, text: string): void {
    const relative = this.trackedPath(fsPath);
    if (relative === undefined) return;
    const now = this.timers.now();
    // Its own file events are not judged again (see compareNow).
    this.countedBySave.set(relative, now);
    const changed = this.contents.judgeSave(relative, text);
    if (changed === true) this.recordEdit(relative, now, true);
    if (changed !== undefined) return;
    // The first save of the file here: judged on the file, against git, at once.
    this.comparing = this.comparing
      .then(async () => {
        if ((await this.contents.changed([relative])).has(relative)) this.recordEdit(relative, now, true);
      })
      .catch((error: unknown) => this.options.log.warn(`${this.name}: comparing a saved file failed: ${errorMessage(error)}`));
  }

  /** The path relative to the folder when its events count as work; undefined for beads' files and what is not tracked. */
  private trackedPath(fsPath: string): string | undefined {
    if (!fsPath.startsWith(this.rootPrefix)) return undefined;
    const relative = path.sep === '/' ? fsPath.slice(this.rootPrefix.length) : fsPath.slice(this.rootPrefix.length).replace(/\\/g, '/');
    if (relative.startsWith('.beads/') || (this.storeInFolder !== undefined && relative.startsWith(`${this.storeInFolder}/`))) return undefined;
    if (!this.isTracked(relative) || (this.ignoredPrefix !== undefined && fsPath.startsWith(this.ignoredPrefix)) || isOwnWrite(fsPath, this.timers.now())) return undefined;
    return relative;
  }

  noticeFile(fsPath: string, created = false): void {
    if (!fsPath.startsWith(this.rootPrefix)) return;
    const relative = path.sep === '/' ? fsPath.slice(this.rootPrefix.length) : fsPath.slice(this.rootPrefix.length).replace(/\\/g, '/');
    const store = this.storeInFolder;
    if (store !== undefined && relative.startsWith(`${store}/`)) {
      if (!isVolatileBeadsFile(relative.slice(store.length + 1))) this.scheduleInProgressRefresh();
      return;
    }
    if (relative.startsWith('.beads/')) return;
    const now = this.timers.now();
    if (!this.isTracked(relative) || (this.ignoredPrefix !== undefined && fsPath.startsWith(this.ignoredPrefix)) || isOwnWrite(fsPath, now)) return;
    if (!created) {
      this.recordPath(relative, now);
      return;
    }
    this.created.set(relative, now);
    this.createdTimer ??= this.setTimeout(() => {
      this.createdTimer = undefined;
      void this.classifyCreated();
    }, CREATED_SETTLE_MS);
  }

  /**
   * Records what `git status` shows as changed and the ledger never heard of (a missed watcher
   * event), by the rules of `missedFiles`: only for the focused in-progress issue, only work done
   * while it was focused. Outside git there is nothing to compare with. Coalesced: one runs, one waits.
   */
  reconcileWithGit(): Promise<void> {
    if (!this.repository || this.reconcileQueued || this.disposed) return this.reconciling;
    this.reconcileQueued = true;
    this.reconciling = this.reconciling
      .then(() => {
        this.reconcileQueued = false;
        return this.reconcileNow();
      })
      .catch((error: unknown) => this.options.log.warn(`${this.name}: comparing the ledger with git status failed: ${errorMessage(error)}`));
    return this.reconciling;
  }

  /** Commits wait for the in-progress issues to be known: a comment on the wrong issue cannot be taken back. */
  commitFocus(): CommitFocus {
    return this.inProgress === undefined ? { known: false } : { known: true, issueId: this.store.state.focusedId };
  }

  override dispose(): void {
    // Best effort on shutdown: what the last burst gathered is written before the store lets go.
    void this.close();
  }

  /** Stops watching and writes what the store still holds. */
  async close(): Promise<void> {
    if (this.disposed) return;
    super.dispose();
    this.listeners.clear();
    this.focusMoves.clear();
    try {
      // Events already noticed are still judged and recorded: the store is open until the flush.
      this.compareTimer = undefined;
      this.compareNow();
      await this.comparing;
      await this.store.flush();
    } finally {
      this.store.dispose();
    }
  }

  /** The store folder (as detection found it) relative to this folder, `/`-separated, when it is inside it. */
  private get storeInFolder(): string | undefined {
    const relative = path.relative(this.options.root, storeFolderOf(this.currentProject.backend));
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  private start(): void {
    const { watchers } = this.options;
    this.register(
      watchers.watch(this.options.root, '**/*', {
        created: (file) => this.noticeFile(file, true),
        changed: (file) => this.noticeFile(file),
        deleted: (file) => this.noticeFile(file),
      }),
    );
    this.register(this.store.onDidChange(() => this.fireChanged()));
    if (this.storeInFolder === undefined) {
      const notice = (file: string) => {
        if (!isVolatileBeadsFile(file)) this.scheduleInProgressRefresh();
      };
      this.register(watchers.watch(storeFolderOf(this.currentProject.backend), '**/*', { created: notice, changed: notice, deleted: notice }));
    }
    if (this.linker) {
      // Not subject to files.watcherExclude, and works for a git dir outside the folder (worktrees).
      const reflog = this.linker.reflogFile;
      const hint = () => this.scheduleLink();
      this.register(watchers.watch(path.dirname(reflog), path.basename(reflog), { created: hint, changed: hint }));
    }
    const reload = () => this.scheduleReload();
    this.register(watchers.watch(path.dirname(this.store.file), path.basename(this.store.file), { created: reload, changed: reload }));
    void this.refreshInProgress();
  }

  /**
   * An event on a tracked path: it becomes an edit only if the file's content changed (see
   * ContentChanges). Paths are compared in batches, one after the other, so a burst of events
   * costs one read per file and at most one git process.
   */
  private recordPath(relative: string, now: number): void {
    if (this.disposed) return;
    this.toCompare.delete(relative);
    this.toCompare.set(relative, now);
    // A save truncates, then writes: read once the burst is over, never a half-written file.
    this.compareTimer ??= this.setTimeout(() => {
      this.compareTimer = undefined;
      this.compareNow();
    }, CONTENT_SETTLE_MS);
  }

  /** Compares the paths gathered so far (see recordPath); one batch at a time. */
  private compareNow(): void {
    if (this.compareQueued || this.toCompare.size === 0) return;
    this.compareQueued = true;
    this.comparing = this.comparing
      .then(async () => {
        this.compareQueued = false;
        const batch = [...this.toCompare];
        this.toCompare.clear();
        const changed = await this.contents.changed(batch.map(([file]) => file));
        for (const [file, time] of batch) {
          // The events of saves just counted from their text (noticeSave) are not second edits.
          const savedAt = this.countedBySave.get(file);
          if (savedAt !== undefined && time - savedAt > SAVE_EVENT_MS) this.countedBySave.delete(file);
          const ownEvent = savedAt !== undefined && time >= savedAt - SAVE_EVENT_EARLY_MS && time - savedAt <= SAVE_EVENT_MS;
          if (!changed.has(file) || ownEvent) continue;
          this.contents.forgetSave(file);
          // Judged a change of content: an edit of its own, even moments before a save counted from its text.
          this.recordEdit(file, time, true);
        }
      })
      .catch((error: unknown) => this.options.log.warn(`${this.name}: comparing changed files failed: ${errorMessage(error)}`));
  }

  private recordEdit(relative: string, now: number, judged = false): void {
    const issueId = this.focusedIssue();
    if (issueId === undefined) {
      this.unfocused.delete(relative);
      this.unfocused.set(relative, now);
      if (this.unfocused.size > UNFOCUSED_LIMIT) this.unfocused.delete(this.unfocused.keys().next().value as string);
      return;
    }
    this.store.record((state) => recordFileChange(state, issueId, relative, now, { judged }));
  }

  /**
   * Files changed while nothing was focused go to the issue focused now, if they are recent: the
   * agent that edits and then claims does not lose its first edits. Older ones are dropped.
   */
  private attributeUnfocused(): void {
    const issueId = this.focusedIssue();
    if (issueId === undefined || this.unfocused.size === 0) return;
    const since = this.timers.now() - UNFOCUSED_KEEP_MS;
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
    }).catch((error: unknown) => this.options.log.warn(`${this.name}: looking at created files failed: ${errorMessage(error)}`));
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
    this.cancel(this.refreshTimer);
    this.refreshTimer = this.setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refreshInProgress();
    }, delayMs);
  }

  private async queryInProgress(): Promise<void> {
    let issues: Issue[];
    try {
      issues = await this.currentProject.backend.listInProgress();
    } catch (error) {
      this.options.log.warn(`${this.name}: could not list the in-progress issues: ${errorMessage(error)}`);
      return;
    }
    if (this.disposed) return;
    const before = this.inProgress;
    this.inProgress = issues;
    const ids = issues.map((issue) => issue.id);
    const focusedBefore = this.store.state.focusedId;
    if (reconcileFocus(this.store.state, ids, this.timers.now()) !== this.store.state) {
      await this.store.update((state) => reconcileFocus(state, ids, this.timers.now()));
    }
    const focusedNow = this.store.state.focusedId;
    // Only a claim seen while watching moves the focus "by itself": not the first answer after opening.
    const claimedHere = focusedNow !== undefined && this.ownClaims.delete(focusedNow);
    if (before !== undefined && !claimedHere && focusedNow !== undefined && focusedNow !== focusedBefore && !before.some((issue) => issue.id === focusedNow)) {
      const move: FocusMove = { from: focusedBefore, to: focusedNow, title: issues.find((issue) => issue.id === focusedNow)?.title ?? '' };
      for (const listener of [...this.focusMoves]) listener(move);
    }
    this.attributeUnfocused();
    this.fireChanged();
    this.scheduleLink(0);
    void this.reconcileWithGit();
  }

  private async reconcileNow(): Promise<void> {
    const issueId = this.focusedIssue();
    const repository = this.repository;
    if (!repository || issueId === undefined || this.disposed || !this.inProgress?.some((issue) => issue.id === issueId)) return;
    const changes = await gitStatus(this.options.root, { timeoutMs: this.options.timeoutMs });
    const prefix = await (this.porcelainPrefix ??= folderInWorkTree(repository.root, this.options.root));
    const dirty: DirtyFile[] = [];
    for (const change of changes) {
      if (!change.path.startsWith(prefix) || change.path.endsWith('/')) continue;
      const relative = change.path.slice(prefix.length);
      if (!this.isTracked(relative)) continue;
      const file = path.join(this.rootPrefix, ...relative.split('/'));
      // Whole milliseconds, as the ledger keeps time (file systems keep finer, and float rounding shows).
      const mtimeMs = (await stat(file).catch(() => undefined))?.mtimeMs;
      const modifiedMs = mtimeMs === undefined ? undefined : Math.round(mtimeMs);
      if (modifiedMs !== undefined && (isUnchangedOwnWrite(file, modifiedMs) || this.contents.isUnchangedSave(relative, modifiedMs))) continue;
      dirty.push(modifiedMs === undefined ? { path: relative } : { path: relative, modifiedMs });
    }
    const state = this.store.state;
    // The focus may have moved while git ran: the next refresh looks again.
    if (this.disposed || state.focusedId !== issueId) return;
    const missed = missedFiles({ issueId, ledger: ledgerOf(state, issueId), focusedAt: state.focusedAt, dirty, baseline: this.dirtyBaseline, now: this.timers.now() });
    this.dirtyBaseline = { issueId, focusedAt: state.focusedAt, paths: new Set(dirty.map((file) => file.path)) };
    if (missed.length === 0) return;
    // Seen now: the dropped event, should it still arrive, finds the same content and is no second edit.
    await this.contents.changed(missed.map((file) => file.path));
    if (this.disposed || this.store.state.focusedId !== issueId) return;
    this.options.log.info(`${this.name}: ${missed.length} changed ${missed.length === 1 ? 'file' : 'files'} the watcher missed, from git status: ${missed.slice(0, 5).map((file) => file.path).join(', ')}${missed.length > 5 ? ', …' : ''}`);
    this.store.record((current) => recordMissedFiles(current, issueId, missed));
  }

  private fireChanged(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Cancels a pending timer; returns undefined for the slot that held it. */
  private cancel(timer: Subscription | undefined): undefined {
    this.release(timer);
    return undefined;
  }
}

/** Porcelain paths are relative to the top of the work tree, which may hold the folder further down. */
async function folderInWorkTree(workTree: string, folder: string): Promise<string> {
  const relative = path.relative(workTree, await realpath(folder).catch(() => folder)).split(path.sep).join('/');
  return relative === '' ? '' : `${relative}/`;
}
