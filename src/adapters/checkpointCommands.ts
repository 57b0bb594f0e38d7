import * as path from 'node:path';
import * as vscode from 'vscode';
import { showInformationMessage, showWarningMessage } from './notify';
import { CliError } from '../beads/errors';
import { errorMessage } from '../core/errors';
import { lastNextStep, type AutoCheckpointTrigger } from '../core/checkpoint';
import { commentCommandIssueIds } from '../core/commandLine';
import { Checkpoints, markCheckpointsOnLanding, type CheckpointLedger } from '../services/checkpoints';
import { describeDamage } from '../services/durableJson';
import type { CloseOutcome } from '../services/closeFlow';
import { locateLedger } from '../services/ledgerStore';
import { runCheckpoint, type CheckpointFlowResult } from '../services/checkpointFlow';
import { describeMasked } from '../services/redaction';
import { Outbox, writeInWords, type FailedWrite } from '../services/outbox';
import { ledgerFallbackDir, type ActivityTracker, type FolderActivity } from './activity';
import { reportErrors, reportFailure } from './commandErrors';
import { Disposable } from '../services/disposable';
import { Commands } from './commandIds';
import { interactive } from './oneAtATime';
import { readSettings } from './config';
import type { IssueDetails } from '../core/model';
import { refusedWritesText, type ParkedWriteInput } from '../core/viewModel';
import type { FileWatchers } from '../services/folderActivity';
import { readOnlyWarning, type Project, type ProjectRegistry } from './projects';

// Checkpoints in VS Code: the outbox of each beads project, the "Checkpoint Now" and "Retry
// Pending Writes" commands, and the automatic checkpoints — before a recovery context, when
// the focused issue changes, when the window closes — plus the recognition of checkpoints made
// from a terminal.

/** How long a checkpoint command waits for its comment to land before saying it is queued. */
const CHECKPOINT_LAND_MS = 3_000;
/** How long a recovery context waits for pending writes, so that it reads them back from beads. */
const RECOVERY_FLUSH_MS = 3_000;
/** How long closing the window waits for its last checkpoint to be sent before leaving it queued. */
const SHUTDOWN_SEND_MS = 1_500;
/** A comment typed in a terminal ends a moment before the CLI's write is visible to `show`. */
const TERMINAL_HINT_DELAY_MS = 300;

/**
 * One outbox per beads project, kept beside the project's ledger (`<git-dir>/beads-recovery/`, or
 * the extension's workspace storage outside git). Outboxes open when detection finds a project
 * and follow its backend when detection runs again (a CLI installed later drains what waited).
 */
export class Outboxes extends Disposable {
  private readonly opened = new Map<string, Promise<Outbox | undefined>>();
  private readonly ready = new Map<string, Outbox>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private watchers: FileWatchers | undefined;
  private readonly followed = new Set<Outbox>();

  constructor(
    private readonly projects: ProjectRegistry,
    private readonly storageUri: vscode.Uri | undefined,
    private readonly log: vscode.LogOutputChannel,
    /** The ledger beside a project's outbox: a checkpoint this window lands is counted there. */
    private readonly ledgerOf: (project: Project) => CheckpointLedger | undefined,
  ) {
    super();
    this.register(projects.onDidChange(() => this.syncInBackground()));
  }

  /** The outbox of `project` once it is open; the commit linker waits while there is none. */
  get(project: Project): Outbox | undefined {
    return this.ready.get(project.folder.uri.toString());
  }

  /** The outbox of `project`, opening it if needed; undefined when it has no place to live. */
  open(project: Project): Promise<Outbox | undefined> {
    const key = project.folder.uri.toString();
    let opening = this.opened.get(key);
    if (!opening) {
      const created = this.create(project);
      this.opened.set(key, created);
      // A failed open (a damaged file, a lock it could not take) is tried again next time, not cached.
      created.catch(() => {
        if (this.opened.get(key) === created) this.opened.delete(key);
      });
      opening = created;
    }
    return opening.then((outbox) => {
      outbox?.setBackend(project.backend);
      return outbox;
    });
  }

  all(): Outbox[] {
    return [...this.ready.values()];
  }

