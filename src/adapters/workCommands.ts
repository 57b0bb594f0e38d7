import * as vscode from 'vscode';
import { showInformationMessage, showWarningMessage } from './notify';
import { childrenOf, describeCloseObstacles, readyItems, type CloseObstacles, type ReadyItem } from '../core/graph';
import { isTerminal, type Issue, type IssueSummary } from '../core/model';
import { unlinked } from '../core/markdown';
import { ledgerOf } from '../core/ledger';
import { isContainer, nextFor, readyOrder, type LastClose } from '../core/next';
import { describeMasked } from '../services/redaction';
import { closeObstaclesFor, closeWithFiles, filesOfCommits, WorkRefusedError, writeNowOrQueue, type CloseOutcome, type WriteOutcome } from '../services/closeFlow';
import { loadSnapshot } from '../services/snapshot';
import { bindFocus } from './agentSessions';
import { autoCheckpoint, type WorkDeps } from './checkpointCommands';
import { reportErrors } from './commandErrors';
import { Commands } from './commandIds';
import { interactive } from './oneAtATime';
import { readSettings } from './config';
import { inject } from './inject';
import { readOnlyWarning, type Project } from './projects';

// Claim and close. Both act at once through the backend and say plainly what
// happened; a temporary failure queues them in the outbox, and the user is told so.

/** How many ready issues the claim quick pick describes with parent and unblocks (one `show`). */
const CLAIM_PICK_DETAILS = 25;
/** How long closing waits for the issue's queued writes and its file list to land first. */
const CLOSE_FLUSH_MS = 5_000;

/**
 * `beadsRecovery.claim` takes an issue id (the sidebar, the close offer) or nothing (a quick pick);
 * with `confirm` it asks first (a key press in the sidebar is easier to make by accident than a click).
 */
export type ClaimArgument = string | { issueId?: string; confirm?: boolean; title?: string } | undefined;

/**
 * `beadsRecovery.close` takes an issue id (the sidebar) or options; with `reason` it asks for no
 * reason, with `offer: false` it shows no "what next" notification (tests read the returned
 * outcome), and with `force` it does not ask about open blockers or children: `true` closes anyway
 * (the CLI's `--force`), `false` lets the CLI decide.
 */
export type CloseArgument = string | { issueId?: string; reason?: string; offer?: boolean; force?: boolean } | undefined;

export interface ClaimResult {
  issueId: string;
  outcome: WriteOutcome;
}

export function registerWorkCommands(deps: WorkDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.claim, (argument?: ClaimArgument) => interactive.run('claim', 'a claim', () => reportErrors(deps.log, () => claim(deps, argument)))),
    vscode.commands.registerCommand(Commands.close, (argument?: CloseArgument) => interactive.run('close', 'a close', () => reportErrors(deps.log, () => close(deps, argument)))),
  ];
}

async function writableProject(deps: WorkDeps, action: string): Promise<Project | undefined> {
  const project = await deps.projects.pickProject();
  if (!project) {
    void showInformationMessage(`Beads: no beads project in this workspace, so there is nothing to ${action}.`);
    return undefined;
  }
  if (project.backend.readOnly) {
    void showWarningMessage(readOnlyWarning(project));
    return undefined;
  }
  return project;
}

/** "Beads: Claim Issue…": the ready queue with each item's parent and what it unblocks. */
async function claim(deps: WorkDeps, argument: ClaimArgument): Promise<ClaimResult | undefined> {
  const project = await writableProject(deps, 'claim');
  if (!project) return undefined;
  const issueId = (typeof argument === 'string' ? argument : argument?.issueId) ?? (await pickReady(project, await deps.activity.forProject(project)?.lastClose.read()));
  if (!issueId) return undefined;
  const options = typeof argument === 'object' ? argument : {};
  if (!(await confirmClaim(project, issueId, options.confirm === true, options.title))) return undefined;
  const outbox = await deps.outboxes.open(project);
  if (!outbox) throw new WorkRefusedError('there is no place to keep beads writes for this folder');
  const now = Date.now();
  const folder = deps.activity.forProject(project);
  folder?.expectClaim(issueId);
  const outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Beads: claiming ${issueId}` }, () =>
    writeNowOrQueue(project.backend, outbox, { key: `claim:${issueId}:${now}`, kind: 'claim', issueId }),
  );
  // This window claimed it: the issue is its own session's (the Agent sessions row, its recovery context), queued or not.
  await bindFocus(project, issueId, deps.log);
  if (outcome.state === 'written') {
    // The offer after the last close is followed (or set aside): every surface goes back to the queue.
    await folder?.lastClose.clear();
    deps.onClaimed?.(issueId);
    await folder?.refreshInProgress();
    await folder?.focus(issueId);
    vscode.window.setStatusBarMessage(`$(check) Beads: claimed ${issueId}; work is now recorded against it`, 5000);
  } else {
    void showWarningMessage(`Beads: ${issueId} could not be claimed now (${outcome.why}); the claim is queued and will be made when beads answers.`);
  }
  return { issueId, outcome };
}

/**
 * Claiming an epic records work against a container that is finished through its children: it
 * is said, and claimed only if the user insists. `ask` asks about any other issue too, at once
 * (named by the `title` the caller knows) while beads is read; the reading is a progress sign.
 */
async function confirmClaim(project: Project, issueId: string, ask: boolean, title: string | undefined): Promise<boolean> {
  const reading = project.backend.show([issueId]).then((found) => found.find((candidate) => candidate.id === issueId));
  // Read beside the question: its failure is reported once the answer is in.
  reading.catch(() => undefined);
  const claim = `Claim ${issueId}`;
  if (ask) {
    const named = title === undefined ? issueId : `${issueId} ${title}`;
    const choice = await showInformationMessage(`Claim ${named}?`, { modal: true, detail: 'It becomes in progress and assigned to you; work is recorded against it from now on.' }, claim);
    if (choice !== claim) return false;
  }
  const issue = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Beads: reading ${issueId}` }, () => reading);
  if (!issue) throw new WorkRefusedError(`${issueId} was not found: it may have been deleted.`);
  if (isContainer(issue)) {
    const children = childrenOf(issue).filter((child) => !isTerminal(child.status));
    const detail = children.length > 0 ? `Its open children: ${children.slice(0, 5).map(name).join(', ')}${children.length > 5 ? ', …' : ''}.` : 'It has no open children.';
    const choice = await showWarningMessage(
      `${issueId} is an epic: it holds other work and is finished through its children, so work recorded against it is hard to follow. Claim it anyway?`,
      { modal: true, detail },
      claim,
    );
    return choice === claim;
  }
  return true;
}

