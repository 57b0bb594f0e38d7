// @vitest-environment happy-dom
// The Beads view's "Refused by beads" section, rendered into a DOM as the webview does: what it
// shows (the issue, what the write was, when and why beads refused it, its words), that hostile
// text stays text, and which protocol action each button asks for (media/webview/parked.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import { parkedSection, type ParkedHost } from '../../../media/webview/parked';
import { renderPage, type Host, type Page } from '../../../media/webview/render';
import { Tree } from '../../../media/webview/tree';
import type { Capped, ParkedWriteView, SidebarAction, ViewState } from '../../../src/shared/protocol';

const HOSTILE = '<img src=x onerror=alert(1)><script>document.title="pwned"</script>';

const checkpoint: ParkedWriteView = {
  key: 'checkpoint:demo-1:f7937425',
  issueId: 'demo-1',
  issueTitle: `Parse ${HOSTILE}`,
  what: 'Checkpoint',
  refusedAge: '5m ago',
  refusedAt: '2026-02-19T11:55:00.000Z',
  reason: `'br comments add demo-1' was refused: ${HOSTILE}`,
  words: `Checkpoint: parser done\n- Next: ${HOSTILE}`,
};
const claim: ParkedWriteView = { key: 'claim:demo-9', issueId: 'demo-9', what: 'Claim', refusedAge: '1m ago', refusedAt: '2026-02-19T11:59:00.000Z', reason: 'issue not claimable' };

interface Run {
  action: SidebarAction;
  writeKey?: string;
}

function recordingHost(busy: Run[] = []): ParkedHost & { runs: Run[] } {
  const runs: Run[] = [];
  return {
    runs,
    run: (action, _issueId, options) => runs.push({ action, ...(options.writeKey === undefined ? {} : { writeKey: options.writeKey }) }),
    isBusy: (action, _issueId, writeKey) => busy.some((run) => run.action === action && run.writeKey === writeKey),
  };
}

function render(parked: Capped<ParkedWriteView>, writable: boolean, host: ParkedHost): HTMLElement {
  const container = document.createElement('main');
  document.body.replaceChildren(container);
  new Tree(container, 'Beads work', { expanded: {} }, () => undefined).render([parkedSection(parked, writable, host)]);
  return container;
}

function button(scope: Element, label: string): HTMLButtonElement {
  const found = [...scope.querySelectorAll<HTMLButtonElement>(':scope > .row > .row-actions > button')].find((candidate) => candidate.getAttribute('aria-label')?.startsWith(label));
  if (!found) throw new Error(`no button "${label}"`);
  return found;
}

function item(container: HTMLElement, key: string): HTMLElement {
  const found = container.querySelector<HTMLElement>(`[role="treeitem"][data-key="${key}"]`);
  if (!found) throw new Error(`no row ${key}`);
  return found;
}

beforeEach(() => document.body.replaceChildren());

describe('the Refused by beads section', () => {
  it('names each write: the issue and its title, what it was, when and why; its words under it; hostile text stays text', () => {
    const container = render({ items: [checkpoint, claim], more: 0 }, true, recordingHost());
    const section = item(container, 'section:parked');
    expect(section.getAttribute('aria-label')).toBe('Refused by beads, 2');
    const row = item(container, `parked:${checkpoint.key}`);
    expect(row.getAttribute('aria-label')).toBe(`Checkpoint on demo-1 Parse ${HOSTILE}, refused by beads 5m ago: ${checkpoint.reason}`);
    const shown = row.querySelector(':scope > .row')!.textContent;
    expect(shown).toContain('Checkpointdemo-1');
    expect(shown).toContain(`refused 5m ago: ${checkpoint.reason}`);
    expect((row.querySelector(':scope > .row > div') as HTMLElement).title).toContain('refused by beads 2026-02-19T11:55:00.000Z');
    expect(row.querySelector('pre.comment-text')!.textContent).toBe(checkpoint.words);
    // A claim has no words, so nothing to expand.
    expect(item(container, 'parked:claim:demo-9').hasAttribute('aria-expanded')).toBe(false);
    expect(container.querySelectorAll('img, script').length).toBe(0);
  });

  it('asks for Retry, Show and Discard of all writes from the section and of one write from its row, by key', () => {
    const host = recordingHost();
    const container = render({ items: [checkpoint, claim], more: 0 }, true, host);
    const section = item(container, 'section:parked');
    button(section, 'Send them to beads again').click();
    button(section, 'Show them').click();
    button(section, 'Discard them').click();
    const row = item(container, 'parked:claim:demo-9');
    button(row, 'Send the Claim on demo-9 again').click();
    button(row, 'Show the Claim on demo-9').click();
    button(row, 'Discard the Claim on demo-9').click();
    expect(host.runs).toEqual([
      { action: 'retryParked' },
      { action: 'showParked' },
      { action: 'discardParked' },
      { action: 'retryParked', writeKey: 'claim:demo-9' },
      { action: 'showParked', writeKey: 'claim:demo-9' },
      { action: 'discardParked', writeKey: 'claim:demo-9' },
    ]);
    // The section's Retry says so in words; it is the one always in sight.
    expect(button(section, 'Send them').textContent).toBe('Retry');
  });

  it('read-only, Retry is off while Show and Discard stay; a write being discarded shows a spinner on its own button only', () => {
    const container = render({ items: [checkpoint], more: 0 }, false, recordingHost([{ action: 'discardParked', writeKey: checkpoint.key }]));
    const section = item(container, 'section:parked');
    expect([button(section, 'Send it').disabled, button(section, 'Show it').disabled, button(section, 'Discard it').disabled]).toEqual([true, false, false]);
    expect(button(item(container, `parked:${checkpoint.key}`), 'Discard the').getAttribute('aria-busy')).toBe('true');
    expect(button(section, 'Discard it').hasAttribute('aria-busy')).toBe(false);
  });

  it('counts the writes it does not list', () => {
    const container = render({ items: [checkpoint], more: 4 }, true, recordingHost());
    expect(item(container, 'section:parked').getAttribute('aria-label')).toBe('Refused by beads, 5');
    expect(item(container, 'parked:more').textContent).toBe('…and 4 more (Show lists them all)');
  });

  it('comes first in the view, above the writes still waiting and the issue in progress', () => {
    const page: Page = {
      progress: document.createElement('div'),
      banners: document.createElement('div'),
      toolbar: document.createElement('div'),
      message: document.createElement('div'),
      tree: new Tree(document.body, 'Beads work', { expanded: {} }, () => undefined),
    };
    const state: ViewState = {
      kind: 'project',
      project: { name: 'demo', backend: 'br' },
      model: { otherInProgress: { items: [], more: 0 }, trail: { items: [], more: 0 }, pendingWrites: 2, parkedWrites: { items: [checkpoint], more: 0 }, ready: { ok: true, value: { items: [], more: 0 } }, problems: [] },
      refreshing: false,
    };
    const host: Host = { run: () => undefined, openFile: () => undefined, focusIssue: () => undefined, dismissNext: () => undefined, retry: () => undefined, isBusy: () => false };
    renderPage(state, page, host);
    const sections = [...document.querySelectorAll('[role="tree"] > [role="treeitem"]')].map((element) => element.getAttribute('data-key'));
    expect(sections.slice(0, 3)).toEqual(['section:parked', 'outbox', 'section:focus']);
  });
});
