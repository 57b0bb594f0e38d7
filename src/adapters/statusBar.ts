import * as vscode from 'vscode';
import { showWarningMessage } from './notify';
import { filesByEdits, ledgerOf } from '../core/ledger';
import { inlineCode, inlineText } from '../core/markdown';
import {
  EMPTY_NUDGE_MEMORY,
  checkpointDue,
  dueNotified,
  findStalls,
  formatDuration,
  lastCheckpointPhrase,
  lastSignOfLife,
  shouldNotifyDue,
  snoozed,
  stallsWarned,
  unwarnedStalls,
  workPhrase,
  type CheckpointPolicy,
  type DueState,
  type NudgeMemory,
  type Stall,
} from '../core/policy';
import { parseTimestamp } from '../core/time';
import { Disposable } from '../services/disposable';
import type { ActivityTracker, FolderActivity } from './activity';
import { Commands } from './commandIds';
import { readSettings, SECTION } from './config';
import { Reminders } from './reminders';
import { COMMIT_HASH_CHARS, shortCommitHash } from '../core/commitHash';

const dueKey = (issueId: string | undefined) => `due:${issueId ?? ''}`;

/** What the status bar shows, for the integration tests and anyone who asks through the API. */
export interface ActivityStatus {
  visible: boolean;
  text: string;
  tooltip: string;
  accessibilityLabel: string;
  warning: boolean;
  /** Writes beads refused, waiting for a person to retry or discard them. */
  refusedWrites: number;
  issueId?: string;
  due?: DueState;
  /** Reminders and stall warnings shown since activation. */
  notifications: { due: number; stalled: number };
}

/** Something that knows how many beads writes wait in a project's outbox, and which ones beads refused. */
export interface PendingWrites {
  pendingCount(folder: FolderActivity): number | undefined;
  parkedWrites?(folder: FolderActivity): readonly { issueId: string; reason: string }[] | undefined;
  readonly onDidChange?: vscode.Event<unknown>;
}

/** The view model every surface reads, loaded once at activation (src/adapters/sidebarRefresh.ts). */
export interface LoadedModel {
  checkpointsOf(root: string, issueId: string): { loaded: boolean; lastCheckpointAt?: number } | undefined;
  readonly onDidChangeState: vscode.Event<unknown>;
}

const MEMORY_KEY = 'beadsRecovery.nudges';
const TICK_MS = 60_000;
const FILES_IN_TOOLTIP = 15;
const COMMITS_IN_TOOLTIP = 5;
const HIDDEN: ActivityStatus = { visible: false, text: '', tooltip: '', accessibilityLabel: '', warning: false, refusedWrites: 0, notifications: { due: 0, stalled: 0 } };
/** The tooltip's links to a refused write's Retry (through the outbox, like Retry Pending Writes' "Retry Them Too"), Show and Discard. */
const RETRY_REFUSED = `command:${Commands.retryPendingWrites}?${encodeURIComponent(JSON.stringify({ includeFailed: true }))}`;
const REFUSED_SHOWN = 3;

/**
 * The focused issue and the work since its last checkpoint (`$(beaker) demo-1 · 12 edits · 25m`),
 * in warning colour when a checkpoint is due; a click checkpoints. Asks once per due period
 * (Checkpoint, Copy Recovery Context, Snooze) and warns once per stall. Hidden outside beads projects.
 */
