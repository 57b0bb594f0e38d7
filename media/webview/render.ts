// Turns one ViewState into the page: banners, the action bar, and the tree of sections. A pure
// function of (state, actions in flight): every message from the host re-renders from scratch.
import type {
  ActivityView,
  BlockerRef,
  FileEntry,
  FocusedIssueView,
  IssueRef,
  NextView,
  Part,
  ProjectInfo,
  ReadOnlyKind,
  ReadyItemView,
  SidebarAction,
  SidebarModel,
  TrailEntry,
  TrailKind,
  UnblockRef,
  ViewState,
  Capped,
  FileList,
} from '../../src/shared/protocol';
import { folderOf } from '../../src/shared/protocol';
import { custom, el, icon } from './dom';
import type { Tree, TreeNode } from './tree';
import { sessionsSection } from './sessions';
import { parkedSection } from './parked';

export interface Host {
  /** `writeKey`: the refused write a parked action names (none: all of them). */
  run(action: SidebarAction, issueId: string | undefined, options?: { confirm?: true; writeKey?: string }): void;
  openFile(path: string): void;
  focusIssue(issueId: string): void;
  /** Puts the after-close offer away. */
  dismissNext(): void;
  retry(): void;
  /** Whether an action for this issue or refused write (or the bar's, without one) is waiting for the host. */
  isBusy(action: SidebarAction, issueId: string | undefined, writeKey?: string): boolean;
}

export interface Page {
  progress: HTMLElement;
  banners: HTMLElement;
  toolbar: HTMLElement;
  message: HTMLElement;
  tree: Tree;
}

export function renderPage(state: ViewState, page: Page, host: Host): void {
  page.progress.hidden = !(state.kind === 'loading' || (state.kind === 'project' && state.refreshing));
  page.banners.replaceChildren(...banners(state, host));
  page.toolbar.replaceChildren(...toolbar(state, host));
  // Read-only, the banner says what is off, and the toolbar would hold only disabled buttons.
  page.toolbar.hidden = state.kind !== 'project' || !!state.project.readOnlyReason;
  page.message.replaceChildren(...message(state, host));
  page.message.hidden = page.message.childElementCount === 0;
  page.tree.render(state.kind === 'project' ? sections(state.model, state.project, host) : []);
}

function banners(state: ViewState, host: Host): HTMLElement[] {
  const result: HTMLElement[] = [];
  const project: ProjectInfo | undefined = state.kind === 'project' || state.kind === 'error' ? state.project : undefined;
  if (project?.readOnlyReason) result.push(readOnlyBanner(project.readOnlyReason, project.readOnlyKind, host));
  if (state.kind === 'project' && state.refreshError) {
    result.push(banner('error', 'error', `Refresh failed: ${state.refreshError} — showing the last good view.`, 'alert', retryButton(host)));
  }
  if (state.kind === 'error') {
    result.push(banner('error', 'error', `The beads CLI failed: ${state.message}`, 'alert', retryButton(host)));
  }
  return result;
}

/** Short enough that the banner's line, with its way out, fits the sidebar's default width; the whole reason is on hover and one click away. */
const READ_ONLY_WORDS: Record<ReadOnlyKind, string> = {
  untrusted: 'untrusted',
  'cli-missing': 'no CLI',
  'cli-failed': 'CLI failed',
  'cli-timeout': 'CLI timed out',
  migrating: 'migrating',
};
/** Each reason's way out, as the one command that fixes it. */
const READ_ONLY_FIXES: Record<ReadOnlyKind, { action: SidebarAction; label: string }[]> = {
  untrusted: [{ action: 'manageTrust', label: 'Manage Trust' }],
  'cli-missing': [{ action: 'setCliPath', label: 'Set Path…' }],
  'cli-failed': [{ action: 'showLog', label: 'Show Log' }, { action: 'refresh', label: 'Retry' }],
  'cli-timeout': [{ action: 'refresh', label: 'Retry' }, { action: 'showLog', label: 'Show Log' }],
  // Nothing to fix: the view comes back writable by itself when the migration ends.
  migrating: [{ action: 'showLog', label: 'Show Log' }],
};

/**
 * One line (what is off, why, and the way out); the whole reason, with its links, one click
 * away under it. Writes are off, reading goes on: the banner must not push the issues away.
 */