  /** Writes still to be sent for a project, by its root (the sidebar) or its folder activity (the status bar). */
  pendingCount(target: string | { readonly project: Project }): number | undefined {
    return this.outboxOf(target)?.pendingCount;
  }

  /** The writes beads refused in a project, by its root (the sidebar) or its folder activity (the status bar). */
  parkedWrites(target: string | { readonly project: Project }): ParkedWriteInput[] | undefined {
    return this.outboxOf(target)?.failed.map(parkedInput);
  }

  private outboxOf(target: string | { readonly project: Project }): Outbox | undefined {
    if (typeof target !== 'string') return this.get(target.project);
    const wanted = path.resolve(target);
    return this.all().find((outbox) => path.resolve(outbox.root) === wanted);
  }

  /**
   * Follows each outbox file through the extension's watchers: a hook or the command line that
   * queues, lands or parks a write in the same file shows in this window at once.
   */
  watchWith(watchers: FileWatchers): void {
    this.watchers = watchers;
    for (const outbox of this.ready.values()) this.follow(outbox);
  }

  /**
   * Opens the outboxes of every folder that holds a beads project, with its current backend, and
   * sends what is due: detection ran again (a refresh, new settings, trust). A CLI that appeared
   * gets every queued write at once (Outbox.setBackend); the others keep their spacing.
   */
  async sync(): Promise<void> {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const project = await this.projects.project(folder);
      const outbox = project ? await this.open(project) : undefined;
      if (outbox && outbox.pendingCount > 0) await outbox.sendDue();
    }
  }

  /** `sync()` when nobody waits for it (activation, detection ran again): a failure is shown with the log. */
  syncInBackground(): void {
    this.sync().catch((error: unknown) => reportFailure(this.log, 'the outbox of beads writes could not be opened', error));
  }

  override dispose(): void {
    for (const outbox of this.ready.values()) outbox.dispose();
    super.dispose();
  }

  private async create(project: Project): Promise<Outbox | undefined> {
    const folder = project.folder;
    const settings = readSettings(folder.uri);
    // The same place FolderActivity keeps the ledger, so the two files sit side by side.
    const fallback = ledgerFallbackDir(this.storageUri, folder);
    const location = await locateLedger(folder.uri.fsPath, fallback, { timeoutMs: settings.cliTimeoutMs });
    if (!location) {
      this.log.warn(`${folder.name}: no place to keep the outbox of beads writes; writes go straight to the CLI`);
      return undefined;
    }
    const outbox = new Outbox({
      file: path.join(path.dirname(location.file), 'outbox.json'),
      root: project.backend.root,
      backend: project.backend,
      leaseStaleMs: Math.max(120_000, 3 * settings.cliTimeoutMs),
      log: (level, message) => this.log[level](`${folder.name}: ${message}`),
      onDamage: (report) => void showWarningMessage(`Beads: ${describeDamage('queue of beads writes', report)}`),
    });
    outbox.onDidChange(() => this.changed.fire());
    outbox.onDidPark((failed) => reportParked(failed));
    markCheckpointsOnLanding(outbox, () => this.ledgerOf(project));
    await outbox.load();
    if (this.disposed) {
      outbox.dispose();
      return undefined;
    }
    this.ready.set(folder.uri.toString(), outbox);
    this.follow(outbox);
    this.changed.fire();
    return outbox;
  }

  private follow(outbox: Outbox): void {
    if (!this.watchers || this.followed.has(outbox)) return;
    this.followed.add(outbox);
    const reload = () => outbox.reload().catch((error: unknown) => this.log.warn(`outbox: could not read ${outbox.file} again: ${errorMessage(error)}`));
    this.register(this.watchers.watch(path.dirname(outbox.file), path.basename(outbox.file), { created: reload, changed: reload }));
  }
}

/** A parked write as the views name it (core/viewModel.ts); a damaged entry still shows, with what it has. */
function parkedInput(failed: FailedWrite): ParkedWriteInput {
  const { write } = failed;
  const input: ParkedWriteInput = {
    key: write.key,
    issueId: write.issueId,
    kind: write.kind,
    refusedAt: typeof failed.failedAt === 'number' ? failed.failedAt : Number.NaN,
    reason: typeof failed.error === 'string' ? failed.error : '',
  };
  const words = write.kind === 'comment' ? write.text : write.kind === 'close' ? write.reason : undefined;
  if (typeof words === 'string') input.words = words;
  return input;
}

