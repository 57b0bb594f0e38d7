import { describe, expect, it } from 'vitest';
import {
  childrenOf,
  compareIds,
  openBlockersOf,
  parentChain,
  parentOf,
  readyItems,
  unblocksOf,
} from '../../../src/core/graph';
import type { IssueDetails, LinkedIssue } from '../../../src/core/model';
import { details, issue, link, parserDetails, rendererDetails, widgetTestsDetails } from '../support/recoveryFixtures';

const ids = (issues: readonly { id: string }[]) => issues.map((entry) => entry.id);

describe('parent and children', () => {
  it('reads the parent from the parent-child dependency and the children from the dependents', () => {
    const epic = issue('bd-e', 'Epic', { issueType: 'epic' });
    const child1 = issue('bd-e.1', 'One');
    const child10 = issue('bd-e.10', 'Ten');
    const child2 = issue('bd-e.2', 'Two', { status: 'closed' });
    const epicDetails = details(epic, {
      dependents: [link(child10, 'parent-child'), link(child2, 'parent-child'), link(child1, 'parent-child'), link(issue('bd-x', 'Blocked'), 'blocks')],
    });
    expect(ids(childrenOf(epicDetails))).toEqual(['bd-e.1', 'bd-e.2', 'bd-e.10']);
    expect(parentOf(details(child1, { dependencies: [link(issue('bd-b', 'Blocker'), 'blocks'), link(epic, 'parent-child')] }))?.id).toBe('bd-e');
  });

  it('has no parent when there is no parent-child dependency, and ignores a self-reference', () => {
    const lonely = issue('bd-1', 'Alone');
    expect(parentOf(details(lonely))).toBeUndefined();
    expect(parentOf(details(lonely, { dependencies: [link(lonely, 'parent-child')] }))).toBeUndefined();
    expect(childrenOf(details(lonely, { dependents: [link(lonely, 'parent-child')] }))).toEqual([]);
  });

  it('keeps a parent that is missing from the data (dangling id)', () => {
    const orphan = details(issue('bd-1', 'Orphan'), {
      dependencies: [{ id: 'bd-deleted', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown', dependencyType: 'parent-child' }],
    });
    expect(parentOf(orphan)?.id).toBe('bd-deleted');
  });

  it('follows the parent chain and stops at a cycle', () => {
    const a = issue('bd-a', 'A');
    const b = issue('bd-b', 'B');
    const c = issue('bd-c', 'C');
    const aDetails = details(a, { dependencies: [link(b, 'parent-child')] });
    const bDetails = details(b, { dependencies: [link(c, 'parent-child')] });
    const cDetails = details(c, { dependencies: [link(a, 'parent-child')] });
    expect(ids(parentChain(aDetails, [aDetails, bDetails, cDetails]))).toEqual(['bd-b', 'bd-c']);
    expect(ids(parentChain(aDetails, [aDetails]))).toEqual(['bd-b']);
    const selfParent = details(a, { dependencies: [link(a, 'parent-child')] });
    expect(parentChain(selfParent, [selfParent])).toEqual([]);
  });
});

describe('open blockers', () => {
  it('keeps open blockers of every blocking type, drops closed ones and non-blocking links', () => {
    const blockers = openBlockersOf(parserDetails);
    expect(ids(blockers)).toEqual(['bd-q7', 'bd-gone']);
    expect(blockers.map((blocker) => blocker.statusKnown)).toEqual([true, false]);
  });

  it('reports a blocker whose status is missing as unknown instead of dropping it', () => {
    const target = details(issue('bd-1', 'T'), {
      dependencies: [
        { id: 'bd-empty', title: '', status: '', priority: Number.NaN, issueType: '', dependencyType: 'blocks' },
        { id: 'bd-deleted', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown', dependencyType: 'conditional-blocks' },
        { id: 'bd-tomb', title: 'Deleted', status: 'tombstone', priority: 2, issueType: 'task', dependencyType: 'waits-for' },
      ],
    });
    const blockers = openBlockersOf(target);
    expect(ids(blockers)).toEqual(['bd-deleted', 'bd-empty']);
    expect(blockers.every((blocker) => !blocker.statusKnown)).toBe(true);
  });

  it('counts duplicate records once, whatever their order', () => {
    const grammar = issue('bd-q', 'Grammar');
    const forward = details(issue('bd-1', 'T'), {
      dependencies: [link(grammar, 'blocks'), { ...link(grammar, 'blocks'), status: 'unknown' }, link(grammar, 'waits-for')],
    });
    const backward = { ...forward, dependencies: [...forward.dependencies].reverse() };
    expect(openBlockersOf(forward)).toEqual(openBlockersOf(backward));
    expect(openBlockersOf(forward)).toHaveLength(1);
    expect(openBlockersOf(forward)[0]?.statusKnown).toBe(true);
  });

  it('ignores a self-block', () => {
    const self = issue('bd-1', 'Self');
    expect(openBlockersOf(details(self, { dependencies: [link(self, 'blocks')] }))).toEqual([]);
  });
});

describe('unblocks', () => {
  it('lists open dependents through blocking types only', () => {
    expect(ids(unblocksOf(parserDetails))).toEqual(['bd-c3d', 'bd-e5f']);
    expect(unblocksOf(parserDetails).every((entry) => entry.wouldBecomeUnblocked === undefined)).toBe(true);
  });

  it('marks the dependents that would have no other open blocker, and puts them first', () => {
    const widgetTestsFirst = details(parserDetails, {
      dependencies: parserDetails.dependencies,
      dependents: [link(widgetTestsDetails, 'blocks'), link(rendererDetails, 'blocks')],
      comments: [],
    });
    const unblocked = unblocksOf(widgetTestsFirst, [widgetTestsDetails, rendererDetails]);
    expect(unblocked.map((entry) => [entry.id, entry.wouldBecomeUnblocked])).toEqual([
      ['bd-c3d', true],
      ['bd-e5f', false],
    ]);
  });

  it('treats a dependent blocker of unknown status as still blocking', () => {
    const closing = issue('bd-1', 'Closing');
    const dependent = issue('bd-2', 'Dependent');
    const dependentDetails = details(dependent, {
      dependencies: [link(closing, 'blocks'), { id: 'bd-ghost', title: '', status: 'unknown', priority: 2, issueType: '', dependencyType: 'blocks' }],
    });
    const [entry] = unblocksOf(details(closing, { dependents: [link(dependent, 'blocks')] }), [dependentDetails]);
    expect(entry?.wouldBecomeUnblocked).toBe(false);
  });

  it('survives a blocking cycle: each would be unblocked by the other', () => {
    const a = issue('bd-a', 'A');
    const b = issue('bd-b', 'B');
    const aDetails = details(a, { dependencies: [link(b, 'blocks')], dependents: [link(b, 'blocks')] });
    const bDetails = details(b, { dependencies: [link(a, 'blocks')], dependents: [link(a, 'blocks')] });
    expect(unblocksOf(aDetails, [aDetails, bDetails]).map((entry) => [entry.id, entry.wouldBecomeUnblocked])).toEqual([['bd-b', true]]);
  });
});

describe('ready items', () => {
  const r1 = issue('bd-r1', 'First');
  const r2 = issue('bd-r2', 'Second');
  const r3 = issue('bd-r3', 'Third');
  const epic = issue('bd-ep', 'Epic', { issueType: 'epic' });
  const later = issue('bd-l', 'Later');

  it('keeps the queue order and adds parent and unblocks where details exist', () => {
    const r2Details = details(r2, { dependencies: [link(epic, 'parent-child')], dependents: [link(later, 'blocks'), link(issue('bd-done', 'Done', { status: 'closed' }), 'blocks')] });
    const items = readyItems([r2, r1, r3], [r2Details]);
    expect(items.map((item) => item.issue.id)).toEqual(['bd-r2', 'bd-r1', 'bd-r3']);
    expect(items[0]?.parent).toEqual({ id: 'bd-ep', title: 'Epic', status: 'open', priority: 2, issueType: 'epic' });
    expect(ids(items[0]?.unblocks ?? [])).toEqual(['bd-l']);
    expect(items[1]).toEqual({ issue: r1, unblocks: [] });
  });

  it('works without any details, drops repeated ready entries and duplicate detail records', () => {
    expect(readyItems([r1, r1, r2], [])).toEqual([
      { issue: r1, unblocks: [] },
      { issue: r2, unblocks: [] },
    ]);
    const first: IssueDetails = details(r1, { dependencies: [link(epic, 'parent-child')] });
    const stale: IssueDetails = details(r1);
    expect(readyItems([r1], [first, stale])[0]?.parent?.id).toBe('bd-ep');
  });

  it('ignores dangling dependency records without an id', () => {
    const broken = details(r1, { dependents: [{ id: '', title: '', status: '', priority: 0, issueType: '', dependencyType: 'blocks' } as LinkedIssue] });
    expect(readyItems([r1], [broken])[0]?.unblocks).toEqual([]);
  });
});

describe('compareIds', () => {
  it('orders numbered ids by value and everything else by code unit, without a locale', () => {
    const sorted = ['bd-10', 'bd-9', 'bd-5og.10', 'bd-5og.2', 'bd-5og', 'BD-1', 'bd-09', 'bd-a'].sort(compareIds);
    expect(sorted).toEqual(['BD-1', 'bd-5og', 'bd-5og.2', 'bd-5og.10', 'bd-09', 'bd-9', 'bd-10', 'bd-a']);
  });
});