function readOnlyBanner(reason: string, kind: ReadOnlyKind | undefined, host: Host): HTMLElement {
  const summary = el(
    'summary',
    { className: 'banner-summary' },
    icon('lock'),
    el('span', { className: 'banner-text', text: `Read-only: ${kind ? READ_ONLY_WORDS[kind] : 'no writes'}` }),
    ...(kind ? READ_ONLY_FIXES[kind] : []).map(({ action, label }) => linkButton(action, label, host)),
  );
  summary.title = reason;
  const detail = el('p', { className: 'banner-detail' }, ...linkified(`${reason} Claim, Close and Checkpoint are unavailable.`));
  return el('details', { className: 'banner banner-info banner-compact', attrs: { role: 'status' } }, summary, detail);
}

/** A command in a banner, drawn as a link; the host maps the action to its command. */
function linkButton(action: SidebarAction, label: string, host: Host): HTMLElement {
  const link = el('button', { className: 'link-button', text: label, attrs: { type: 'button', 'data-action': action } });
  link.addEventListener('click', (event) => {
    // A click on a link inside <summary> must not also open or close the details.
    event.preventDefault();
    host.run(action, undefined);
  });
  return link;
}

/** Text with its https addresses as links (the webview's host opens them in the browser). */
function linkified(value: string): Node[] {
  const parts: Node[] = [];
  let last = 0;
  for (const match of value.matchAll(/https:\/\/[^\s),]+/g)) {
    parts.push(document.createTextNode(value.slice(last, match.index)));
    const address = match[0].replace(/[.;:]+$/, '');
    parts.push(el('a', { text: address, attrs: { href: address } }));
    last = match.index + address.length;
  }
  parts.push(document.createTextNode(value.slice(last)));
  return parts;
}

function banner(iconName: string, kind: string, text: string, role: string, action?: HTMLElement): HTMLElement {
  return el('div', { className: `banner banner-${kind}`, attrs: { role } }, icon(iconName), el('span', { className: 'banner-text', text }), action);
}

function retryButton(host: Host): HTMLElement {
  const button = custom('vscode-button', { text: 'Retry', attrs: { secondary: '', icon: 'refresh', 'data-action': 'retry' } });
  button.addEventListener('click', () => host.retry());
  return button;
}

function toolbar(state: ViewState, host: Host): HTMLElement[] {
  if (state.kind !== 'project') return [];
  const writable = !state.project.readOnlyReason;
  const focusedId = state.model.focused?.issue.id;
  // A short word on the button, the whole name for screen readers and on hover.
  const button = (action: SidebarAction, label: string, word: string, iconName: string, options: { enabled: boolean; issueId?: string; secondary?: boolean }) => {
    const busy = host.isBusy(action, options.issueId);
    const element = custom('vscode-button', { text: word, attrs: { icon: busy ? 'loading' : iconName, 'data-action': action, 'aria-label': label } });
    element.title = label;
    if (options.secondary) element.setAttribute('secondary', '');
    // Busy buttons stay enabled (and focusable); a second press while busy is ignored.
    if (busy) {
      element.setAttribute('icon-spin', '');
      element.setAttribute('aria-busy', 'true');
    }
    if (!options.enabled) element.setAttribute('disabled', '');
    element.addEventListener('click', () => host.run(action, options.issueId));
    return element;
  };
  // Checkpoint, Copy, Inject and Refresh are the view's title-bar buttons; Close and Claim live
  // only in its overflow menu, so they stay here, where one click reaches them.
  return [
    button('close', focusedId ? `Close ${focusedId}…` : 'Close…', 'Close…', 'pass', { enabled: writable && !!focusedId, issueId: focusedId, secondary: true }),
    button('claim', 'Claim a Ready Issue…', 'Claim…', 'play', { enabled: writable, secondary: true }),
    servedBy(state.project),
  ];
}

/**
 * Which CLI serves the project, and its version (the view's header shows it only when the view is
 * not alone in its container); a withdrawn release is marked by an icon, and said in words on hover.
 */
function servedBy(project: ProjectInfo): HTMLElement {
  const name = [project.backend, project.cliVersion].filter(Boolean).join(' ');
  const element = el('span', { className: 'cli dim' }, project.cliWithdrawn ? icon('warning', 'warn') : undefined, el('span', { className: 'cli-name', text: name }));
  element.title = project.cliWithdrawn ? `Served by ${name}, a withdrawn release: the Beads log says why` : `Served by ${name}`;
  if (project.cliWithdrawn) element.setAttribute('aria-label', `${name}, withdrawn release`);
  return element;
}