/**
 * A write that will never land is said once, with a way to see it and to try again; it stays in
 * the Beads view and the status bar until it is sent again or discarded.
 */
/** When each refused write was said by its notice (reportParked): a retry does not say it again. */
const parkNoticeAt = new Map<string, number>();
/** A park notice this recent is still in sight: a retry does not raise a second one about it. */
const PARK_NOTICE_FRESH_MS = 120_000;

function reportParked(failed: FailedWrite): void {
  parkNoticeAt.set(failed.write.key, Date.now());
  if (parkNoticeAt.size > 1000) parkNoticeAt.delete(parkNoticeAt.keys().next().value as string);
  const show = 'Show';
  const retry = 'Retry';
  const keys = [failed.write.key];
  void showWarningMessage(`Beads refused the ${writeInWords(failed.write)}; it waits in the Beads view until you retry or discard it: ${failed.error}`, retry, show)
    .then((choice) => {
      if (choice === show) void vscode.commands.executeCommand(Commands.showRefusedWrites, { keys });
      if (choice === retry) void vscode.commands.executeCommand(Commands.retryPendingWrites, { includeFailed: true, keys });
    });
}

/** What `beadsRecovery.checkpoint` accepts: an issue id (the sidebar passes one), or options (tests, agents). */
export type CheckpointArgument = string | { issueId?: string; message?: string } | undefined;

export interface CheckpointCommandResult {
  issueId: string;
  comment: string;
  state: 'written' | 'queued';
}

/** What the commands that write to beads (checkpoint, retry, claim, close) work with. */
export interface WorkDeps {
  projects: ProjectRegistry;
  outboxes: Outboxes;
  activity: ActivityTracker;
  log: vscode.LogOutputChannel;
  /** Told of every close that landed, so the sidebar keeps the same "next" offer until it is dismissed. */
  onClosed?: (outcome: CloseOutcome) => void;
  /** Told of every claim that landed: an after-close offer has then been taken up. */
  onClaimed?: (issueId: string) => void;
}

/** The checkpoint service of a folder: its outbox and its ledger. */
async function checkpointsFor(deps: WorkDeps, project: Project): Promise<{ checkpoints: Checkpoints; outbox: Outbox; folder: FolderActivity } | undefined> {
  const folder = deps.activity.forProject(project);
  const outbox = await deps.outboxes.open(project);
  if (!folder || !outbox) return undefined;
  return { checkpoints: new Checkpoints({ queue: outbox, ledger: folder.store }), outbox, folder };
}

/**
 * Automatic checkpoints. Only when there is something new since the last checkpoint; the
 * write is keyed by the activity's fingerprint, so one state is never written twice.
 */
export class AutoCheckpoints extends Disposable {
  private readonly focused = new Map<string, string | undefined>();

  constructor(private readonly deps: WorkDeps) {
    super();
    this.register(deps.activity.onDidChange(() => void this.noticeFocusChanges()));
    this.register(
      vscode.window.onDidEndTerminalShellExecution((event) => {
        if (event.exitCode !== 0) return;
        const ids = commentCommandIssueIds(event.execution.commandLine.value);
        if (ids.length === 0) return;
        const cwd = event.execution.cwd;
        this.setTimeout(() => void this.noticeTerminalComments(ids, cwd), TERMINAL_HINT_DELAY_MS);
      }),
    );
  }

  /**
   * Before a recovery context: checkpoint what is new and let the outbox land it (bounded). Never
   * throws: a context without the latest checkpoint is better than none.
   */
  async beforeRecovery(project: Project, signal?: AbortSignal): Promise<void> {
    try {
      const found = await checkpointsFor(this.deps, project);
      if (!found || project.backend.readOnly) return;
      await found.folder.flush();
      const issueId = found.folder.focusedIssue();
      if (issueId === undefined) return;
      const result = await autoCheckpoint(project, found.outbox, found.folder, 'before-recovery', issueId, RECOVERY_FLUSH_MS, signal);
      this.logOutcome(project, 'before-recovery', result);
      // The context is read from beads: what else waits in the queue lands first, within the same bound.
      const bound = AbortSignal.timeout(RECOVERY_FLUSH_MS);
      await found.outbox.drain(signal ? AbortSignal.any([signal, bound]) : bound);
    } catch (error) {
      if (!(error instanceof CliError && error.kind === 'canceled')) this.deps.log.warn(`${project.folder.name}: automatic checkpoint before recovery failed: ${errorMessage(error)}`);
    }
  }