export class ActivityStatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('beadsRecovery.activity', vscode.StatusBarAlignment.Left, 50));
  private readonly reminders = new Reminders();
  private memory: NudgeMemory;
  private current: ActivityStatus = HIDDEN;
  private readonly shown = { due: 0, stalled: 0 };
  /** Stalls count only time this editor session has been watching. */
  private readonly watchingSince = Date.now();

  constructor(
    private readonly tracker: ActivityTracker,
    private readonly workspaceState: vscode.Memento,
    private readonly writes?: PendingWrites,
  ) {
    super();
    this.item.name = 'Beads Activity';
    this.memory = workspaceState.get<NudgeMemory>(MEMORY_KEY) ?? EMPTY_NUDGE_MEMORY;
    this.register(tracker.onDidChange(() => this.render()));
    this.register(vscode.window.onDidChangeActiveTextEditor(() => this.render()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SECTION)) this.render();
      }),
    );
    if (writes?.onDidChange) this.register(writes.onDidChange(() => this.render()));
    // Minutes pass without events: the duration, the due-by-time check and stalls need a clock.
    this.setInterval(() => {
      this.render();
      for (const folder of tracker.all()) folder.scheduleLink(0);
    }, TICK_MS);
    this.render();
  }

  private model: LoadedModel | undefined;

  /** The tooltip's last checkpoint comes from the model the view shows, from the first paint. */
  readModel(model: LoadedModel): void {
    this.model = model;
    this.register(model.onDidChangeState(() => this.render()));
    this.render();
  }

  get status(): ActivityStatus {
    return this.current;
  }

  render(now = Date.now()): void {
    const folder = this.tracker.active();
    if (!folder) {
      this.item.hide();
      this.current = { ...HIDDEN, notifications: { ...this.shown } };
      return;
    }
    const policy = readSettings(folder.project.folder.uri).checkpointPolicy;
    const issueId = folder.focusedIssue();
    const ledger = folder.focusedLedger();
    const due = checkpointDue(ledger, now, policy);
    const readOnly = folder.project.backend.readOnly;
    const loading = folder.inProgressIssues === undefined;
    const refused = this.writes?.parkedWrites?.(folder) ?? [];

    const parts = [loading ? '$(sync~spin) Beads' : issueId ? `$(beaker) ${issueId}` : '$(beaker) Beads: nothing in progress'];
    if (issueId && due.edits > 0) parts.push(`${due.edits} ${due.edits === 1 ? 'edit' : 'edits'}`);
    if (issueId && due.minutesWithChanges > 0) parts.push(formatDuration(due.minutesWithChanges));
    if (readOnly) parts.push('read-only');
    // A write on its way to beads (a checkpoint just typed) shows as pending until it lands.
    const pending = this.writes?.pendingCount(folder) ?? 0;
    if (pending > 0) parts.push(`$(sync~spin) ${pending} ${pending === 1 ? 'write' : 'writes'} pending`);
    // A write beads refused stays in sight until someone retries or discards it.
    if (refused.length > 0) parts.push(`$(warning) ${refused.length} refused`);
    const text = parts.join(' · ');
    const accessibilityLabel = [this.spoken(issueId, due, readOnly, loading), pendingSpoken(pending), refusedSpoken(refused.length)].filter(Boolean).join(' ');
    const tooltip = this.tooltip(folder, issueId, due, now, refused);

    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: accessibilityLabel, role: 'button' };
    this.item.backgroundColor = due.due || refused.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.command = readOnly
      ? { title: 'Set CLI Path', command: Commands.setCliPath }
      : issueId
        ? { title: 'Checkpoint', command: Commands.checkpoint }
        : { title: 'Claim an Issue', command: Commands.claim };
    this.item.show();

    this.reminders.withdrawUnless((key) => due.due && key === dueKey(issueId));
    if (issueId && shouldNotifyDue(due, this.memory, now)) this.remindToCheckpoint(issueId, due, policy);
    const stalls = unwarnedStalls(this.stalls(folder, policy, now), this.memory);
    if (stalls.length > 0) this.warnStalled(stalls);
    this.current = { visible: true, text, tooltip: tooltip.value, accessibilityLabel, warning: due.due || refused.length > 0, refusedWrites: refused.length, issueId, due, notifications: { ...this.shown } };
  }

  private spoken(issueId: string | undefined, due: DueState, readOnly: boolean, loading: boolean): string {
    if (loading) return 'Beads: reading the in-progress issues';
    // Read-only, a click cannot claim or checkpoint: it offers to set the CLI's path instead.
    const action = readOnly ? 'The beads project is read-only. Activate to set the path of the bd or br CLI.' : issueId ? 'Activate to checkpoint.' : 'Activate to claim one.';
    if (!issueId) return `Beads: no issue in progress. ${action}`;
    const work = workPhrase(due.edits, due.minutesWithChanges, 'spoken');
    const state = due.due ? 'A checkpoint is due.' : '';
    return `Beads: ${issueId} in progress, ${work} since the last checkpoint. ${state} ${action}`.replace(/\s+/g, ' ').trim();
  }

  private tooltip(folder: FolderActivity, issueId: string | undefined, due: DueState, now: number, refused: readonly { issueId: string; reason: string }[]): vscode.MarkdownString {
    const markdown = new vscode.MarkdownString(undefined, true);
    markdown.isTrusted = {
      enabledCommands: [Commands.checkpoint, Commands.focusIssue, Commands.claim, Commands.copyRecoveryContext, Commands.setCliPath, Commands.retryPendingWrites, Commands.showRefusedWrites, Commands.discardRefusedWrites],
    };
    const lines: string[] = [];
    const issue = folder.inProgressIssues?.find((candidate) => candidate.id === issueId);
    if (!issueId) {
      lines.push('**Beads**: no issue in progress — activity is not recorded until one is claimed.');
    } else {
      lines.push(`**${inlineText(issueId, 80)}**${issue ? ` — ${inlineText(issue.title, 120)}` : ''}`);
      const ledger = folder.focusedLedger();
      const since = lastCheckpointPhrase(ledger, now, this.model?.checkpointsOf(folder.project.backend.root, issueId));
      const work = workPhrase(due.edits, due.minutesWithChanges, 'written');
      lines.push(`${work} since the last checkpoint (${since})${due.due ? ' — **checkpoint due**' : ''}`);
      // In the checkpoint text's order: the most edited first.
      const files = ledger ? filesByEdits(ledger) : [];
      if (files.length > 0) {
        const more = files.length - FILES_IN_TOOLTIP + (ledger?.moreFiles ?? 0);
        const listed = files
          .slice(0, FILES_IN_TOOLTIP).map((file) => inlineCode(file, 120)).join(', ');
        lines.push(`Files (${files.length + (ledger?.moreFiles ?? 0)}): ${listed}${more > 0 ? ` and ${more} more` : ''}`);
      }
      const commits = ledger?.commits ?? [];
      if (commits.length > 0) {
        lines.push(`Commits: ${commits.slice(-COMMITS_IN_TOOLTIP).map((commit) => `${inlineCode(shortCommitHash(commit.hash), COMMIT_HASH_CHARS)} ${inlineText(commit.subject, 72)}`).join('; ')}`);
      }
      const others = (folder.inProgressIssues ?? []).filter((candidate) => candidate.id !== issueId).map((candidate) => inlineText(candidate.id, 40));
      if (others.length > 0) lines.push(`Also in progress: ${others.join(', ')}`);
    }
    lines.push(folder.linker ? 'Commits are linked to the focused issue and named in its next checkpoint.' : 'Commits are not linked: this folder is not a git repository.');
    const pending = this.writes?.pendingCount(folder);
    if (pending !== undefined && pending > 0) lines.push(`Beads writes waiting: ${pending}`);
    if (refused.length > 0) {
      // Beads' reason is its own text: inert here, as every issue text is.
      const named = refused.slice(0, REFUSED_SHOWN).map((write) => `${inlineText(write.issueId, 40)}: ${inlineText(write.reason, 120)}`).join('; ');
      const more = refused.length > REFUSED_SHOWN ? ` and ${refused.length - REFUSED_SHOWN} more` : '';
      lines.push(`**${refused.length} ${refused.length === 1 ? 'write' : 'writes'} refused by beads** — ${named}${more}`);
      lines.push(`[Retry](${RETRY_REFUSED}) · [Show](command:${Commands.showRefusedWrites}) · [Discard…](command:${Commands.discardRefusedWrites})`);
    }
    if (folder.project.backend.readOnly) lines.push(`Read-only: ${inlineText(folder.project.readOnlyReason ?? 'no beads CLI', 200)}`);
    // Read-only, checkpoints and claims cannot be written: the way out is offered instead.
    const actions = folder.project.backend.readOnly
      ? [`[Set CLI Path…](command:${Commands.setCliPath})`, ...(issueId ? [`[Focus Issue…](command:${Commands.focusIssue})`, `[Copy Recovery Context](command:${Commands.copyRecoveryContext})`] : [])]
      : issueId
        ? [`[Checkpoint](command:${Commands.checkpoint})`, `[Focus Issue…](command:${Commands.focusIssue})`, `[Copy Recovery Context](command:${Commands.copyRecoveryContext})`]
        : [`[Claim an Issue…](command:${Commands.claim})`];
    lines.push(actions.join(' · '));
    markdown.appendMarkdown(lines.join('\n\n'));
    return markdown;
  }

  private stalls(folder: FolderActivity, policy: CheckpointPolicy, now: number): Stall[] {
    const candidates = (folder.inProgressIssues ?? []).flatMap((issue) => {
      const lastActivityAt = lastSignOfLife(ledgerOf(folder.state, issue.id), parseTimestamp(issue.updatedAt));
      return lastActivityAt === undefined ? [] : [{ issueId: issue.id, lastActivityAt }];
    });
    return findStalls(candidates, now, policy, this.watchingSince);
  }

  private remember(memory: NudgeMemory): void {
    this.memory = memory;
    void this.workspaceState.update(MEMORY_KEY, memory);
  }

  private remindToCheckpoint(issueId: string, due: DueState, policy: CheckpointPolicy): void {
    const period = due.period as string;
    this.remember(dueNotified(this.memory, period));
    this.shown.due += 1;
    // What made it due, which stays true while the notification shows (the status bar has the live count).
    const why = due.reason === 'edits' ? `${policy.editThreshold} edits or more` : `${formatDuration(policy.minutesThreshold)} or more of changes`;
    const checkpoint = 'Checkpoint';
    const copy = 'Copy Recovery Context';
    const snooze = `Snooze ${formatDuration(policy.snoozeMinutes)}`;
    // Marked stale by render() once the checkpoint is written or the issue is no longer the one in focus.
    this.reminders.show(
      dueKey(issueId),
      `Beads: ${issueId} has ${why} since its last checkpoint. Checkpoint now?`,
      [
        { title: checkpoint, run: () => vscode.commands.executeCommand(Commands.checkpoint) },
        { title: copy, run: () => vscode.commands.executeCommand(Commands.copyRecoveryContext) },
        { title: snooze, run: () => this.remember(snoozed(this.memory, period, Date.now(), policy)) },
      ],
      `Beads: that reminder is out of date: ${issueId} was checkpointed or is no longer in progress.`,
    );
  }

  private warnStalled(stalls: Stall[]): void {
    this.remember(stallsWarned(this.memory, stalls));
    this.shown.stalled += 1;
    const named = stalls.map((stall) => `${stall.issueId} (${formatDuration(stall.idleMinutes)})`).join(', ');
    const copy = 'Copy Recovery Context';
    const close = 'Close Issue…';
    void showWarningMessage(`Beads: no activity on in-progress ${stalls.length === 1 ? 'issue' : 'issues'} ${named}. Stalled?`, copy, close)
      .then((choice) => {
        if (choice === copy) void vscode.commands.executeCommand(Commands.copyRecoveryContext);
        else if (choice === close) void vscode.commands.executeCommand(Commands.close);
      });
  }
}

function refusedSpoken(count: number): string {
  if (count === 0) return '';
  return `${count} beads ${count === 1 ? 'write was' : 'writes were'} refused and ${count === 1 ? 'waits' : 'wait'} for you to retry or discard.`;
}

function pendingSpoken(count: number): string {
  if (count === 0) return '';
  return `${count} ${count === 1 ? 'write is' : 'writes are'} on the way to beads.`;
}
