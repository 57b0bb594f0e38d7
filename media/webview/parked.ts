// The "Refused by beads" section: each write beads refused (parked in the outbox), kept at the top
// of the view until someone sends it again or discards it — the issue, what the write was, when
// beads refused it and beads' own reason, with Retry, Show and Discard on the section (all of
// them) and on each row (that one). Expanding a row shows the write's words. Text only, through
// textContent: the words, the reason and the title are data.
import type { Capped, ParkedWriteView, SidebarAction } from '../../src/shared/protocol';
import { custom, el, icon } from './dom';
import type { TreeAction, TreeNode } from './tree';

/** What the section asks of the page's host (render.ts's Host has this shape). */
export interface ParkedHost {
  run(action: SidebarAction, issueId: undefined, options: { writeKey?: string }): void;
  isBusy(action: SidebarAction, issueId: undefined, writeKey?: string): boolean;
}

export function parkedSection(parked: Capped<ParkedWriteView>, writable: boolean, host: ParkedHost): TreeNode {
  const count = parked.items.length + parked.more;
  const children = parked.items.map((write) => parkedNode(write, writable, host));
  if (parked.more > 0) {
    const words = `…and ${parked.more} more (Show lists them all)`;
    children.push({ key: 'parked:more', label: words, content: el('span', { className: 'dim', text: words }) });
  }
  const them = count === 1 ? 'it' : 'them';
  return {
    key: 'section:parked',
    label: `Refused by beads, ${count}`,
    content: el(
      'span',
      { className: 'line' },
      icon('warning', 'warn'),
      el('span', { className: 'section-title', text: 'Refused by beads' }),
      custom('vscode-badge', { text: String(count), attrs: { variant: 'counter' } }),
    ),
    expandedByDefault: true,
    className: 'section parked',
    children,
    actions: actions(undefined, writable, host, { retry: `Send ${them} to beads again`, show: `Show ${them}, with the words`, discard: `Discard ${them}…` }, 'Retry'),
  };
}

function parkedNode(write: ParkedWriteView, writable: boolean, host: ParkedHost): TreeNode {
  const subject = `${write.what} on ${write.issueId}`;
  const first = el(
    'span',
    { className: 'line' },
    icon('error', 'warn'),
    el('span', { className: 'parked-what', text: write.what }),
    el('span', { className: 'id', text: write.issueId }),
    write.issueTitle ? el('span', { className: 'title grow ellipsis', text: write.issueTitle }) : el('span', { className: 'grow' }),
  );
  const why = el('span', { className: 'line' }, el('span', { className: 'dim parked-reason grow', text: `refused ${write.refusedAge}: ${write.reason}` }));
  const content = el('div', { className: 'grow' }, first, why);
  content.title = [`${subject}${write.issueTitle ? ` — ${write.issueTitle}` : ''}`, `refused by beads ${write.refusedAt || write.refusedAge}`, `beads said: ${write.reason}`].join('\n');
  const node: TreeNode = {
    key: `parked:${write.key}`,
    label: `${subject}${write.issueTitle ? ` ${write.issueTitle}` : ''}, refused by beads ${write.refusedAge}: ${write.reason}`,
    content,
    className: 'parked-write',
    expandedByDefault: false,
    actions: actions(write.key, writable, host, { retry: `Send the ${subject} again`, show: `Show the ${subject}`, discard: `Discard the ${subject}…` }),
  };
  if (write.words) {
    node.children = [{ key: `parked:${write.key}:words`, label: write.words, content: el('pre', { className: 'comment-text', text: write.words }) }];
  }
  return node;
}

function actions(writeKey: string | undefined, writable: boolean, host: ParkedHost, labels: { retry: string; show: string; discard: string }, retryText?: string): TreeAction[] {
  const action = (name: SidebarAction, iconName: string, label: string, options: { disabled?: boolean; text?: string } = {}): TreeAction => {
    const made: TreeAction = { icon: iconName, label, busy: host.isBusy(name, undefined, writeKey), run: () => host.run(name, undefined, writeKey === undefined ? {} : { writeKey }) };
    if (options.disabled) made.disabled = true;
    if (options.text) made.text = options.text;
    return made;
  };
  return [
    // Read-only, nothing can be sent: the writes wait where they are.
    action('retryParked', 'refresh', labels.retry, { disabled: !writable, ...(retryText ? { text: retryText } : {}) }),
    action('showParked', 'eye', labels.show),
    action('discardParked', 'trash', labels.discard),
  ];
}