function message(state: ViewState, host: Host): HTMLElement[] {
  switch (state.kind) {
    case 'loading':
      return [el('p', { className: 'hint', text: 'Loading beads…' })];
    case 'not-beads': {
      const refresh = custom('vscode-button', { text: 'Refresh', attrs: { icon: 'refresh', secondary: '' } });
      refresh.addEventListener('click', () => host.retry());
      return [
        el('p', { text: state.folderName ? `${state.folderName} is not a beads project: it has no .beads directory.` : 'This workspace has no beads project: no folder has a .beads directory.' }),
        el('p', { text: 'To start one, run one of these in the folder’s terminal, then refresh:' }),
        el('pre', { className: 'command', text: 'br init    # beads_rust\nbd init    # beads (Go)' }),
        refresh,
      ];
    }
    case 'error':
      return [el('p', { className: 'hint', text: 'Nothing to show until the CLI answers. Retry after fixing the problem above; the Beads log has details.' })];
    case 'project':
      return [];
  }
}

function sections(model: SidebarModel, project: ProjectInfo, host: Host): TreeNode[] {
  const writable = !project.readOnlyReason;
  const nodes: TreeNode[] = [];
  for (const [index, problem] of model.problems.entries()) {
    nodes.push(leaf(`problem:${index}`, row(icon('warning', 'warn'), text(problem)), problem));
  }
  // Writes beads refused stay first until someone retries or discards them; those waiting for beads next.
  if (model.parkedWrites) nodes.push(parkedSection(model.parkedWrites, writable, host));
  if (model.pendingWrites) {
    const words = `${model.pendingWrites} ${model.pendingWrites === 1 ? 'write is' : 'writes are'} waiting to reach beads`;
    nodes.push(leaf('outbox', row(icon('cloud-upload'), text(words)), words, 'outbox'));
  }
  if (model.next?.afterClose) nodes.push(afterCloseSection(model.next, model.next.afterClose, writable, host));
  nodes.push(model.focused ? focusedSection(model.focused, writable, host) : nothingInProgress(model, writable, host));
  if (model.otherInProgress.items.length > 0) nodes.push(otherInProgressSection(model.otherInProgress, host));
  if (model.sessions && model.sessions.length > 0) nodes.push(sessionsSection(model.sessions));
  if (model.focused) nodes.push(trailSection(model.trail));
  if (model.activity) nodes.push(activitySection(model.activity, host));
  if (model.uncommitted) nodes.push(uncommittedSection(model.uncommitted, host));
  nodes.push(readySection(model.ready, model.next?.item.issue.id, writable, host));
  return nodes;
}

/** The offer after a close, kept at the top until the user claims or dismisses it. */
function afterCloseSection(next: NextView, closed: IssueRef, writable: boolean, host: Host): TreeNode {
  const why = next.reason === 'unblocked' ? 'just unblocked' : 'next ready';
  const suggestion = readyNode('closed:next', next.item, writable, host);
  const title = `Closed ${closed.id}`;
  return {
    key: 'section:closed',
    label: `${title}; next: ${suggestion.label} (${why})`,
    // The id keeps its case: the section title's capitals would make wf-2 read WF-2.
    content: row(icon('pass', 'kind-closed'), text('Closed', 'section-title'), text(closed.id, 'id'), text(why, 'dim ellipsis grow')),
    expandedByDefault: true,
    className: 'section after-close',
    children: [{ ...suggestion, label: `Next: ${suggestion.label}`, content: row(text('Next:', 'dim next-label'), suggestion.content), claimsTabStop: `after-close:${closed.id}` }],
    actions: [{ icon: 'close', label: 'Dismiss this offer', run: () => host.dismissNext() }],
  };
}