  /**
   * The window is closing: checkpoint each folder's focused issue, durably queued. The outbox
   * sends it now if there is time, or on the next start (any window, or the command line).
   */
  async onShutdown(): Promise<void> {
    await Promise.all(
      this.deps.activity.all().map(async (folder) => {
        const outbox = this.deps.outboxes.get(folder.project);
        const issueId = folder.focusedIssue();
        if (!outbox || issueId === undefined || folder.project.backend.readOnly) return;
        await folder.store.flush();
        this.logOutcome(folder.project, 'shutdown', await autoCheckpoint(folder.project, outbox, folder, 'shutdown', issueId, 0));
        // A moment to send it (and whatever else waits) now; if the process is gone first, it is on disk for the next start.
        if (outbox.pendingCount > 0) await outbox.drain(AbortSignal.timeout(SHUTDOWN_SEND_MS));
      }),
    );
  }

  /** The focused issue changed: the one left behind gets a checkpoint of what was done on it. */
  private async noticeFocusChanges(): Promise<void> {
    for (const folder of this.deps.activity.all()) {
      const key = folder.project.folder.uri.toString();
      const now = folder.focusedIssue();
      const before = this.focused.get(key);
      this.focused.set(key, now);
      if (before === undefined || before === now || folder.project.backend.readOnly) continue;
      const outbox = this.deps.outboxes.get(folder.project);
      if (!outbox) continue;
      try {
        this.logOutcome(folder.project, 'issue-switch', await autoCheckpoint(folder.project, outbox, folder, 'issue-switch', before, 0));
      } catch (error) {
        this.deps.log.warn(`${folder.name}: automatic checkpoint of ${before} failed: ${errorMessage(error)}`);
      }
    }
  }

  /** A refresh loaded the focused issue: a comment someone else wrote since the last checkpoint is one. */
  async noticeRefreshedIssue(project: Project, details: IssueDetails): Promise<void> {
    if (project.backend.readOnly) return;
    const found = await checkpointsFor(this.deps, project);
    if (found && (await found.checkpoints.noticeExternalCheckpoint(details))) {
      this.deps.log.info(`${project.folder.name}: a new comment on ${details.id} counts as a checkpoint`);
    }
  }

  /** `bd|br comments add <id>` ran in a terminal: a checkpoint made elsewhere resets the counters. */
  private async noticeTerminalComments(ids: readonly string[], cwd: vscode.Uri | undefined): Promise<void> {
    const folders = cwd ? [this.deps.activity.folderOf(cwd)].filter((folder): folder is FolderActivity => folder !== undefined) : [];
    for (const folder of folders.length > 0 ? folders : this.deps.activity.all()) {
      const found = await checkpointsFor(this.deps, folder.project);
      if (!found) continue;
      try {
        for (const details of await folder.project.backend.show(ids)) {
          if (await found.checkpoints.noticeExternalCheckpoint(details)) {
            this.deps.log.info(`${folder.name}: a comment on ${details.id} from a terminal counts as a checkpoint`);
          }
        }
      } catch (error) {
        if (!(error instanceof CliError && error.kind === 'canceled')) this.deps.log.warn(`${folder.name}: could not read ${ids.join(', ')} after a terminal comment: ${errorMessage(error)}`);
      }
    }
  }

  private logOutcome(project: Project, trigger: AutoCheckpointTrigger, result: CheckpointFlowResult): void {
    const name = project.folder.name;
    if (result.outcome === 'failed') this.deps.log.warn(`${name}: automatic checkpoint (${trigger}): ${result.reason}`);
    else if (result.outcome !== 'nothing-new') this.deps.log.info(`${name}: automatic checkpoint (${trigger}) ${result.outcome} as ${result.key}: ${result.reason}`);
    for (const note of result.notes) this.deps.log.info(`${name}: ${note}`);
    const masked = result.masked && describeMasked(result.masked);
    if (masked) this.deps.log.info(`${name}: automatic checkpoint (${trigger}): ${masked} before it went to beads`);
  }
}

