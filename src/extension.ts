import * as vscode from 'vscode';
import { checkpointThroughCommand } from './adapters/agentContext';
import { registerAgents, type AgentsApi } from './adapters/agents';
import { Commands } from './adapters/commandIds';
import { onSettingsChanged } from './adapters/config';
import { createLog } from './adapters/log';
import { ProjectRegistry } from './adapters/projects';
import { RecoveryProvider, registerRecoveryCommands } from './adapters/recoveryCommands';
import { registerSidebar } from './adapters/sidebar';

/** What activate() returns: used by the integration tests, and by other extensions if they wish. */
export interface BeadsRecoveryApi {
  recoveryContext(): Promise<{ markdown: string; state: string } | undefined>;
  backendKind(): Promise<string | undefined>;
  /** Injection, the @beads participant's handler and the agent hook commands (issue 5). */
  agents: AgentsApi;
}

export function activate(context: vscode.ExtensionContext): BeadsRecoveryApi {
  const log = createLog();
  const projects = new ProjectRegistry(log);
  const recovery = new RecoveryProvider(projects);
  const agents = registerAgents(context, { projects, recovery, log, checkpoint: checkpointThroughCommand });
  context.subscriptions.push(
    log,
    projects,
    ...registerRecoveryCommands(recovery, log),
    ...agents.disposables,
    ...registerSidebar(context.extensionUri, projects, log),
    vscode.commands.registerCommand(Commands.refresh, () => projects.reset()),
    vscode.commands.registerCommand(Commands.showLog, () => log.show()),
    onSettingsChanged(() => projects.reset()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => projects.reset()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => projects.reset()),
  );
  return {
    recoveryContext: () => recovery.produce(),
    backendKind: async () => (await projects.pickProject())?.backend.kind,
    agents: agents.api,
  };
}