function focusedSection(focused: FocusedIssueView, writable: boolean, host: Host): TreeNode {
  const issueId = focused.issue.id;
  const groups: TreeNode[] = [];
  const group = (key: string, title: string, refs: (IssueRef | BlockerRef | UnblockRef)[], describe: (ref: IssueRef | BlockerRef | UnblockRef) => string | undefined) => {
    if (refs.length === 0) return;
    groups.push({
      key: `focus:${key}`,
      label: `${title}, ${refs.length}`,
      content: sectionHeader(title, refs.length),
      expandedByDefault: true,
      children: refs.map((ref) => issueNode(`focus:${key}:${ref.id}`, ref, describe(ref))),
    });
  };
  group('children', 'Children', focused.children, () => undefined);
  group('blockers', 'Blocked by', focused.openBlockers, (ref) => ('statusKnown' in ref && !ref.statusKnown ? 'not found in this store' : undefined));
  group('unblocks', 'Closing it unblocks', focused.unblocks, (ref) =>
    'wouldBecomeReady' in ref ? (ref.wouldBecomeReady ? 'would become ready' : ref.wouldBecomeReady === false ? 'still blocked by others' : undefined) : undefined,
  );
  // The title gets the row: the priority joins the dimmed line under it, the type is an icon.
  const meta = [priorityText(focused.issue.priority), focused.assignee ? `assigned to ${focused.assignee}` : undefined, `updated ${focused.updatedAge}`].filter(Boolean).join(' · ');
  const base: TreeNode = {
    key: 'focus:issue',
    label: `${issueLabel(focused.issue)}; ${meta}`,
    content: el('div', { className: 'grow' }, row(statusIcon(focused.issue), typeIcon(focused.issue), text(focused.issue.id, 'id'), titleText(focused.issue.title)), row(text(meta, 'dim note'))),
  };
  const details: HTMLElement[] = [];
  const labels = [base.label];
  if (focused.description) {
    details.push(el('div', { className: 'description dim', text: focused.description }));
    labels.push(`description: ${focused.description}`);
  }
  if (focused.nextStep) {
    details.push(row(text('Next:', 'dim next-label'), text(focused.nextStep, 'next-step grow')));
    labels.push(`next step: ${focused.nextStep}`);
  }
  let node: TreeNode = {
    ...base,
    content: details.length > 0 ? el('div', { className: 'grow' }, base.content, ...details) : base.content,
    label: labels.join('; '),
    className: 'focused-issue',
    menuContext: { beadsRow: 'focused', issueId },
    expandedByDefault: true,
    children: groups,
    actions: [
      { icon: 'save', label: `Checkpoint ${issueId}`, disabled: !writable, busy: host.isBusy('checkpoint', issueId), run: () => host.run('checkpoint', issueId) },
      { icon: 'pass', label: `Close ${issueId}`, disabled: !writable, busy: host.isBusy('close', issueId), run: () => host.run('close', issueId) },
    ],
  };
  // Ancestors wrap the issue, innermost last, so the tree reads from the epic down.
  for (const ancestor of [...focused.ancestors].reverse()) {
    node = { ...issueNode(`focus:ancestor:${ancestor.id}`, ancestor), expandedByDefault: true, children: [node] };
  }
  if (focused.ancestorsCut) {
    node = { key: 'focus:ancestor:cut', label: 'Higher ancestors not loaded', content: row(icon('ellipsis'), text('higher ancestors not loaded', 'dim')), expandedByDefault: true, children: [node] };
  }
  return { key: 'section:focus', label: 'In progress', content: sectionHeader('In progress'), expandedByDefault: true, children: [node], className: 'section' };
}

function nothingInProgress(model: SidebarModel, writable: boolean, host: Host): TreeNode {
  const children: TreeNode[] = [leaf('focus:none', row(icon('info'), text('Nothing in progress.')), 'Nothing in progress.')];
  // After a close the offer above already names it.
  const next = model.next && !model.next.afterClose ? model.next.item : undefined;
  if (next) {
    const suggestion = readyNode('focus:next', next, writable, host);
    children.push({ ...suggestion, label: `Next: ${suggestion.label}`, content: row(text('Next:', 'dim next-label'), suggestion.content) });
  }
  return { key: 'section:focus', label: 'In progress', content: sectionHeader('In progress'), expandedByDefault: true, children, className: 'section' };
}

function otherInProgressSection(others: Capped<IssueRef>, host: Host): TreeNode {
  const children: TreeNode[] = others.items.map((ref) => ({
    ...issueNode(`others:${ref.id}`, ref),
    activate: () => host.focusIssue(ref.id),
    menuContext: { beadsRow: 'inProgress', issueId: ref.id },
    actions: [{ icon: 'target', label: `Focus ${ref.id}`, run: () => host.focusIssue(ref.id) }],
  }));
  return section('others', 'Also in progress', others.items.length + others.more, children, others.more);
}

