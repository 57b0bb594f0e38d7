// The snapshot behind the sidebar and the recovery context, over a fake backend that counts its
// processes and the dependent steps they form: a constant number of calls whatever the depth of
// the chain or the size of the queue, and at most two steps.
import { describe, expect, it } from 'vitest';
import type { BeadsBackend } from '../../../src/beads/backend';
import type { IssueDetails } from '../../../src/core/model';
import { parseJsonl } from '../../../src/core/parse';
import { buildSidebarModel } from '../../../src/core/viewModel';
import { loadSnapshot } from '../../../src/services/snapshot';
import { FakeBackend } from '../support/fakeBackend';

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

/** The shared fake backend, each call taking a moment, so that calls started together form one step. */
function fakeBackend(issues: IssueDetails[]): { backend: BeadsBackend; calls: string[]; steps(): number } {
  const backend = new FakeBackend(issues, { latencyMs: 1 });
  return { backend, calls: backend.log, steps: () => backend.steps() };
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

  it('without hints: the lists, then one show; the chain and the dependents wait for the next refresh', async () => {
    const { backend, calls, steps } = fakeBackend(chain);
    const snapshot = await loadSnapshot(backend, { alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(calls).toEqual(['list', 'ready', 'show c-1']);
    expect(steps()).toBe(2);
    expect(snapshot.incomplete).toBe(true);
    expect(snapshot.contextIds).toEqual(['c-1', 'c-next', 'c-feature']);
  });

  it('with the last snapshot as hints: everything known alongside the lists, the next ancestor in a second step', async () => {
    const { backend: first } = fakeBackend(chain);
    let snapshot = await loadSnapshot(first, { alwaysReady: true, readyDetails: 50, ancestors: true });
    const { backend, calls, steps } = fakeBackend(chain);
    snapshot = await loadSnapshot(backend, { focusedId: 'c-1', hints: snapshot.contextIds, alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(calls).toEqual(['list', 'ready', 'show c-1,c-next,c-feature', 'show c-epic']);
    expect(steps()).toBe(2);
    const model = buildSidebarModel({ ...snapshot, now: NOW });
    expect(model.focused?.unblocks).toEqual([expect.objectContaining({ id: 'c-next', wouldBecomeReady: true })]);
    // c-root is named by c-epic's own record; its parent (c-top) comes with the next refresh.
    expect(model.focused?.ancestors.map((issue) => issue.id)).toEqual(['c-root', 'c-epic', 'c-feature']);
    expect(snapshot.incomplete).toBe(true);
    const { backend: third, calls: thirdCalls } = fakeBackend(chain);
    snapshot = await loadSnapshot(third, { focusedId: 'c-1', hints: snapshot.contextIds, alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(thirdCalls).toEqual(['list', 'ready', 'show c-1,c-next,c-feature,c-epic,c-root', 'show c-top']);
    const { backend: settled, calls: settledCalls, steps: settledSteps } = fakeBackend(chain);
    snapshot = await loadSnapshot(settled, { focusedId: 'c-1', hints: snapshot.contextIds, alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(settledCalls).toHaveLength(3);
    expect(settledSteps()).toBe(1);
    expect(snapshot.incomplete).toBe(false);
  });

  it('for a recovery context with the expected focus: three processes in two steps, the dependents and the parent included', async () => {
    const { backend, calls, steps } = fakeBackend(chain);
    const snapshot = await loadSnapshot(backend, { focusedId: 'c-1', alwaysReady: false, readyDetails: 5 });
    // The parent's children are the focus's siblings: the closed ones are work already done.
    expect(calls).toEqual(['list', 'show c-1', 'show c-next,c-feature']);
    expect(steps()).toBe(2);
    expect(snapshot.incomplete).toBe(false);
  });

  it('keeps the number of calls constant for a thousand ready issues', async () => {
    const many = store([{ id: 'm-1', status: 'in_progress' }, ...Array.from({ length: 1000 }, (_, index) => ({ id: `m-r${index}` }))]);
    const { backend, calls } = fakeBackend(many);
    await loadSnapshot(backend, { alwaysReady: true, readyDetails: 50, ancestors: true });
    expect(calls).toHaveLength(3);
    expect(calls[2]?.split(/[ ,]/)).toHaveLength(1 + 1 + 50);
  });

  it('with nothing in progress: the ready queue comes with the in-progress list', async () => {
    const open = store([{ id: 'o-1' }, { id: 'o-2', blockedBy: ['o-1'] }]);
    const { backend, calls, steps } = fakeBackend(open);
    const snapshot = await loadSnapshot(backend, { alwaysReady: false, readyDetails: 5 });
    expect(calls).toEqual(['list', 'ready', 'show o-1']);
    expect(steps()).toBe(2);
    expect(snapshot.focusedId).toBeUndefined();
  });
});

describe('loadSnapshot for a one-shot context: at most three processes in two steps, every time', () => {
  const chain = store([{ id: 'f-1', status: 'in_progress' }, { id: 'f-next', blockedBy: ['f-1'] }, { id: 'f-other' }]);

  it('with no focus expected: the lists, then one show; the dependents it could not know are left for the next context', async () => {
    const cold = fakeBackend(chain);
    const snapshot = await loadSnapshot(cold.backend, { alwaysReady: false, readyDetails: 5, oneShot: true });
    expect(cold.calls).toEqual(['list', 'ready', 'show f-1,f-other']);
    expect(cold.steps()).toBe(2);
    expect(snapshot.incomplete).toBe(true);
    const warm = fakeBackend(chain);
    const next = await loadSnapshot(warm.backend, { focusedId: 'f-1', hints: snapshot.contextIds, alwaysReady: false, readyDetails: 5, oneShot: true });
    expect(warm.calls).toEqual(['list', 'show f-1,f-next,f-other']);
    expect(warm.steps()).toBe(1);
    expect(next.incomplete).toBe(false);
  });

  it('with the expected focus: its show and its dependents come with the list', async () => {
    const { backend, calls, steps } = fakeBackend(chain);
    const snapshot = await loadSnapshot(backend, { focusedId: 'f-1', hints: ['f-next'], alwaysReady: false, readyDetails: 5, oneShot: true });
    expect(calls).toEqual(['list', 'show f-1,f-next']);
    expect(steps()).toBe(1);
    expect(snapshot.incomplete).toBe(false);
  });

  it('when the expected focus was closed and nothing else is in progress: the ready list is the second step, with what the first show brought', async () => {
    const closed = store([{ id: 'g-1', status: 'closed' }, { id: 'g-next', blockedBy: ['g-1'] }]);
    const { backend, calls, steps } = fakeBackend(closed);
    const snapshot = await loadSnapshot(backend, { focusedId: 'g-1', hints: ['g-next'], alwaysReady: false, readyDetails: 5, oneShot: true });
    expect(calls).toEqual(['list', 'show g-1,g-next', 'ready']);
    expect(steps()).toBe(2);
    expect(snapshot.focusedId).toBeUndefined();
    expect(snapshot.ready.ok && snapshot.ready.value.map((issue) => issue.id)).toEqual(['g-next']);
    expect(snapshot.details.ok && snapshot.details.value.map((issue) => issue.id)).toEqual(['g-1', 'g-next']);
    expect(snapshot.incomplete).toBe(false);
  });

  it('when the expected focus changed: one show of the new one, its dependents left out', async () => {
    const moved = store([{ id: 'h-1', status: 'closed' }, { id: 'h-2', status: 'in_progress' }, { id: 'h-next', blockedBy: ['h-2'] }]);
    const { backend, calls, steps } = fakeBackend(moved);
    const snapshot = await loadSnapshot(backend, { focusedId: 'h-1', alwaysReady: false, readyDetails: 5, oneShot: true });
    expect(calls).toEqual(['list', 'show h-1', 'show h-2']);
    expect(steps()).toBe(2);
    expect(snapshot.focusedId).toBe('h-2');
    expect(snapshot.incomplete).toBe(true);
    expect(snapshot.contextIds).toEqual(['h-2', 'h-next']);
  });
});
