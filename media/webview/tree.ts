// An ARIA tree (role tree / treeitem / group) with the keyboard model of the WAI-ARIA tree
// pattern: one tab stop (roving tabindex), arrows move and expand, Home/End jump, Enter runs the
// item's main action. An item's inline action buttons share its tab stop: Tab moves from the
// active item into its buttons, then out of the tree. Expansion and the active item are keyed
// by stable strings so that they survive re-renders and the webview's re-creation.
import { el, icon } from './dom';

export interface TreeAction {
  icon: string;
  label: string;
  /** Shown next to the icon when there is room. */
  text?: string;
  disabled?: boolean;
  /** Waiting for the host: a spinner replaces the icon. */
  busy?: boolean;
  run(button: HTMLButtonElement): void;
}

export interface TreeNode {
  /** Stable across refreshes: keys expansion and focus. */
  key: string;
  /** The visible row content, built with textContent only. */
  content: HTMLElement;
  /** The accessible name (the row's content may hold icons and badges). */
  label: string;
  children?: TreeNode[];
  expandedByDefault?: boolean;
  /** What Enter, Space and a click do; without it they toggle expansion (or Enter moves into the row's actions). */
  activate?: () => void;
  /** What Space does instead, when it differs (claiming a ready issue, after the host asks). */
  onSpace?: () => void;
  actions?: TreeAction[];
  /** The row's `data-vscode-context`: VS Code's context menu (right-click, Shift+F10) shows the actions the manifest gives it. */
  menuContext?: Record<string, string>;
  className?: string;
  /**
   * The first render that shows a node with this token makes it the tree's tab stop: an offer that
   * just appeared (the next issue after a close) is where Tab lands, not the row active before it.
   */
  claimsTabStop?: string;
}

export interface TreeMemory {
  expanded: Record<string, boolean>;
  activeKey?: string;
}

export class Tree {
  private readonly root: HTMLUListElement;
  private items: HTMLElement[] = [];
  private readonly nodes = new Map<HTMLElement, TreeNode>();
  private readonly tabStopsClaimed = new Set<string>();

  constructor(
    container: HTMLElement,
    label: string,
    private readonly memory: TreeMemory,
    private readonly remember: () => void,
  ) {
    this.root = el('ul', { className: 'tree', attrs: { role: 'tree', 'aria-label': label } });
    this.root.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.root.addEventListener('click', (event) => this.onClick(event));
    this.root.addEventListener('focusin', (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
      if (item && this.nodes.has(item)) this.setActive(item, false);
    });
    container.append(this.root);
  }

  render(nodes: readonly TreeNode[]): void {
    const hadFocus = this.root.contains(document.activeElement);
    const focusedAction = hadFocus && document.activeElement?.matches('.row-action') ? document.activeElement.getAttribute('aria-label') : null;
    this.nodes.clear();
    this.root.replaceChildren(...nodes.map((node) => this.renderItem(node, 1)));
    this.items = [...this.root.querySelectorAll<HTMLElement>('[role="treeitem"]')];
    const claiming = this.items.find((item) => {
      const token = this.nodes.get(item)?.claimsTabStop;
      return token !== undefined && !this.tabStopsClaimed.has(token);
    });
    if (claiming) {
      this.tabStopsClaimed.add(this.nodes.get(claiming)?.claimsTabStop as string);
      this.memory.activeKey = this.nodes.get(claiming)?.key;
    }
    const active = this.items.find((item) => this.nodes.get(item)?.key === this.memory.activeKey) ?? this.visibleItems()[0];
    if (!active) return;
    const sameAction = focusedAction ? rowActions(active).find((button) => button.getAttribute('aria-label') === focusedAction && !button.disabled) : undefined;
    // Keep the keyboard where it was without moving the page: a refresh must not scroll.
    this.setActive(active, false);
    if (sameAction) sameAction.focus({ preventScroll: true });
    else if (hadFocus) active.focus({ preventScroll: true });
  }

  private renderItem(node: TreeNode, level: number): HTMLElement {
    const expandable = (node.children?.length ?? 0) > 0;
    const expanded = expandable && (this.memory.expanded[node.key] ?? node.expandedByDefault ?? false);
    const item = el('li', {
      className: `treeitem ${node.className ?? ''}`.trim(),
      attrs: { role: 'treeitem', 'aria-level': String(level), 'aria-label': node.label, tabindex: '-1', 'data-key': node.key },
    });
    if (expandable) item.setAttribute('aria-expanded', String(expanded));
    if (node.menuContext) item.setAttribute('data-vscode-context', JSON.stringify(node.menuContext));
    const row = el('div', { className: 'row' });
    // CSSOM, not a style attribute: the CSP allows no inline styles.
    row.style.paddingLeft = `${(level - 1) * 12 + 4}px`;
    row.append(expandable ? icon(expanded ? 'chevron-down' : 'chevron-right', 'twistie') : el('span', { className: 'twistie' }));
    row.append(node.content);
    if (node.actions?.length) {
      const actions = el('span', { className: 'row-actions' });
      for (const action of node.actions) actions.append(this.renderAction(action));
      row.append(actions);
      // What the focused row keeps clear for its buttons (each 24 px and a gap, and the group's padding).
      row.style.setProperty('--actions-width', `${node.actions.length * 26 + 10}px`);
    }
    item.append(row);
    if (expandable) {
      const group = el('ul', { attrs: { role: 'group' } });
      group.hidden = !expanded;
      for (const child of node.children ?? []) group.append(this.renderItem(child, level + 1));
      item.append(group);
    }
    this.nodes.set(item, node);
    return item;
  }

