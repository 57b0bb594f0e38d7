// The sidebar's snapshot (loadSnapshot with the parent chain) over a fake backend that counts its
// processes: a constant number of calls whatever the depth of the chain or the size of the queue.
import { describe, expect, it } from 'vitest';
import type { BeadsBackend } from '../../src/beads/backend';
import type { Issue, IssueDetails } from '../../src/core/model';
import { parseJsonl } from '../../src/core/parse';
import { buildSidebarModel } from '../../src/core/viewModel';
import { loadSnapshot } from '../../src/services/snapshot';

const NOW = Date.parse('2026-02-19T12:00:00Z');

function store(records: { id: string; status?: string; parent?: string; blockedBy?: string[] }[]): IssueDetails[] {
  const lines = records.map((record) =>
    JSON.stringify({
      id: record.id,
      title: `Title of ${record.id}`,
      status: record.status ?? 'open',
      priority: 2,
      issue_type: 'task',
      created_at: '2026-02-01T00:00:00Z',
      updated_at: '2026-02-01T00:00:00Z',
      dependencies: [
        ...(record.parent ? [{ issue_id: record.id, depends_on_id: record.parent, type: 'parent-child' }] : []),
        ...(record.blockedBy ?? []).map((target) => ({ issue_id: record.id, depends_on_id: target, type: 'blocks' })),
      ],
    }),
  );
  return parseJsonl(lines.join('\n')).issues;
}

function fakeBackend(issues: IssueDetails[]): { backend: BeadsBackend; calls: string[] } {
  const calls: string[] = [];
  const byId = new Map(issues.map((issue) => [issue.id, issue]));
  const summary = (issue: IssueDetails): Issue => ({ ...issue });
  const backend: BeadsBackend = {
    kind: 'br',
    readOnly: false,
    root: '/project',
    async listInProgress() {
      calls.push('list');
      return issues.filter((issue) => issue.status === 'in_progress').map(summary);
    },
    async listReady() {
      calls.push('ready');
      // As br: open, no open blocker, and no children (an epic waits for its open children).
      const ready = (issue: IssueDetails) =>
        issue.status === 'open' &&
        issue.dependencies.every((dep) => dep.dependencyType !== 'blocks' || dep.status === 'closed') &&
        issue.dependents.every((dep) => dep.dependencyType !== 'parent-child');
      return issues.filter(ready).map(summary);
    },
    async show(ids) {
      calls.push(`show ${ids.join(' ')}`);
      return ids.map((id) => byId.get(id)).filter((issue): issue is IssueDetails => issue !== undefined);
    },
    addComment: async () => undefined,
    claim: async () => undefined,
    close: async () => undefined,
  };
  return { backend, calls };
}

describe('loadSnapshot with the parent chain', () => {
  const chain = store([
    { id: 'c-root', parent: 'c-top' },
    { id: 'c-top' },
    { id: 'c-epic', parent: 'c-root' },
    { id: 'c-feature', parent: 'c-epic' },
    { id: 'c-1', status: 'in_progress', parent: 'c-feature' },
    { id: 'c-next', blockedBy: ['c-1'] },
  ]);

  it('reaches the grandparent in two extra calls at most, the parent joining the dependents’ call', async () => {
    const { backend, calls } = fakeBackend(chain);
    const snapshot = await loadSnapshot(backend, { alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(calls.filter((call) => call.startsWith('show'))).toEqual(['show c-1', 'show c-next c-feature', 'show c-epic']);
    expect(calls).toHaveLength(5);
    const model = buildSidebarModel({ ...snapshot, now: NOW });
    // c-root is named by c-epic's own record; c-root's parent (c-top) was not loaded from here.
    expect(model.focused?.ancestors.map((issue) => issue.id)).toEqual(['c-root', 'c-epic', 'c-feature']);
    expect(model.focused?.ancestorsCut).toBe(true);
    expect(model.focused?.unblocks).toEqual([expect.objectContaining({ id: 'c-next', wouldBecomeReady: true })]);
  });

  it('costs no extra call for ancestors when asked not to load them', async () => {
    const { backend, calls } = fakeBackend(chain);
    await loadSnapshot(backend, { alwaysReady: true, readyDetails: 50 });
    expect(calls.filter((call) => call.startsWith('show'))).toEqual(['show c-1', 'show c-next']);
  });

  it('keeps the number of calls constant for a thousand ready issues', async () => {
    const many = store([{ id: 'm-1', status: 'in_progress' }, ...Array.from({ length: 1000 }, (_, index) => ({ id: `m-r${index}` }))]);
    const { backend, calls } = fakeBackend(many);
    await loadSnapshot(backend, { alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(calls).toHaveLength(3);
    expect(calls[2]?.split(' ')).toHaveLength(1 + 1 + 50);
  });
});
