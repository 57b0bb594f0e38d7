import { describe, expect, it } from 'vitest';
import type { IssueSummary } from '../../../src/core/model';
import { isClaimable, isContainer, nextAfterClose, nextFor, pickNext, readyOrder } from '../../../src/core/next';

const issue = (id: string, priority: number, issueType = 'task', status = 'open'): IssueSummary => ({ id, title: `title of ${id}`, status, priority, issueType });

describe('pickNext', () => {
  it('takes the highest priority, the queue order among equals', () => {
    const ready = [issue('a-3', 2), issue('a-1', 1), issue('a-2', 1)];
    expect(pickNext({ ready })?.issue.id).toBe('a-1');
    expect(pickNext({ ready })?.reason).toBe('ready');
  });

  it('prefers what the close just unblocked over better priorities elsewhere', () => {
    const ready = [issue('wf-1', 0, 'epic'), issue('wf-5', 1), issue('wf-3', 2), issue('wf-4', 3)];
    const pick = pickNext({ ready, justUnblocked: ['wf-4', 'wf-3'] });
    expect(pick).toEqual({ issue: ready[2], reason: 'unblocked' });
  });

  it('falls back to the queue when what was unblocked is not ready (claimed meanwhile, or blocked again)', () => {
    const ready = [issue('wf-5', 2), issue('wf-6', 1)];
    expect(pickNext({ ready, justUnblocked: ['wf-3'] })).toEqual({ issue: ready[1], reason: 'ready' });
  });

  it('never offers an epic, an issue in progress, a closed one or an excluded one', () => {
    const ready = [issue('e-1', 0, 'epic'), issue('e-2', 0, 'task', 'in_progress'), issue('e-3', 0, 'task', 'closed'), issue('e-4', 0), issue('e-5', 3)];
    expect(pickNext({ ready, exclude: ['e-4'] })?.issue.id).toBe('e-5');
    expect(pickNext({ ready: [issue('e-1', 0, 'Epic')] })).toBeUndefined();
    expect(pickNext({ ready: [] })).toBeUndefined();
  });

  it('puts missing or odd priorities last', () => {
    const ready = [issue('p-1', Number.NaN), issue('p-2', 4)];
    expect(pickNext({ ready })?.issue.id).toBe('p-2');
  });
});

describe('nextAfterClose', () => {
  it('is pickNext with the closed issue excluded and what it unblocked first', () => {
    const ready = [issue('c-1', 1), issue('c-2', 2), issue('c-9', 0)];
    expect(nextAfterClose('c-9', ['c-2'], ready)).toEqual({ issue: ready[1], reason: 'unblocked' });
    expect(nextAfterClose('c-9', [], ready)).toEqual({ issue: ready[0], reason: 'ready' });
  });
});

describe('isContainer / isClaimable', () => {
  it('calls epics containers whatever their case, and nothing else', () => {
    expect(isContainer({ issueType: 'epic' })).toBe(true);
    expect(isContainer({ issueType: ' EPIC ' })).toBe(true);
    expect(isContainer({ issueType: 'feature' })).toBe(false);
    expect(isClaimable({ issueType: 'bug', status: 'open' })).toBe(true);
    expect(isClaimable({ issueType: 'bug', status: 'in_progress' })).toBe(false);
    expect(isClaimable({ issueType: 'epic', status: 'open' })).toBe(false);
  });
});

describe('readyOrder', () => {
  it('lists the next issue first, the rest in the queue order, each once, and never an epic', () => {
    // The report: after a close, Next was wf-3 while the context listed wf-6, wf-1 (the epic), wf-7, wf-3.
    const ready = [issue('wf-6', 1), issue('wf-1', 0, 'epic'), issue('wf-7', 2), issue('wf-6', 1), issue('wf-3', 2)];
    const lastClose = { closed: issue('wf-2', 1, 'task', 'closed'), unblocked: ['wf-3'], inProgressAfter: [] };
    const next = nextFor({ ready, inProgress: [], lastClose });
    expect(next?.issue.id).toBe('wf-3');
    expect(readyOrder(ready, next?.issue).map((item) => item.id)).toEqual(['wf-3', 'wf-6', 'wf-7']);
  });

  it('keeps the queue order when there is no next issue or it is not in the queue', () => {
    const ready = [issue('q-2', 2), issue('q-1', 1, 'Epic'), issue('q-3', 3)];
    expect(readyOrder(ready, undefined).map((item) => item.id)).toEqual(['q-2', 'q-3']);
    expect(readyOrder(ready, issue('q-9', 0)).map((item) => item.id)).toEqual(['q-2', 'q-3']);
    expect(readyOrder([], undefined)).toEqual([]);
  });
});
