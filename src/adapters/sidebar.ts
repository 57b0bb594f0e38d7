import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { showErrorMessage, showInformationMessage } from './notify';
import { PARKED_ACTIONS, parseWebviewMessage, type HostMessage, type SidebarAction, type ViewState, type WebviewMessage } from '../shared/protocol';
import { Commands } from './commandIds';
import type { ProjectRegistry } from './projects';
import { SidebarRefresh, type SidebarSources } from './sidebarRefresh';
import { errorMessage } from '../core/errors';

export const SIDEBAR_VIEW_ID = 'beadsRecovery.sidebar';

/** Every action the webview may ask for, as the command that does it: the webview names actions, never command ids. */
const ACTION_COMMANDS: Readonly<Record<SidebarAction, string>> = {
  claim: Commands.claim,
  close: Commands.close,
  checkpoint: Commands.checkpoint,
  copyContext: Commands.copyRecoveryContext,
  injectContext: Commands.injectRecoveryContext,
  refresh: Commands.refresh,
  // The read-only banner's ways out.
  setCliPath: Commands.setCliPath,
  showLog: Commands.showLog,
  manageTrust: 'workbench.trust.manage',
  // Writes beads refused: sent again through the outbox (Retry Pending Writes), shown, discarded after asking.
  retryParked: Commands.retryPendingWrites,
  showParked: Commands.showRefusedWrites,
  discardParked: Commands.discardRefusedWrites,
};
const WRITES: ReadonlySet<SidebarAction> = new Set(['claim', 'close', 'checkpoint', 'retryParked', 'discardParked']);

/**
 * The "Beads" sidebar: a webview that renders the states SidebarRefresh publishes. The webview
 * is not kept alive while hidden; each time it is (re)created it says `ready` and gets the
 * current state at once, and SidebarRefresh catches up on what changed meanwhile.
 */
class SidebarViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private webviewReady = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly refresh: SidebarRefresh,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(refresh.onDidChangeState((state) => this.postState(state)));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.webviewReady = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, enableForms: false, enableCommandUris: false, localResourceRoots: [dist] };
    view.webview.html = this.html(view.webview, dist);
    const perView = [
      view.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw)),
      view.onDidChangeVisibility(() => {
        // A hidden webview is destroyed; it says `ready` again when it is shown.
        if (!view.visible) this.webviewReady = false;
        this.refresh.setVisible(view.visible);
      }),
    ];
    view.onDidDispose(() => {
      for (const disposable of perView) disposable.dispose();
      if (this.view === view) this.view = undefined;
      this.webviewReady = false;
      this.refresh.setVisible(false);
    });
    // Start loading while the webview boots; its `ready` then gets whatever is there.
    this.refresh.setVisible(view.visible);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log.warn(`sidebar: ignored a malformed message from the webview`);
      return;
    }
    switch (message.type) {
      case 'ready':
        this.webviewReady = true;
        this.postState(this.refresh.current);
        this.refresh.setVisible(this.view?.visible ?? true);
        return;
      case 'retry':
        await vscode.commands.executeCommand(Commands.refresh);
        return;
      case 'run':
        await this.run(message);
        return;
      case 'openFile':
        await this.openFile(message.path);
        return;
      case 'focusIssue':
        await this.focusIssue(message.issueId);
        return;
      case 'dismissNext':
        this.refresh.dismissNext();
        return;
    }
  }

  private async run(message: Extract<WebviewMessage, { type: 'run' }>): Promise<void> {
    const { action, issueId, requestId, writeKey } = message;
    let error: string | undefined;
    try {
      if (issueId !== undefined && !issueIdsInView(this.refresh.current).has(issueId)) throw new Error(`${issueId} is not in the view`);
      if (writeKey !== undefined && !parkedKeysInView(this.refresh.current).has(writeKey)) throw new Error('that refused write is no longer in the view');
      await vscode.commands.executeCommand(ACTION_COMMANDS[action], ...commandArguments(message, this.refresh.current));
    } catch (caught) {
      error = errorMessage(caught);
      this.log.error(`sidebar: ${action} failed: ${error}`);
      void showErrorMessage(`Beads: ${error}`);
    }
    // The .beads watcher sees the write too; this covers stores whose files it cannot see.
    if (WRITES.has(action)) this.refresh.invalidate(['beads', 'local'], 300);
    this.post(error === undefined ? { type: 'done', requestId } : { type: 'done', requestId, error });
  }

  /** Opens a file the view lists (and only those), relative to the project folder. */
  private async openFile(path: string): Promise<void> {
    const root = this.refresh.root;
    if (!root || !pathsInView(this.refresh.current).has(path) || path.split('/').some((part) => part === '..')) {
      this.log.warn(`sidebar: refused to open ${JSON.stringify(path)}`);
      return;
    }
    const uri = vscode.Uri.joinPath(vscode.Uri.file(root), ...path.split('/'));
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      void showInformationMessage(`Beads: ${path} no longer exists.`);
      return;
    }
    await vscode.commands.executeCommand('vscode.open', uri);
  }

  private async focusIssue(issueId: string): Promise<void> {
    const state = this.refresh.current;
    const inProgress = state.kind === 'project' ? state.model.otherInProgress.items.map((issue) => issue.id) : [];
    if (!inProgress.includes(issueId)) return;
    // The activity tracker owns the focus when it is there: its ledger follows the same issue.
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes(Commands.focusIssue)) await vscode.commands.executeCommand(Commands.focusIssue, issueId);
    this.refresh.focus(issueId);
  }

  private postState(state: ViewState): void {
    this.describe(state);
    if (this.webviewReady) this.post({ type: 'state', state });
  }

  /** The view's header names what serves the project: the CLI in use and its version, or the read-only reader. */
  private describe(state: ViewState): void {
    if (!this.view) return;
    const project = state.kind === 'project' || state.kind === 'error' ? state.project : undefined;
    this.view.description = project ? (project.readOnlyReason ? 'read-only' : [project.backend, project.cliVersion, project.cliWithdrawn ? '(withdrawn)' : undefined].filter(Boolean).join(' ')) : undefined;
  }

  private post(message: HostMessage): void {
    void this.view?.webview.postMessage(message).then(undefined, (error: unknown) => this.log.warn(`sidebar: postMessage failed: ${errorMessage(error)}`));
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = randomBytes(18).toString('base64');
    const asset = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(dist, ...path)).toString();
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link id="vscode-codicon-stylesheet" rel="stylesheet" nonce="${nonce}" href="${asset('codicons', 'codicon.css')}">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>Beads</title>
</head>
<body>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const disposable of this.subscriptions) disposable.dispose();
  }
}