const TRAIL_ICONS: Record<TrailKind, string> = {
  commit: 'git-commit',
  checkpoint: 'bookmark',
  'auto-checkpoint': 'history',
  files: 'files',
  note: 'comment',
};
const TRAIL_WORDS: Record<TrailKind, string> = {
  commit: 'Commit',
  checkpoint: 'Checkpoint',
  'auto-checkpoint': 'Automatic checkpoint',
  files: 'Files modified',
  note: 'Comment',
};

function trailSection(trail: Capped<TrailEntry>): TreeNode {
  const children = trail.items.map((entry): TreeNode => {
    const label = `${TRAIL_WORDS[entry.kind]}, ${entry.age}, by ${entry.author || 'unknown'}: ${entry.summary}`;
    const content = row(icon(TRAIL_ICONS[entry.kind], `kind-${entry.kind}`), text(entry.summary || TRAIL_WORDS[entry.kind], 'grow ellipsis'), text(entry.age, 'dim age'));
    content.title = `${entry.text}\n\n${entry.author} · ${entry.at}`;
    const node: TreeNode = { key: `trail:${entry.id}`, label, content, className: `trail trail-${entry.kind}` };
    node.children = [leaf(`trail:${entry.id}:text`, el('pre', { className: 'comment-text', text: `${entry.text}\n— ${entry.author || 'unknown'}, ${entry.at}` }), entry.text)];
    return node;
  });
  if (children.length === 0) children.push(leaf('trail:none', text('No comments yet.', 'dim'), 'No comments yet.'));
  return section('trail', 'Checkpoints', trail.items.length + trail.more, children, trail.more, 'earlier');
}

function activitySection(activity: ActivityView, host: Host): TreeNode {
  const since = activity.lastCheckpointAge ? `since the checkpoint ${activity.lastCheckpointAge}` : 'and no checkpoint yet';
  // The header says the count; when the last checkpoint was is its hover and its spoken name.
  const edits = `${activity.edits} ${activity.edits === 1 ? 'edit' : 'edits'}`;
  const summary = `${edits} ${since}`;
  const files = activity.files.items;
  const children: TreeNode[] = [
    ...activity.commits.items.map((commit) => leaf(`activity:commit:${commit.hash}`, row(icon('git-commit'), text(commit.hash, 'id'), text(commit.subject, 'grow ellipsis')), `Commit ${commit.hash} ${commit.subject}`)),
    ...(activity.files.items.length + activity.files.more > FLAT_LIST_LIMIT ? folderNodes('activity:file', activity.files, host) : files.map((file) => fileNode('activity:file', file, host))),
  ];
  if (activity.files.more > 0 && activity.files.items.length + activity.files.more <= FLAT_LIST_LIMIT) children.push(moreNode('activity:more', activity.files.more));
  const count = activity.files.items.length + activity.files.more;
  return {
    key: 'section:activity',
    label: `Files touched, ${count}, ${summary}`,
    content: sectionHeader('Files touched', count, edits, summary),
    expandedByDefault: true,
    children: children.length > 0 ? children : [leaf('activity:none', text('Nothing since the last checkpoint.', 'dim'), 'Nothing since the last checkpoint.')],
    className: 'section',
  };
}

function uncommittedSection(uncommitted: Part<FileList>, host: Host): TreeNode {
  if (!uncommitted.ok) {
    return section('uncommitted', 'Uncommitted changes', undefined, [leaf('uncommitted:error', row(icon('warning', 'warn'), text(uncommitted.error)), uncommitted.error)]);
  }
  const { items, more } = uncommitted.value;
  const long = items.length + more > FLAT_LIST_LIMIT;
  const children = long ? folderNodes('uncommitted', uncommitted.value, host) : items.map((file) => fileNode('uncommitted', file, host));
  if (children.length === 0) children.push(leaf('uncommitted:none', text('Working tree clean.', 'dim'), 'Working tree clean.'));
  const node = section('uncommitted', 'Uncommitted changes', items.length + more, children, long ? 0 : more);
  // A long list starts folded so that the ready queue below stays in sight.
  node.expandedByDefault = !long;
  return node;
}

/** Lists longer than this are grouped by folder, each folder folded with its count. */
const FLAT_LIST_LIMIT = 15;

/**
 * Files grouped by folder, each folded with the count of the whole list (the model counts what it
 * did not send too); a folder lists the files that were sent and says how many were not.
 */
