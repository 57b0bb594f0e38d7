// The sidebar webview's entry point. It says `ready`, renders every state the host sends, sends
// the user's actions back as protocol messages, and keeps its scroll position, expansion and
// active item in the webview state so they survive the webview being re-created (the view is
// not kept alive while hidden).
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { HostMessage, SidebarAction, ViewState, WebviewMessage } from '../../src/shared/protocol';
import { el } from './dom';
import { renderPage, type Host, type Page } from './render';
import { Tree, type TreeMemory } from './tree';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

interface Persisted extends TreeMemory {
  scrollTop: number;
}

const vscode = acquireVsCodeApi();
const persisted = restore(vscode.getState());
const save = () => vscode.setState(persisted);

const content = el('main', { className: 'content' });
const page: Page = {
  progress: el('div', { className: 'progress', attrs: { 'aria-hidden': 'true' } }),
  banners: el('div', { className: 'banners' }),
  toolbar: el('div', { className: 'toolbar', attrs: { role: 'group', 'aria-label': 'Beads actions' } }),
  message: el('div', { className: 'message' }),
  tree: new Tree(content, 'Beads work', persisted, save),
};
const announcer = el('div', { className: 'sr-only', attrs: { 'aria-live': 'polite', role: 'status' } });
document.body.append(page.progress, page.banners, page.toolbar, page.message, content, announcer, ...focusWrap());
// The context menu holds the row's actions (data-vscode-context on each row), not Cut, Copy and Paste.
document.body.setAttribute('data-vscode-context', JSON.stringify({ preventDefaultContextMenuItems: true }));

let state: ViewState = { kind: 'loading' };
let stateJson = '';
let nextRequestId = 1;
const inFlight = new Map<number, { action: SidebarAction; issueId?: string; writeKey?: string }>();
let scrollRestored = false;

const host: Host = {
  run(action, issueId, options) {
    const writeKey = options?.writeKey;
    // A second press while one runs still goes to the host, which ignores it and says so.
    const requestId = nextRequestId++;
    inFlight.set(requestId, { action, ...(issueId === undefined ? {} : { issueId }), ...(writeKey === undefined ? {} : { writeKey }) });
    const message: WebviewMessage = issueId === undefined ? { type: 'run', requestId, action } : { type: 'run', requestId, action, issueId };
    if (options?.confirm) message.confirm = true;
    if (writeKey !== undefined) message.writeKey = writeKey;
    post(message);
    render();
  },
  openFile: (path) => post({ type: 'openFile', path }),
  focusIssue: (issueId) => post({ type: 'focusIssue', issueId }),
  dismissNext: () => post({ type: 'dismissNext' }),
  retry: () => post({ type: 'retry' }),
  isBusy: (action, issueId, writeKey) => [...inFlight.values()].some((request) => request.action === action && request.issueId === issueId && request.writeKey === writeKey),
};

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  if (message?.type === 'state') {
    // The host sends a snapshot after every refresh; most are the same as the last one.
    const json = JSON.stringify(message.state);
    if (json === stateJson) return;
    stateJson = json;
    state = message.state;
    render();
  } else if (message?.type === 'done') {
    inFlight.delete(message.requestId);
    if (message.error) announcer.textContent = message.error;
    render();
  }
});

let scrollTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('scroll', () => {
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(() => {
    persisted.scrollTop = window.scrollY;
    save();
  }, 100);
});

render();
post({ type: 'ready' });

function render(): void {
  // Re-rendering replaces the buttons: keep the keyboard where it was.
  const focusedAction = document.activeElement?.closest('.toolbar, .banners') ? document.activeElement.getAttribute('data-action') : null;
  renderPage(state, page, host);
  if (focusedAction) document.querySelector<HTMLElement>(`[data-action="${focusedAction}"]`)?.focus();
  // The saved position means something only once the content it was measured on is back.
  if (!scrollRestored && state.kind === 'project') {
    scrollRestored = true;
    window.scrollTo(0, persisted.scrollTop);
  }
}

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

function restore(saved: unknown): Persisted {
  const value = (typeof saved === 'object' && saved !== null ? saved : {}) as Partial<Persisted>;
  const expanded: Record<string, boolean> = {};
  if (typeof value.expanded === 'object' && value.expanded !== null) {
    for (const [key, open] of Object.entries(value.expanded)) if (typeof open === 'boolean') expanded[key] = open;
  }
  const restored: Persisted = { expanded, scrollTop: typeof value.scrollTop === 'number' ? value.scrollTop : 0 };
  if (typeof value.activeKey === 'string') restored.activeKey = value.activeKey;
  return restored;
}

/**
 * Tab past the view's last control (or Shift+Tab before its first) would leave the focus on the
 * page's body, where nothing shows it: it goes round to the other end instead, as in a dialog.
 * (F6 and the workbench's own keys still leave the view.)
 */
function focusWrap(): HTMLElement[] {
  const focusable = () =>
    [...document.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), vscode-button:not([disabled]), summary, [tabindex="0"]')].filter(
      (element) => !element.classList.contains('focus-wrap') && element.tabIndex >= 0 && element.getClientRects().length > 0,
    );
  const sentinel = (toFirst: boolean) => {
    const element = el('span', { className: 'focus-wrap', attrs: { tabindex: '0', 'aria-hidden': 'true' } });
    element.addEventListener('focus', () => {
      const targets = focusable();
      (toFirst ? targets[0] : targets[targets.length - 1])?.focus();
    });
    return element;
  };
  const start = sentinel(false);
  document.body.prepend(start);
  // A focused element a re-render removed, or a click on the page's blank space, leaves the focus
  // on the body too: while the view has the focus, it goes to the tree's tab stop.
  document.addEventListener('focusout', () => {
    setTimeout(() => {
      if (!document.hasFocus() || document.activeElement !== document.body) return;
      (document.querySelector<HTMLElement>('[role="treeitem"][tabindex="0"]') ?? focusable()[0])?.focus({ preventScroll: true });
    }, 0);
  });
  return [sentinel(true)];
}
