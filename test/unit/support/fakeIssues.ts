import type { Comment, IssueDetails } from '../../../src/core/model';

/** An issue as `show` would return it, with no links and no comments unless `fields` say so. */
export function issueDetails(id: string, fields: Partial<IssueDetails> = {}): IssueDetails {
  return {
    id,
    title: `Issue ${id}`,
    status: 'open',
    priority: 2,
    issueType: 'task',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    labels: [],
    dependencies: [],
    dependents: [],
    comments: [],
    ...fields,
  };
}

/** Comments numbered in order, by one author. */
export function comments(entries: readonly { text: string; createdAt: string }[], author = 'agent'): Comment[] {
  return entries.map((entry, index) => ({ id: String(index), author, ...entry }));
}