function folderNodes(prefix: string, list: FileList, host: Host): TreeNode[] {
  return list.folders.map(({ folder, count }) => {
    const files = list.items.filter((file) => folderOf(file.path) === folder);
    const children = files.map((file) => fileNode(prefix, file, host));
    if (count > files.length) children.push(moreNode(`${prefix}:folder:${folder}:more`, count - files.length, 'more, not listed here'));
    return {
      key: `${prefix}:folder:${folder}`,
      label: `${folder}, ${count} ${count === 1 ? 'file' : 'files'}`,
      content: row(icon('folder'), text(folder === '.' ? '(top level)' : `${folder}/`, 'grow ellipsis'), custom('vscode-badge', { text: String(count), attrs: { variant: 'counter' } })),
      expandedByDefault: false,
      children,
    };
  });
}

function readySection(ready: Part<Capped<ReadyItemView>>, nextId: string | undefined, writable: boolean, host: Host): TreeNode {
  if (!ready.ok) {
    return section('ready', 'Ready', undefined, [leaf('ready:error', row(icon('warning', 'warn'), text(ready.error)), ready.error)]);
  }
  const { items, more } = ready.value;
  const children = items.map((item) => readyNode(`ready:${item.issue.id}`, item, writable, host, item.issue.id === nextId));
  if (children.length === 0) children.push(leaf('ready:none', text('No ready issues.', 'dim'), 'No ready issues.'));
  return section('ready', 'Ready', items.length + more, children, more);
}

/**
 * A ready issue in two lines, as GitLens's rows read at a sidebar's default width: the first is
 * the id and the title (the title gets the row), the second the priority, type, parent and what
 * it unblocks, dimmed; Claim shows on hover and focus, and is in the context menu.
 */
function readyNode(key: string, item: ReadyItemView, writable: boolean, host: Host, isNext = false): TreeNode {
  const issueId = item.issue.id;
  const labels = [issueLabel(item.issue)];
  if (isNext) labels.push('suggested next');
  // What it unblocks before its parent: it says more about what to pick, and the line may be cut.
  const facts: string[] = [];
  if (item.unblocks.length > 0) {
    facts.push(`unblocks ${item.unblocks.map((ref) => ref.id).join(', ')}`);
    labels.push(`unblocks ${item.unblocks.map((ref) => `${ref.id} ${ref.title}`.trim()).join(', ')}`);
  }
  if (item.parent) {
    facts.push(`in ${item.parent.id} ${item.parent.title}`.trim());
    labels.push(`parent ${item.parent.id} ${item.parent.title}`);
  }
  const rest = facts.join(' · ');
  const second = row(text(priorityText(item.issue.priority), `priority p${item.issue.priority}`), rest ? text(`· ${rest}`, 'dim grow ellipsis facts') : undefined);
  const first = row(statusIcon(item.issue), typeIcon(item.issue), text(issueId, 'id'), titleText(item.issue.title), isNext ? text('next', 'next-tag') : undefined);
  const content = el('div', { className: 'ready-item grow' }, first, second);
  content.title = [`${issueId} ${item.issue.title}`, item.parent ? `parent: ${item.parent.id} ${item.parent.title}` : undefined, item.unblocks.length > 0 ? `unblocks: ${item.unblocks.map((ref) => `${ref.id} ${ref.title}`).join(', ')}` : undefined].filter(Boolean).join('\n');
  const node: TreeNode = {
    key,
    label: labels.join('; '),
    content,
    className: 'ready',
    actions: [{ icon: 'play', label: `Claim ${issueId}`, disabled: !writable, busy: host.isBusy('claim', issueId), run: () => host.run('claim', issueId) }],
  };
  if (writable) {
    node.onSpace = () => host.run('claim', issueId, { confirm: true });
    node.menuContext = { beadsRow: 'ready', issueId };
  }
  return node;
}

function fileNode(prefix: string, file: FileEntry, host: Host): TreeNode {
  const name = file.path.split('/').pop() || file.path;
  const dir = file.path.slice(0, file.path.length - name.length).replace(/\/$/, '');
  const details = [file.change, file.from ? `from ${file.from}` : undefined].filter(Boolean).join(', ');
  const content = row(icon('file'), text(name, 'file-name'), text(dir, 'dim ellipsis grow'), details ? text(details, 'dim change') : undefined);
  content.title = file.from ? `${file.from} → ${file.path}` : file.path;
  return {
    key: `${prefix}:${file.path}`,
    label: `${file.path}${details ? `, ${details}` : ''}`,
    content,
    activate: () => host.openFile(file.path),
    actions: [{ icon: 'go-to-file', label: `Open ${file.path}`, run: () => host.openFile(file.path) }],
  };
}

