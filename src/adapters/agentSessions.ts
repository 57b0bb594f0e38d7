// VS Code's part in "which issue is this session's?": its own session (this window) is bound by
// Beads: Focus Issue…, its recovery context asks the same resolver as the agents' hooks, the idle
// and thread settings are written beside each folder's sessions for the hooks and the command
// line, and the sidebar lists
// the agent sessions working in the folder.
import * as vscode from 'vscode';
import { storeFolderOf } from '../beads/backend';
import { bindIssue, bindingsOf, sessionKey, withSessionSettings, type AgentSessionsState, type SessionIdentity } from '../core/agentSessions';
import type { Dialect } from '../core/model';
import type { Actor } from '../core/sessionIssue';
import { sessionRows } from '../core/sessionRows';
import { errorMessage } from '../core/errors';
import { actorFor } from '../services/actor';
import { AgentSessionsStore, locateSessions, sessionIdleMs } from '../services/agentSessions';
import { sessionsOnDisk } from '../services/sessionsOnDisk';
import type { SessionView } from '../shared/protocol';
import { readSettings, SECTION } from './config';
import type { Project, ProjectRegistry } from './projects';

/** This window, as an agent session of its own. */
export function vscodeSession(): SessionIdentity {
  return { agent: 'vscode', sessionId: vscode.env.sessionId };
}

async function storeOf(folder: string, timeoutMs: number): Promise<AgentSessionsStore | undefined> {
  const location = await locateSessions(folder, { timeoutMs });
  return location ? new AgentSessionsStore(location) : undefined;
}

/** The idle and thread settings as the hooks and the command line read them: written into the folder's sessions. */
function withSettings(state: AgentSessionsState, folder: vscode.Uri): AgentSessionsState {
  const settings = readSettings(folder);
  return withSessionSettings(state, { idleMinutes: settings.sessionIdleMinutes, threadDestination: settings.threadDestination });
}

/** Beads: Focus Issue… binds this window's session to the issue (or unbinds it: follow the newest). */
export async function bindFocus(project: Project, issueId: string | undefined, log: vscode.LogOutputChannel): Promise<void> {
  try {
    const store = await storeOf(project.folder.uri.fsPath, readSettings(project.folder.uri).cliTimeoutMs);
    await store?.update((state) => bindIssue(withSettings(state, project.folder.uri), vscodeSession(), issueId, Date.now()));
  } catch (error) {
    log.warn(`could not bind this window's session to ${issueId ?? 'no issue'}: ${errorMessage(error)}`);
  }
}

/** What the resolver needs for this window: its own bindings and the actor, as the CLI would resolve it here. */
export async function vscodeSessionFacts(project: Project, signal?: AbortSignal): Promise<{ bindings: string[]; actor?: Actor }> {
  const folder = project.folder.uri.fsPath;
  const { cliTimeoutMs } = readSettings(project.folder.uri);
  const [state, actor] = await Promise.all([
    storeOf(folder, cliTimeoutMs).then((store) => store?.read()).catch(() => undefined),
    // Restricted Mode runs no git: the actor then comes from the environment and the config alone.
    actorFor({ dialect: project.cli as Dialect, beadsDir: storeFolderOf(project.backend), folder, env: process.env, timeoutMs: cliTimeoutMs, signal }).catch(() => undefined),
  ]);
  return { bindings: bindingsOf(state?.sessions[sessionKey(vscodeSession())]), actor };
}

/** The sidebar's rows: the sessions our hooks recorded and those the agents keep on disk for the folder. */
export async function sessionViews(project: Project, inProgress: readonly { id: string; title: string }[], focusedId: string | undefined): Promise<SessionView[]> {
  const folder = project.folder.uri.fsPath;
  const now = Date.now();
  const store = await storeOf(folder, readSettings(project.folder.uri).cliTimeoutMs).catch(() => undefined);
  const state = await store?.read().catch(() => undefined);
  const idleMs = state ? sessionIdleMs(withSettings(state, project.folder.uri)) : readSettings(project.folder.uri).sessionIdleMinutes * 60_000;
  const onDisk = await sessionsOnDisk(folder, { now, idleMs }).catch(() => []);
  return sessionRows({ recorded: Object.values(state?.sessions ?? {}), onDisk, inProgress, focusedId, now, idleMs, ownSession: vscodeSession() });
}

/** Keeps the idle and thread settings beside every folder's sessions, for the hooks and the command line. */
export function syncSessionSettings(projects: ProjectRegistry, log: vscode.LogOutputChannel): vscode.Disposable {
  const sync = async () => {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const project = await projects.project(folder);
      if (!project) continue;
      const store = await storeOf(project.folder.uri.fsPath, readSettings(project.folder.uri).cliTimeoutMs).catch(() => undefined);
      await store?.update((state) => withSettings(state, project.folder.uri)).catch((error: unknown) => log.warn(`could not keep the session settings for the hooks: ${errorMessage(error)}`));
    }
  };
  void sync().catch(() => undefined);
  return vscode.Disposable.from(
    projects.onDidChange(() => void sync().catch(() => undefined)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.sessions.idleMinutes`) || event.affectsConfiguration(`${SECTION}.thread.destination`)) void sync().catch(() => undefined);
    }),
  );
}