/**
 * An automatic checkpoint of `issueId` through the one checkpoint flow, on the project this window
 * keeps open (its outbox and ledger): written only when there is something new, keyed by the
 * activity so one state is never written twice. `waitMs`: how long it may wait for beads to land
 * it before it answers "queued" (the outbox sends it later either way).
 */
export function autoCheckpoint(
  project: Project,
  outbox: Outbox,
  folder: FolderActivity,
  trigger: AutoCheckpointTrigger,
  issueId: string,
  waitMs: number,
  signal?: AbortSignal,
): Promise<CheckpointFlowResult> {
  return runCheckpoint(
    { ask: { trigger }, issueId, place: { kind: 'open', backend: project.backend, outbox, ledger: folder.store } },
    { signal, deadline: Date.now() + waitMs },
  );
}

export function registerCheckpointCommands(deps: WorkDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.checkpoint, (argument?: CheckpointArgument) =>
      // A person's Checkpoint Now (it asks) runs one at a time; a given message (an agent, a test) is not a press.
      typeof argument === 'object' && argument.message !== undefined
        ? reportErrors(deps.log, () => checkpointNow(deps, argument))
        : interactive.run('checkpoint', 'Checkpoint Now', () => reportErrors(deps.log, () => checkpointNow(deps, argument))),
    ),
    vscode.commands.registerCommand(Commands.retryPendingWrites, (argument?: { includeFailed?: boolean; keys?: unknown }) =>
      reportErrors(deps.log, () => retryPendingWrites(deps, argument?.includeFailed === true, writeKeys(argument))),
    ),
    ...registerRefusedWriteCommands(deps),
  ];
}

/** The refused writes an argument names (`{ keys }`: the view's row, a notification), or undefined: all of them. */
function writeKeys(argument: { keys?: unknown } | undefined): string[] | undefined {
  const keys = argument?.keys;
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : undefined;
}

const REFUSED_SCHEME = 'beads-refused';

/**
 * "Show Writes Beads Refused" (the words and beads' reason, in a read-only plain-text editor: they
 * are data, never markup) and "Discard Writes Beads Refused…" (after asking). Retry is Retry
 * Pending Writes with `includeFailed`: the writes go back to the outbox and its drainer sends them.
 */
function registerRefusedWriteCommands(deps: WorkDeps): vscode.Disposable[] {
  let shown = '';
  /** The writes the document shows (undefined: all of them), once it has been opened. */
  let shownKeys: { keys: string[] | undefined } | undefined;
  /** How many writes the document has shown since it was opened. */
  let shownWrites = 0;
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = { onDidChange: changed.event, provideTextDocumentContent: () => shown };
  const uri = vscode.Uri.from({ scheme: REFUSED_SCHEME, path: '/Writes beads refused.txt' });
  const render = (parked: readonly ParkedWriteInput[]) => {
    const keys = shownKeys?.keys;
    const wanted = parked.filter((write) => keys === undefined || keys.includes(write.key));
    // The titles of the issues in progress, as the folders last read them; other issues go by their id.
    const titles = new Map(deps.activity.all().flatMap((folder) => (folder.inProgressIssues ?? []).map((issue) => [issue.id, issue.title] as const)));
    shown = wanted.length === 0 && shownWrites > 0
      ? 'The writes shown here no longer wait: they were sent again and beads took them, or they were discarded.\n'
      : refusedWritesText(wanted, titles, Date.now());
    shownWrites = Math.max(shownWrites, wanted.length);
  };
  // Live: a write that lands, is discarded or is refused again changes the open document, and its ages move.
  const update = () => {
    if (!shownKeys || !vscode.workspace.textDocuments.some((document) => document.uri.toString() === uri.toString())) return;
    const before = shown;
    render(deps.outboxes.all().flatMap((outbox) => outbox.failed.map(parkedInput)));
    if (shown !== before) changed.fire(uri);
  };
  const clock = setInterval(update, 30_000);
  const show = async (keys: string[] | undefined) => {
    shownKeys = { keys };
    shownWrites = 0;
    render(await refusedWrites(deps));
    changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'plaintext');
    await vscode.window.showTextDocument(document, { preview: true });
  };
  return [
    changed,
    { dispose: () => clearInterval(clock) },
    deps.outboxes.onDidChange(update),
    vscode.workspace.registerTextDocumentContentProvider(REFUSED_SCHEME, provider),
    vscode.commands.registerCommand(Commands.showRefusedWrites, (argument?: { keys?: unknown }) => reportErrors(deps.log, () => show(writeKeys(argument)))),
    vscode.commands.registerCommand(Commands.discardRefusedWrites, (argument?: { keys?: unknown; confirm?: boolean }) =>
      reportErrors(deps.log, () => discardRefusedWrites(deps, writeKeys(argument), argument?.confirm !== false)),
    ),
  ];
}