function issueNode(key: string, ref: IssueRef, note?: string): TreeNode {
  const content = note ? el('div', { className: 'grow' }, issueLine(ref), row(text(note, 'dim note'))) : issueLine(ref);
  return { key, label: `${issueLabel(ref)}${note ? `; ${note}` : ''}`, content };
}

const STATUS_ICONS: Record<string, string> = {
  open: 'circle-large-outline',
  in_progress: 'play-circle',
  blocked: 'circle-slash',
  deferred: 'clock',
  draft: 'edit',
  closed: 'pass',
  tombstone: 'trash',
  pinned: 'pinned',
  hooked: 'plug',
};

function statusIcon(ref: IssueRef): HTMLElement {
  const status = icon(STATUS_ICONS[ref.status] ?? 'question', `status status-${STATUS_ICONS[ref.status] ? ref.status : 'other'}`);
  status.title = ref.status;
  return status;
}

function issueLine(ref: IssueRef, tag?: HTMLElement): HTMLElement {
  return row(statusIcon(ref), typeIcon(ref), text(ref.id, 'id'), titleText(ref.title), tag, text(priorityText(ref.priority), `priority p${ref.priority}`));
}

/** Each type's icon, as GitLens and the Beads Dashboard tell rows apart at a glance. */
const TYPE_ICONS: Record<string, string> = {
  bug: 'bug',
  feature: 'lightbulb',
  task: 'tasklist',
  epic: 'layers',
  chore: 'tools',
  decision: 'law',
  question: 'question',
};

/** The issue's type as an icon with its word for screen readers and on hover; br's dependency records carry no type ("unknown": not said), so none. */
function typeIcon(ref: IssueRef): HTMLElement | undefined {
  if (ref.issueType === 'unknown' || !ref.issueType) return undefined;
  const element = icon(TYPE_ICONS[ref.issueType] ?? 'symbol-misc', `type-icon type-${TYPE_ICONS[ref.issueType] ? ref.issueType : 'other'}`);
  element.removeAttribute('aria-hidden');
  element.setAttribute('role', 'img');
  element.setAttribute('aria-label', ref.issueType);
  element.title = ref.issueType;
  return element;
}

/** A title wraps between words rather than being cut: at the sidebar's default width every row shows all of it. */
function titleText(title: string): HTMLElement {
  if (!title) return text('(untitled)', 'title grow untitled');
  return text(title, 'title grow');
}

function issueLabel(ref: IssueRef): string {
  const type = ref.issueType === 'unknown' ? '' : `${ref.issueType}, `;
  return `${ref.id} ${ref.title || '(untitled)'}, ${type}${priorityText(ref.priority)}, ${ref.status.replace(/_/g, ' ')}`;
}

function priorityText(priority: number): string {
  return Number.isInteger(priority) ? `P${priority}` : 'P?';
}

function section(name: string, title: string, count: number | undefined, children: TreeNode[], more = 0, moreWord = 'more'): TreeNode {
  if (more > 0) children.push(moreNode(`${name}:more`, more, moreWord));
  return {
    key: `section:${name}`,
    label: count === undefined ? title : `${title}, ${count}`,
    content: sectionHeader(title, count),
    expandedByDefault: true,
    children,
    className: 'section',
  };
}

function sectionHeader(title: string, count?: number, note?: string, noteTitle?: string): HTMLElement {
  const noteElement = note ? text(note, 'dim ellipsis') : undefined;
  if (noteElement && noteTitle) noteElement.title = noteTitle;
  return row(text(title, 'section-title'), count === undefined ? undefined : custom('vscode-badge', { text: String(count), attrs: { variant: 'counter' } }), noteElement);
}

function moreNode(key: string, more: number, word = 'more'): TreeNode {
  const words = `…and ${more} ${word}`;
  return leaf(key, text(words, 'dim'), words);
}

function leaf(key: string, content: HTMLElement, label: string, className?: string): TreeNode {
  return className ? { key, content, label, className } : { key, content, label };
}

function row(...parts: (HTMLElement | undefined)[]): HTMLElement {
  return el('span', { className: 'line' }, ...parts);
}

function text(value: string, className = ''): HTMLElement {
  return el('span', { className, text: value });
}
