import * as vscode from 'vscode';
import { AgentContext, type AgentContextDeps } from './agentContext';
import { currentHookCommands, registerAgentHookCommands, repairAgentHooks, type ConfirmChange, type InstallArgument } from './agentHooks';
import { createBeadsChatHandler, registerChatAnswerCommand, registerChatParticipant, type BeadsChatHandler } from './chatParticipant';
import { inject } from './inject';
import { registerLanguageModelTools } from './lmTools';
import { registerMcpServerProvider, type McpServerDescription } from './mcpProvider';
import { errorMessage } from '../core/errors';

/** The agent surfaces as the extension's API exposes them (integration tests call the participant's handler directly). */
export interface AgentsApi {
  inject: typeof inject;
  chatHandler: BeadsChatHandler;
  hookCommands(): { event: string; command: string }[];
  /** Rewrites stale hook commands now (it also runs on activation and when trust is granted); the files changed. */
  repairHooks(): Promise<string[]>;
  /** The MCP servers offered to VS Code now; undefined on a host without the MCP provider API. */
  mcpServers(): McpServerDescription[] | undefined;
  /** Install Agent Hooks… as the command runs it (diff editor included), its modal questions answered by `confirm`. */
  installHooks(argument: InstallArgument, confirm: ConfirmChange): Promise<void>;
  /** Uninstall Agent Hooks…, its modal question answered by `confirm`. */
  uninstallHooks(confirm: ConfirmChange): Promise<void>;
}

/**
 * The agent surfaces: the language-model tools, the @beads participant, the agent hook and
 * AGENTS.md commands, the MCP server provider, and the repair of hook paths after an update (in
 * the background: it only reads a few small files per folder, and activation must not wait for it).
 */
export function registerAgents(
  context: vscode.ExtensionContext,
  deps: AgentContextDeps & { log: vscode.LogOutputChannel },
): { disposables: vscode.Disposable[]; api: AgentsApi } {
  const agents = new AgentContext(deps);
  const chatHandler = createBeadsChatHandler(agents);
  const hookCommands = registerAgentHookCommands(context, deps.projects, deps.log);
  const disposables = [
    ...registerLanguageModelTools(agents),
    registerChatParticipant(chatHandler),
    ...registerChatAnswerCommand(chatHandler),
    ...hookCommands.disposables,
  ];
  const mcp = registerMcpServerProvider(context.extensionUri, String((context.extension.packageJSON as { version?: unknown }).version ?? ''));
  if (mcp) disposables.push(...mcp.disposables);
  else deps.log.info('This editor has no MCP server provider API (VS Code 1.101+); the beads-recovery MCP server is not listed.');
  const repair = () => void repairAgentHooks(context.extensionUri, deps.log).catch((error: unknown) => deps.log.warn(`Agent hook repair: ${errorMessage(error)}`));
  repair();
  disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(repair));
  return {
    disposables,
    api: {
      inject,
      chatHandler,
      hookCommands: () => currentHookCommands(),
      repairHooks: () => repairAgentHooks(context.extensionUri, deps.log),
      mcpServers: () => mcp?.servers(),
      installHooks: hookCommands.install,
      uninstallHooks: hookCommands.uninstall,
    },
  };
}