/** Every refused write of the open projects, read from their files (a hook may have parked one). */
async function refusedWrites(deps: WorkDeps): Promise<ParkedWriteInput[]> {
  await deps.outboxes.sync();
  const outboxes = deps.outboxes.all();
  await Promise.all(outboxes.map((outbox) => outbox.reload()));
  return outboxes.flatMap((outbox) => outbox.failed.map(parkedInput));
}

/** Forgets refused writes after asking (their words are shown first on request); returns how many went. */
async function discardRefusedWrites(deps: WorkDeps, keys: string[] | undefined, ask: boolean): Promise<number> {
  const parked = (await refusedWrites(deps)).filter((write) => keys === undefined || keys.includes(write.key));
  if (parked.length === 0) {
    void showInformationMessage('Beads: no write beads refused is waiting.');
    return 0;
  }
  if (ask) {
    const discard = 'Discard';
    const show = 'Show Them First';
    const named = parked.length === 1 ? `the ${describeParked(parked[0]!)}` : `${parked.length} writes beads refused`;
    const choice = await showWarningMessage(
      `Discard ${named}?`,
      { modal: true, detail: 'Its words are not written to beads and are not kept. Retry sends a refused write again instead.' },
      discard,
      show,
    );
    if (choice === show) await vscode.commands.executeCommand(Commands.showRefusedWrites, keys === undefined ? undefined : { keys });
    if (choice !== discard) return 0;
  }
  const wanted = parked.map((write) => write.key);
  const discarded = await Promise.all(deps.outboxes.all().map((outbox) => outbox.discardFailed(wanted)));
  const count = sum(discarded);
  vscode.window.setStatusBarMessage(`$(trash) Beads: ${count} refused ${count === 1 ? 'write' : 'writes'} discarded`, 4000);
  return count;
}

function describeParked(write: ParkedWriteInput): string {
  return write.kind === 'comment' ? `comment on ${write.issueId}` : `${write.kind} of ${write.issueId}`;
}

/**
 * "Beads: Checkpoint Now": an input box pre-filled with the ledger's summary, then
 * `Checkpoint: <text>` on the focused issue. With `{ message }` it asks nothing (tests, agents).
 */
async function checkpointNow(deps: WorkDeps, argument: CheckpointArgument): Promise<CheckpointCommandResult | undefined> {
  const options = typeof argument === 'string' ? { issueId: argument } : (argument ?? {});
  const project = await deps.projects.pickProject();
  if (!project) {
    void showInformationMessage('Beads: no beads project in this workspace, so there is nothing to checkpoint.');
    return undefined;
  }
  return checkpointIn(deps, project, options);
}

/**
 * A checkpoint on `project`, which the caller chose: the command after its pick, an agent surface
 * without one. With a `message` it asks nothing.
 */