function issueIdsInView(state: ViewState): Set<string> {
  const ids = new Set<string>();
  if (state.kind !== 'project') return ids;
  const { focused, otherInProgress, ready } = state.model;
  if (focused) ids.add(focused.issue.id);
  if (state.model.next) ids.add(state.model.next.item.issue.id);
  for (const issue of otherInProgress.items) ids.add(issue.id);
  if (ready.ok) for (const item of ready.value.items) ids.add(item.issue.id);
  return ids;
}

/** What the action's command is given: an issue id, a claim to confirm, or the refused writes it names. */
function commandArguments({ action, issueId, confirm, writeKey }: Extract<WebviewMessage, { type: 'run' }>, state: ViewState): unknown[] {
  if (PARKED_ACTIONS.has(action)) {
    const keys = writeKey === undefined ? {} : { keys: [writeKey] };
    return [action === 'retryParked' ? { includeFailed: true, ...keys } : keys];
  }
  if (confirm && action === 'claim') {
    // The question names the issue at once, by the title the view shows, while beads is read.
    const title = issueId === undefined ? undefined : titleInView(state, issueId);
    return [{ issueId, confirm, ...(title === undefined ? {} : { title }) }];
  }
  return issueId === undefined ? [] : [issueId];
}

function titleInView(state: ViewState, issueId: string): string | undefined {
  if (state.kind !== 'project') return undefined;
  const { focused, otherInProgress, ready, next } = state.model;
  const issues = [focused?.issue, next?.item.issue, ...otherInProgress.items, ...(ready.ok ? ready.value.items.map((item) => item.issue) : [])];
  return issues.find((issue) => issue?.id === issueId)?.title;
}

function parkedKeysInView(state: ViewState): Set<string> {
  return new Set(state.kind === 'project' ? (state.model.parkedWrites?.items ?? []).map((write) => write.key) : []);
}

function pathsInView(state: ViewState): Set<string> {
  const paths = new Set<string>();
  if (state.kind !== 'project') return paths;
  for (const file of state.model.activity?.files.items ?? []) paths.add(file.path);
  if (state.model.uncommitted?.ok) for (const file of state.model.uncommitted.value.items) paths.add(file.path);
  return paths;
}

/**
 * The sidebar view and the model that keeps it current, which loads at activation whether or not
 * the view is open (the status bar reads it too); every part is in the returned disposables.
 */
export function registerSidebar(
  extensionUri: vscode.Uri,
  projects: ProjectRegistry,
  log: vscode.LogOutputChannel,
  sources: SidebarSources = {},
): { model: SidebarRefresh; disposables: vscode.Disposable[] } {
  const refresh = new SidebarRefresh(projects, log, sources);
  const provider = new SidebarViewProvider(extensionUri, refresh, log);
  return { model: refresh, disposables: [refresh, provider, vscode.window.registerWebviewViewProvider(SIDEBAR_VIEW_ID, provider)] };
}