  private renderAction(action: TreeAction): HTMLButtonElement {
    const button = el('button', {
      className: 'row-action',
      attrs: { type: 'button', 'aria-label': action.label, title: action.label, tabindex: '-1' },
    }, action.busy ? icon('loading', 'codicon-modifier-spin') : icon(action.icon), action.text ? el('span', { className: 'row-action-text', text: action.text }) : undefined);
    button.disabled = action.disabled ?? false;
    if (action.busy) button.setAttribute('aria-busy', 'true');
    button.addEventListener('click', (event) => {
      event.stopPropagation();
      action.run(button);
    });
    return button;
  }

  private visibleItems(): HTMLElement[] {
    return this.items.filter((item) => !item.parentElement?.closest('[role="group"][hidden]'));
  }

  private setActive(item: HTMLElement, focus: boolean): void {
    for (const other of this.items) {
      const isActive = other === item;
      other.tabIndex = isActive ? 0 : -1;
      for (const button of rowActions(other)) button.tabIndex = isActive ? 0 : -1;
    }
    const key = this.nodes.get(item)?.key;
    if (key !== this.memory.activeKey) {
      this.memory.activeKey = key;
      this.remember();
    }
    if (focus) item.focus();
  }

  private toggle(item: HTMLElement, expand?: boolean): void {
    const node = this.nodes.get(item);
    if (!node || !item.hasAttribute('aria-expanded')) return;
    const expanded = expand ?? item.getAttribute('aria-expanded') !== 'true';
    item.setAttribute('aria-expanded', String(expanded));
    const group = item.querySelector<HTMLElement>(':scope > [role="group"]');
    if (group) group.hidden = !expanded;
    const twistie = item.querySelector<HTMLElement>(':scope > .row > .twistie');
    twistie?.classList.replace(expanded ? 'codicon-chevron-right' : 'codicon-chevron-down', expanded ? 'codicon-chevron-down' : 'codicon-chevron-right');
    this.memory.expanded[node.key] = expanded;
    this.remember();
  }

  private onClick(event: MouseEvent): void {
    const target = event.target as HTMLElement;
    const item = target.closest<HTMLElement>('[role="treeitem"]');
    if (!item || target.closest('button')) return;
    this.setActive(item, true);
    const node = this.nodes.get(item);
    if (node?.activate && !target.classList.contains('twistie')) node.activate();
    else this.toggle(item);
  }

  private onKeyDown(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (target.closest('button')) {
      if (event.key === 'Escape') {
        event.preventDefault();
        target.closest<HTMLElement>('[role="treeitem"]')?.focus();
      }
      return;
    }
    const item = target.closest<HTMLElement>('[role="treeitem"]');
    if (!item) return;
    const visible = this.visibleItems();
    const index = visible.indexOf(item);
    const expanded = item.getAttribute('aria-expanded');
    const move = (next: HTMLElement | undefined) => next && this.setActive(next, true);
    switch (event.key) {
      case 'ArrowDown':
        move(visible[index + 1]);
        break;
      case 'ArrowUp':
        move(visible[index - 1]);
        break;
      case 'Home':
        move(visible[0]);
        break;
      case 'End':
        move(visible[visible.length - 1]);
        break;
      case 'ArrowRight':
        if (expanded === 'false') this.toggle(item, true);
        else if (expanded === 'true') move(visible[index + 1]);
        break;
      case 'ArrowLeft':
        if (expanded === 'true') this.toggle(item, false);
        else move(item.parentElement?.closest<HTMLElement>('[role="treeitem"]') ?? undefined);
        break;
      case 'Enter':
      case ' ': {
        const node = this.nodes.get(item);
        const firstAction = rowActions(item).find((button) => !button.disabled);
        if (event.key === ' ' && node?.onSpace) node.onSpace();
        else if (node?.activate) node.activate();
        // A row whose only use is its buttons: Enter opens them (Tab and Escape move between row and buttons).
        else if (event.key === 'Enter' && firstAction && !item.hasAttribute('aria-expanded')) firstAction.focus();
        else this.toggle(item);
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  }
}

function rowActions(item: HTMLElement): HTMLButtonElement[] {
  return [...item.querySelectorAll<HTMLButtonElement>(':scope > .row > .row-actions > button')];
}