export async function checkpointIn(
  deps: WorkDeps,
  project: Project,
  options: { issueId?: string; message?: string; signal?: AbortSignal },
): Promise<CheckpointCommandResult | undefined> {
  if (project.backend.readOnly) {
    void showWarningMessage(readOnlyWarning(project));
    return undefined;
  }
  const found = await checkpointsFor(deps, project);
  if (!found) {
    void showWarningMessage('Beads: activity is not tracked in this folder, so checkpoints cannot be written here.');
    return undefined;
  }
  const { checkpoints, outbox, folder } = found;
  let issueId: string | undefined;
  let text: string | undefined;
  if (options.message !== undefined) {
    issueId = options.issueId ?? folder.focusedIssue() ?? (await project.backend.listInProgress())[0]?.id;
    text = options.message;
  } else {
    ({ issueId, text } = await askCheckpointText(options.issueId ?? folder.focusedIssue(), {
      inProgress: async () => (await project.backend.listInProgress())[0]?.id,
      suggestion: async (id, withLastNext) => {
        await folder.flush();
        return checkpoints.suggestion(id, withLastNext ? await lastNextOf(project, id, deps.log) : undefined);
      },
    }));
  }
  if (!issueId) {
    void showInformationMessage(`Beads: no issue is in progress. Claim one first (${project.cli} update --claim -- <id>, or Beads: Claim Issue…).`);
    return undefined;
  }
  if (text === undefined || text.trim() === '') return undefined;
  // The one checkpoint flow, on the project this window keeps open: its outbox and its ledger.
  const result = await runCheckpoint(
    { ask: { message: text }, issueId, place: { kind: 'open', backend: project.backend, outbox, ledger: folder.store } },
    { signal: options.signal, deadline: Date.now() + CHECKPOINT_LAND_MS },
  );
  // What was masked, never the values: the log, and the notification instead of the status bar's brief word.
  const masked = result.masked && describeMasked(result.masked);
  if (masked) deps.log.info(`checkpoint on ${issueId}: ${masked} before it went to beads`);
  if (result.outcome === 'written') {
    if (masked) void showInformationMessage(`Beads: checkpoint written on ${issueId}; ${masked} before it went to beads.`);
    else vscode.window.setStatusBarMessage(`$(check) Beads: checkpoint written on ${issueId}`, 4000);
  } else if (result.outcome === 'queued') {
    void showWarningMessage(`Beads: the checkpoint on ${issueId} is queued and will be written when beads answers (${pendingReason(outbox, result.key)})${masked ? `; ${masked} before it went to the queue` : ''}.`);
  } else {
    throw new Error(result.reason);
  }
  return { issueId, comment: result.comment ?? text, state: result.outcome };
}

const CHECKPOINT_PROMPT = 'What was done, and what is next? Written as a beads comment "Checkpoint: …".';

/**
 * Checkpoint Now's input box, shown at once: while the issue (when none is focused), the work
 * since the last checkpoint and the issue's last "Next:" load, it is busy and its prompt says what
 * it still reads; each pre-fill replaces the text only while the person has not changed it.
 * Resolves with the issue and the text, or no text when it was put away.
 */
async function askCheckpointText(
  knownIssue: string | undefined,
  load: { inProgress(): Promise<string | undefined>; suggestion(issueId: string, withLastNext: boolean): Promise<string> },
): Promise<{ issueId?: string; text?: string }> {
  const box = vscode.window.createInputBox();
  box.title = knownIssue ? `Checkpoint ${knownIssue}` : 'Checkpoint';
  box.ignoreFocusOut = true;
  box.busy = true;
  box.prompt = knownIssue ? `Reading the work on ${knownIssue} since its last checkpoint… ${CHECKPOINT_PROMPT}` : `Reading which issue is in progress… ${CHECKPOINT_PROMPT}`;
  let prefilled = '';
  const prefill = (suggestion: string) => {
    if (box.value !== prefilled) return;
    box.value = suggestion;
    prefilled = suggestion;
    // "Progress: …" with nothing recorded: typing replaces the ellipsis.
    const placeholder = suggestion.indexOf('…');
    if (placeholder >= 0) box.valueSelection = [placeholder, placeholder + 1];
  };
  const answer = new Promise<string | undefined>((resolve) => {
    box.onDidChangeValue(() => (box.validationMessage = undefined));
    box.onDidAccept(() => {
      if (box.value.trim() === '') {
        box.validationMessage = 'A checkpoint needs some text.';
        return;
      }
      resolve(box.value);
      box.hide();
    });
    box.onDidHide(() => resolve(undefined));
  });
  box.show();
  const loading = (async () => {
    const issueId = knownIssue ?? (await load.inProgress());
    if (!issueId) {
      box.hide();
      return undefined;
    }
    box.title = `Checkpoint ${issueId}`;
    prefill(await load.suggestion(issueId, false));
    box.prompt = `Reading ${issueId}'s last "Next:" from beads… ${CHECKPOINT_PROMPT}`;
    prefill(await load.suggestion(issueId, true));
    box.busy = false;
    box.prompt = CHECKPOINT_PROMPT;
    return issueId;
  })();
  try {
    const text = await answer;
    // Enter before the issue was known: it is known a moment later.
    const issueId = await loading;
    return text === undefined ? { issueId } : { issueId, text };
  } finally {
    box.dispose();
  }
}