/** The Ready list as every surface orders it (readyOrder): the next issue first and marked, no epic. */
async function pickReady(project: Project, lastClose: LastClose | undefined): Promise<string | undefined> {
  const { items, nextId } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Beads: loading ready issues' }, async () => {
    const snapshot = await loadSnapshot(project.backend, { alwaysReady: true, readyDetails: CLAIM_PICK_DETAILS });
    if (!snapshot.ready.ok) throw new Error(`could not list ready issues: ${snapshot.ready.error}`);
    const inProgress = snapshot.inProgress.ok ? snapshot.inProgress.value.map((issue) => issue.id) : [];
    const next = nextFor({ ready: snapshot.ready.value, inProgress, lastClose });
    const ordered = readyOrder(snapshot.ready.value, next?.issue);
    return { items: readyItems(ordered, snapshot.details.ok ? snapshot.details.value : []), nextId: next?.issue.id };
  });
  if (items.length === 0) {
    void showInformationMessage('Beads: nothing is ready: every open issue is blocked, deferred or already in progress.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items.map((item) => readyPickItem(item, item.issue.id === nextId)), {
    title: 'Claim a ready issue',
    placeHolder: 'Ready issues, the suggested next one first; each shows its parent and what it unblocks',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.issueId;
}

function readyPickItem(item: ReadyItem, suggested: boolean): vscode.QuickPickItem & { issueId: string } {
  const context = [
    item.parent ? `parent: ${name(item.parent)}` : undefined,
    // Only what is there: "unblocks: nothing" on most rows would be noise.
    item.unblocks.length > 0 ? `unblocks: ${item.unblocks.map(name).join(', ')}` : undefined,
  ].filter((part): part is string => part !== undefined);
  return {
    issueId: item.issue.id,
    label: `${item.issue.id}  ${item.issue.title}`,
    description: `${suggested ? 'suggested next · ' : ''}P${item.issue.priority} · ${item.issue.issueType}`,
    detail: context.join('  ·  '),
  };
}

/**
 * "Beads: Close Issue…": flush the ledger, write `Files modified: …`, close with the reason the
 * user types, then offer what comes next — the issues the close unblocked and the next ready
 * ones, with Claim next, Copy continue prompt and Inject continue prompt. Returns the outcome
 * (the offer included).
 */
async function close(deps: WorkDeps, argument: CloseArgument): Promise<CloseOutcome | undefined> {
  const options = typeof argument === 'string' ? { issueId: argument } : (argument ?? {});
  const project = await writableProject(deps, 'close');
  if (!project) return undefined;
  const folder = deps.activity.forProject(project);
  const issueId = options.issueId ?? folder?.focusedIssue() ?? (await pickInProgress(project));
  if (!issueId) return undefined;
  // What stands in the way is said before a reason is asked for: typing one for a close that cannot happen wastes it.
  let force = options.force;
  if (force === undefined) {
    const obstacles = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Beads: reading ${issueId}` }, () => closeObstaclesFor(project.backend, issueId));
    if (obstacles && !(await confirmCloseAnyway(issueId, obstacles, project.cli))) return undefined;
    force = obstacles !== undefined;
  }
  const reason =
    options.reason ??
    (await vscode.window.showInputBox({
      title: `Close ${issueId}`,
      prompt: 'Why is it done? (the close reason, e.g. "Verified: tests pass")',
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() === '' ? 'A close reason helps whoever reads the issue later.' : undefined),
    }));
  if (reason === undefined || reason.trim() === '') return undefined;
  const outbox = await deps.outboxes.open(project);
  if (!outbox) throw new WorkRefusedError('there is no place to keep beads writes for this folder');

  const settings = readSettings(project.folder.uri);
  const outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: unlinked(`Beads: closing ${issueId}`) }, async () => {
    // The reflog read and the last burst of file events written, so the file list is complete.
    await folder?.flush();
    const now = Date.now();
    const ledger = folder ? ledgerOf(folder.state, issueId) : undefined;
    return closeWithFiles({
      backend: project.backend,
      queue: outbox,
      issueId,
      reason: reason.trim(),
      cli: project.cli,
      ledgerFiles: ledger?.files ?? [],
      ledgerMoreFiles: ledger?.moreFiles ?? 0,
      ledgerCommits: ledger?.commits.map((commit) => commit.hash) ?? [],
      checkpointCommits: folder ? () => autoCheckpoint(project, outbox, folder, 'before-close', issueId, 0) : undefined,
      commitFiles: (hashes) => filesOfCommits(project.folder.uri.fsPath, hashes, { timeoutMs: settings.cliTimeoutMs }),
      flushTimeoutMs: CLOSE_FLUSH_MS,
      now,
      force,
      onClosed: async () => folder?.store.markCheckpoint(issueId, now),
      log: (message) => deps.log.warn(message),
    });
  });
  const masked = outcome.masked && describeMasked(outcome.masked);
  if (masked) deps.log.info(`close of ${issueId}: ${masked} before the reason and the file list went to beads`);
  if (outcome.state === 'queued') {
    void showWarningMessage(`Beads: ${issueId} will be closed when beads answers: ${outcome.why}. Its file list is queued after it.`);
    return outcome;
  }
  await folder?.refreshInProgress();
  // Remembered beside the ledger: the sidebar and every recovery context (the command line's too) offer the same next issue.
  await folder?.lastClose.record({
    closed: outcome.closed,
    unblocked: outcome.unblocked.map((issue) => issue.id),
    inProgressAfter: (folder.inProgressIssues ?? []).map((issue) => issue.id),
  });
  deps.onClosed?.(outcome);
  if (options.offer !== false) offerNext(outcome);
  return outcome;
}

/** Says what the CLI would refuse the close for, before it is asked; true to close anyway. */
async function confirmCloseAnyway(issueId: string, obstacles: CloseObstacles, cli: string): Promise<boolean> {
  const closeAnyway = 'Close Anyway';
  const choice = await showWarningMessage(
    `Beads: ${describeCloseObstacles(issueId, obstacles)}.`,
    { modal: true, detail: `${cli} refuses to close it as it is. Close Anyway runs '${cli} close --force'.` },
    closeAnyway,
  );
  return choice === closeAnyway;
}

async function pickInProgress(project: Project): Promise<string | undefined> {
  const issues = await project.backend.listInProgress();
  if (issues.length === 0) {
    void showInformationMessage('Beads: no issue is in progress, so there is nothing to close.');
    return undefined;
  }
  if (issues.length === 1) return issues[0]?.id;
  const picked = await vscode.window.showQuickPick(
    issues.map((issue: Issue) => ({ label: `${issue.id}  ${issue.title}`, description: `P${issue.priority} · ${issue.issueType}`, issueId: issue.id })),
    { title: 'Close which issue?' },
  );
  return picked?.issueId;
}

/** What the close unblocked and what is ready next, as one notification with its actions. */
function offerNext(outcome: CloseOutcome): void {
  const next = outcome.next?.issue;
  const unblocked = outcome.unblocked.length > 0 ? ` Unblocked: ${outcome.unblocked.map(name).join(', ')}.` : '';
  const ready = next ? ` Next: ${name(next)}.` : ' Nothing claimable is ready.';
  const claimNext = next ? `Claim ${next.id}` : undefined;
  const copy = 'Copy Continue Prompt';
  const injectPrompt = 'Inject Continue Prompt';
  const actions = [claimNext, copy, injectPrompt].filter((action): action is string => action !== undefined);
  void showInformationMessage(`Beads: closed ${outcome.closed.id}.${unblocked}${ready}`, ...actions).then(async (choice) => {
    const prompt = outcome.continuePrompt ?? '';
    if (choice === claimNext && next) await vscode.commands.executeCommand(Commands.claim, next.id);
    else if (choice === copy) {
      await vscode.env.clipboard.writeText(prompt);
      vscode.window.setStatusBarMessage('$(check) Beads: continue prompt copied', 4000);
    } else if (choice === injectPrompt) await inject(prompt, undefined, { what: 'continue prompt' });
  });
}

function name(issue: IssueSummary): string {
  return `${issue.id} ${issue.title}`;
}
