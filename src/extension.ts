import * as vscode from 'vscode';
import { registerActivity, type ActivityApi } from './adapters/activityFeature';
import { checkpointWriter } from './adapters/agentContext';
import { registerAgents, type AgentsApi } from './adapters/agents';
import { reportErrors, reportFailure } from './adapters/commandErrors';
import { Commands, WALKTHROUGH_ID } from './adapters/commandIds';
import { setCliPath } from './adapters/cliSettings';
import { onDetectionSettingsChanged } from './adapters/config';
import { AutoCheckpoints, Outboxes, registerCheckpointCommands } from './adapters/checkpointCommands';
import { createLog } from './adapters/log';
import { ProjectRegistry } from './adapters/projects';
import { notInBeads, RecoveryProvider, registerRecoveryCommands } from './adapters/recoveryCommands';
import { registerSidebar } from './adapters/sidebar';
import { sessionViews, syncSessionSettings } from './adapters/agentSessions';
import { registerWorkCommands } from './adapters/workCommands';
import { showWalkthroughImage, welcomeOnFirstOpen } from './adapters/welcome';
import { toLedgerSummary } from './core/ledger';
import { refuseGit } from './git/runGit';
import type { CloseOutcome } from './services/closeFlow';
import type { SessionView } from './shared/protocol';
import { errorMessage } from './core/errors';

/** What activate() returns: used by the integration tests, and by other extensions if they wish. */
export interface BeadsRecoveryApi extends ActivityApi {
  recoveryContext(): Promise<{ markdown: string; state: string } | undefined>;
  backendKind(): Promise<string | undefined>;
  /** Injection, the @beads participant's handler and the agent hook commands (issue 5). */
  agents: AgentsApi;
  /** The agent sessions working in the active project's folder, as the sidebar lists them. */
  agentSessions(): Promise<SessionView[]>;
}

export function activate(context: vscode.ExtensionContext): BeadsRecoveryApi {
  const log = createLog();
  context.subscriptions.push(log);
  try {
    return compose(context, log);
  } catch (error) {
    // Seen, not only logged: without this the extension is silently missing its commands.
    reportFailure(log, 'the extension could not start', error);
    throw error;
  }
}

function compose(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): BeadsRecoveryApi {
  // Restricted Mode (package.json capabilities.untrustedWorkspaces): read-only, and no process
  // a workspace can steer. Beads CLIs are gated in detection; git is gated here.
  refuseGit(vscode.workspace.isTrusted ? undefined : 'git is not run in an untrusted workspace (Restricted Mode).');
  const projects = new ProjectRegistry(log);
  const recovery = new RecoveryProvider(projects);
  // The ledger is looked up when a checkpoint lands, by then activity is set.
  const outboxes = new Outboxes(projects, context.storageUri, log, (project) => activity.tracker.forProject(project)?.store);
  const activity = registerActivity({
    projects,
    log,
    storageUri: context.storageUri,
    workspaceState: context.workspaceState,
    writes: { pendingCount: (folder) => outboxes.pendingCount(folder), parkedWrites: (folder) => outboxes.parkedWrites(folder), onDidChange: outboxes.onDidChange },
  });
  outboxes.watchWith(activity.tracker.watchers);
  const closes = new vscode.EventEmitter<CloseOutcome>();
  const claims = new vscode.EventEmitter<string>();
  const work = { projects, outboxes, activity: activity.tracker, log, onClosed: (outcome: CloseOutcome) => closes.fire(outcome), onClaimed: (issueId: string) => claims.fire(issueId) };
  const agents = registerAgents(context, {
    projects,
    recovery,
    log,
    checkpoint: checkpointWriter(work),
    ledgerFiles: (project) => activity.tracker.forProject(project)?.focusedLedger()?.files ?? [],
  });
  const autoCheckpoints = new AutoCheckpoints(work);
  recovery.beforeRecovery = (project, signal) => autoCheckpoints.beforeRecovery(project, signal);
  recovery.focusOf = (project) => {
    const folder = activity.tracker.forProject(project);
    const ledger = folder?.focusedLedger();
    return { focusedId: folder?.focusedIssue(), ledger: ledger ? toLedgerSummary(ledger) : undefined };
  };
  recovery.lastCloseOf = async (project) => activity.tracker.forProject(project)?.lastClose.read();
  recovery.notInBeadsOf = (project) => notInBeads(project, { outbox: outboxes.get(project), ledgerFile: activity.tracker.forProject(project)?.store.file }, log);
  beforeShutdown = () => autoCheckpoints.onShutdown();
  // One model from the first paint: the view's, loaded at activation; the status bar reads it too.
  const sidebar = registerSidebar(context.extensionUri, projects, log, { outbox: outboxes, activity: activity.tracker, checkpoints: autoCheckpoints, work: { onDidClose: closes.event, onDidClaim: claims.event }, watchers: activity.tracker.watchers, sessions: sessionViews });
  activity.statusBar.readModel(sidebar.model);
  context.subscriptions.push(
    projects,
    ...registerRecoveryCommands(recovery, log),
    ...agents.disposables,
    ...sidebar.disposables,
    syncSessionSettings(projects, log),
    closes,
    claims,
    outboxes,
    ...activity.disposables,
    autoCheckpoints,
    ...registerCheckpointCommands(work),
    ...registerWorkCommands(work),
    vscode.commands.registerCommand(Commands.refresh, () => projects.reset()),
    vscode.commands.registerCommand(Commands.showLog, () => log.show()),
    vscode.commands.registerCommand(Commands.openWalkthrough, () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)),
    vscode.commands.registerCommand(Commands.showWalkthroughImage, (picture: unknown) => showWalkthroughImage(context.extensionUri, picture)),
    vscode.commands.registerCommand(Commands.setCliPath, () => reportErrors(log, setCliPath, 'Set CLI Path')),
    onDetectionSettingsChanged(() => projects.reset()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      refuseGit(undefined);
      projects.reset();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => projects.reset()),
  );
  outboxes.syncInBackground();
  welcomeOnFirstOpen(context, projects).catch((error: unknown) => log.warn(`welcome: ${errorMessage(error)}`));
  return {
    ...activity.api,
    recoveryContext: () => recovery.produce(),
    backendKind: async () => (await projects.activeProject())?.backend.kind,
    agents: agents.api,
    agentSessions: async () => {
      const project = await projects.activeProject();
      if (!project) return [];
      const inProgress = await project.backend.listInProgress().catch(() => []);
      return sessionViews(project, inProgress, activity.tracker.forProject(project)?.focusedIssue());
    },
  };
}

/** Set by activate(): the window is closing, so the focused issues get their automatic checkpoint. */
let beforeShutdown: (() => Promise<void>) | undefined;

/** VS Code awaits this before disposing the subscriptions: checkpoints are queued durably here. */
export async function deactivate(): Promise<void> {
  await beforeShutdown?.();
}