/** The issue's last "Next:" from beads, for the checkpoint's pre-fill; none when beads cannot say now. */
async function lastNextOf(project: Project, issueId: string, log: vscode.LogOutputChannel): Promise<string | undefined> {
  try {
    const details = (await project.backend.show([issueId])).find((issue) => issue.id === issueId);
    return details ? lastNextStep(details.comments) : undefined;
  } catch (error) {
    log.debug(`checkpoint: could not read ${issueId}'s last Next: ${errorMessage(error)}`);
    return undefined;
  }
}

/**
 * "Beads: Retry Pending Writes": every queued write is tried now; parked ones on request (all, or
 * those of `keys`), sent by the outbox's drainer like any other.
 */
async function retryPendingWrites(deps: WorkDeps, includeFailed: boolean, keys?: readonly string[]): Promise<{ pending: number; failed: number }> {
  // A write refused during this retry (sync sends what is due too) has its own notice, with beads' reason.
  const started = Date.now();
  await deps.outboxes.sync();
  const outboxes = deps.outboxes.all();
  if (includeFailed) await Promise.all(outboxes.map((outbox) => outbox.requeueFailed(keys)));
  // A person asked: every queued write goes now, whatever its backoff said.
  await Promise.all(outboxes.map((outbox) => outbox.retryNow()));
  await Promise.all(outboxes.map((outbox) => outbox.drain(AbortSignal.timeout(CHECKPOINT_LAND_MS))));
  const pending = sum(outboxes.map((outbox) => outbox.pendingCount));
  const failed = sum(outboxes.map((outbox) => outbox.failedCount));
  // A refusal whose notice came during this retry or moments before it (the drainer's own try) is said already.
  const refusedNow = outboxes.flatMap((outbox) => outbox.failed);
  const stillRefused = refusedNow.filter((write) => (parkNoticeAt.get(write.write.key) ?? -Infinity) < started - PARK_NOTICE_FRESH_MS).length;
  if (!includeFailed && refusedNow.length > stillRefused) {
    vscode.window.setStatusBarMessage(`$(warning) Beads: ${countOf(refusedNow.length - stillRefused, 'write')} beads just refused ${refusedNow.length - stillRefused === 1 ? 'was' : 'were'} not sent again`, 5000);
  }
  const stillPending = pending > 0 ? `${countOf(pending, 'write')} still ${pending === 1 ? 'waits' : 'wait'} for beads (${pendingReason(outboxes.find((outbox) => outbox.pendingCount > 0))})` : undefined;
  if (pending === 0 && failed === 0) {
    vscode.window.setStatusBarMessage('$(check) Beads: every write has landed', 4000);
  } else if (stillRefused > 0 && !includeFailed) {
    const retry = 'Retry Them Too';
    const discard = 'Discard Them';
    const refused = `${stillRefused === 1 ? 'the write' : `the ${stillRefused} writes`} beads refused earlier ${stillRefused === 1 ? 'was' : 'were'} not sent again`;
    void showWarningMessage(`Beads: ${stillPending ? `${stillPending}; ` : ''}${refused}.`, retry, discard, 'Show Log')
      .then(async (choice) => {
        if (choice === retry) await vscode.commands.executeCommand(Commands.retryPendingWrites, { includeFailed: true });
        if (choice === discard) await vscode.commands.executeCommand(Commands.discardRefusedWrites);
        if (choice === 'Show Log') deps.log.show();
      });
  } else if (stillPending) {
    void showWarningMessage(`Beads: ${stillPending}.`);
  }
  // Else what was sent was refused (again): the outbox's park notice says so, once, with beads' reason.
  return { pending, failed };
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function pendingReason(outbox: Outbox | undefined, key?: string): string {
  const entry = outbox?.pending.find((candidate) => key === undefined || candidate.write.key === key);
  return entry?.lastError ?? 'beads did not answer in time';
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
