import * as vscode from 'vscode';
import { mcpServerEntry } from '../core/mcpConfig';
import { currentLauncher } from './agentHooks';

// Lists `beads-recovery mcp` to VS Code's MCP support (Copilot agent mode and any other chat
// participant that uses MCP tools), one server per workspace folder, so nothing has to be
// configured. The API arrived in VS Code 1.101; this extension also runs on older hosts, so it is
// looked up at run time and skipped where it is missing. The id matches
// `contributes.mcpServerDefinitionProviders` in package.json.

export const MCP_PROVIDER_ID = 'beadsRecovery.mcp';

/** What a stdio server definition holds, as this code reads it back (for tests). */
export interface McpServerDescription {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

interface McpStdioDefinitionConstructor {
  new (label: string, command: string, args?: string[], env?: Record<string, string>, version?: string): { cwd?: vscode.Uri };
}

interface McpLanguageModelApi {
  registerMcpServerDefinitionProvider?(
    id: string,
    provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] },
  ): vscode.Disposable;
}

/**
 * Registers the provider when the host has the API; returns what it registered and the servers it
 * would offer now, or undefined on a host without it.
 */
export function registerMcpServerProvider(extensionUri: vscode.Uri, version: string): { disposables: vscode.Disposable[]; servers: () => McpServerDescription[] } | undefined {
  const lm = vscode.lm as unknown as McpLanguageModelApi;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioDefinitionConstructor }).McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') return undefined;

  const servers = (): McpServerDescription[] => {
    // The server runs the beads CLI the folder's project names: never in Restricted Mode.
    if (!vscode.workspace.isTrusted) return [];
    const entry = mcpServerEntry(currentLauncher(extensionUri));
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
    return folders.map((folder) => ({
      label: folders.length > 1 ? `Beads Recovery (${folder.name})` : 'Beads Recovery',
      command: entry.command,
      args: [...entry.args, '--cwd', folder.uri.fsPath],
      env: entry.env ?? {},
      cwd: folder.uri.fsPath,
    }));
  };
  const changed = new vscode.EventEmitter<void>();
  const registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      servers().map((server) => {
        const definition = new Definition(server.label, server.command, server.args, server.env, version);
        if (server.cwd) definition.cwd = vscode.Uri.file(server.cwd);
        return definition;
      }),
  });
  return {
    disposables: [
      registration,
      changed,
      vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    ],
    servers,
  };
}
