// The view model over the real 5,722-line bd export (2,403 live issues): the ready queue's
// parents and unblocks must agree with the data's own records, and one state message must stay
// small whatever is passed in.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBlockersOf, parentOf, unblocksOf } from '../../../src/core/graph';
import type { Issue, IssueDetails } from '../../../src/core/model';
import { isContainer, readyOrder } from '../../../src/core/next';
import { parseJsonl } from '../../../src/core/parse';
import { buildSidebarModel, nextViewState } from '../../../src/core/viewModel';
import type { HostMessage } from '../../../src/shared/protocol';

const dataSet = path.resolve(__dirname, '../..', 'fixtures/beads/data/bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl');
const NOW = Date.parse('2026-01-22T00:00:00Z');

const { issues } = parseJsonl(readFileSync(dataSet, 'utf8'));
const byId = new Map(issues.map((issue) => [issue.id, issue]));
// bd-8rd has a parent and seven children; claimed here so that the tree has every part.
const focused: IssueDetails = { ...byId.get('bd-8rd')!, status: 'in_progress' };
const details = issues.map((issue) => (issue.id === focused.id ? focused : issue));
// The ready queue as bd orders it: open, nothing open blocking, priority then newest first.
const ready: Issue[] = issues
  .filter((issue) => issue.status === 'open' && openBlockersOf(issue).length === 0)
  .sort((a, b) => a.priority - b.priority || b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));

describe('the view model on the 5,722-issue data set', () => {
  const model = buildSidebarModel({
    inProgress: { ok: true, value: [focused] },
    ready: { ok: true, value: ready },
    details: { ok: true, value: details },
    focusedId: focused.id,
    now: NOW,
  });

  it('builds the focused tree from the data', () => {
    expect(issues.length).toBe(2403);
    expect(model.focused?.ancestors.map((issue) => issue.id)).toEqual([parentOf(focused)!.id]);
    expect(model.focused?.children.length).toBe(7);
    expect(model.focused?.children.every((child) => byId.get(child.id)?.status === child.status)).toBe(true);
  });

  it('gives each ready item the parent and unblocks its records name, in the queue order', () => {
    // Epics take no row; the next issue leads, the rest keep the queue's order.
    const rows = readyOrder(ready, model.next?.item.issue);
    expect(rows.some(isContainer)).toBe(false);
    expect(rows.length).toBeGreaterThan(50);
    const items = model.ready.ok ? model.ready.value.items : [];
    expect(items.map((item) => item.issue.id)).toEqual(rows.slice(0, 50).map((issue) => issue.id));
    expect(model.ready.ok && model.ready.value.more).toBe(rows.length - 50);
    for (const item of items) {
      const source = byId.get(item.issue.id)!;
      expect(item.parent?.id).toBe(parentOf(source)?.id);
      expect(item.unblocks.map((issue) => issue.id)).toEqual(unblocksOf(source).map((issue) => issue.id).slice(0, 8));
    }
  });

  it('keeps one state message under 200 KB even when every live issue is in the ready queue', () => {
    const everything = nextViewState(
      { kind: 'loading' },
      {
        kind: 'loaded',
        project: { name: 'beads', backend: 'bd' },
        input: { inProgress: { ok: true, value: details }, ready: { ok: true, value: details }, details: { ok: true, value: details }, focusedId: focused.id, now: NOW },
      },
    );
    const message: HostMessage = { type: 'state', state: everything };
    const bytes = Buffer.byteLength(JSON.stringify(message));
    expect(bytes).toBeLessThan(200_000);
  });
});
