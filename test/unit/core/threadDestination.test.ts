// Where the thread goes (README "Where the thread goes"): the destinations a person can write, and
// how this machine's contexts show a thread it kept instead of writing it to beads.
import { describe, expect, it } from 'vitest';
import type { IssueDetails } from '../../../src/core/model';
import { keepLocalThread, emptyLocalThreads, LOCAL_THREAD_AUTHOR, normalizeLocalThreads, parseThreadDestination, withLocalThreads } from '../../../src/core/threadDestination';

const issue = (id: string, texts: string[]): IssueDetails =>
  ({ id, title: id, status: 'in_progress', priority: 2, issueType: 'task', dependencies: [], dependents: [], comments: texts.map((text, index) => ({ id: String(index), author: 'ann', text, createdAt: '2026-11-28T10:00:00Z' })) }) as unknown as IssueDetails;

describe('the thread destination', () => {
  it('reads beads, local and off as written by a person, and nothing else', () => {
    expect(parseThreadDestination(' Local ')).toBe('local');
    expect(parseThreadDestination('off')).toBe('off');
    expect(parseThreadDestination('beads')).toBe('beads');
    expect(parseThreadDestination('nowhere')).toBeUndefined();
    expect(parseThreadDestination(1)).toBeUndefined();
  });

  it("shows a kept thread in place of the comment that went to beads without it, only on its own issue", () => {
    const shared = 'Auto-checkpoint (pre-compaction): 1 file\n- Files: a.ts';
    const full = 'Auto-checkpoint (pre-compaction): 1 file\n- Request: fix the parser\n- Files: a.ts';
    const [mine, other] = withLocalThreads([issue('demo-1', ['older', `${shared}\n`]), issue('demo-2', [shared])], [{ issueId: 'demo-1', at: 1, shared, full }]);
    expect(mine?.comments.map((comment) => comment.text)).toEqual(['older', full]);
    expect(other?.comments.map((comment) => comment.text)).toEqual([shared]);
  });

  it('shows a kept thread whose comment is not in beads (nothing else was new, or it is queued) as a comment of its own, at its time', () => {
    const [mine] = withLocalThreads([issue('demo-1', ['older'])], [{ issueId: 'demo-1', at: Date.UTC(2026, 10, 28, 11), full: 'Auto-checkpoint (pre-compaction): thread' }]);
    expect(mine?.comments.at(-1)).toMatchObject({ author: LOCAL_THREAD_AUTHOR, text: 'Auto-checkpoint (pre-compaction): thread', createdAt: '2026-11-28T11:00:00.000Z' });
  });

  it('keeps the newest threads, one entry per checkpoint, and drops what does not read', () => {
    let state = emptyLocalThreads();
    for (let at = 0; at < 60; at++) state = keepLocalThread(state, { issueId: 'demo-1', at, full: `thread ${at}` });
    state = keepLocalThread(state, { issueId: 'demo-1', at: 99, full: 'thread 59' });
    expect(state.threads).toHaveLength(50);
    expect(state.threads.at(-1)).toEqual({ issueId: 'demo-1', at: 99, full: 'thread 59' });
    const problems: string[] = [];
    expect(normalizeLocalThreads({ version: 1, threads: [state.threads[0], { issueId: 3 }] }, problems).threads).toEqual([state.threads[0]]);
    expect(problems).toHaveLength(1);
    expect(normalizeLocalThreads('garbage').threads).toEqual([]);
  });
});
