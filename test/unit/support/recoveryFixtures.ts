// Hand-made model objects for the recovery and graph tests: a small widget project seen at a
// fixed moment, with enough shape (parent, open and closed blockers, a deleted blocker,
// dependents that would and would not become ready, a long trail) to exercise every line.

import type { Comment, Issue, IssueDetails, LinkedIssue } from '../../../src/core/model';
import type { LedgerSummary, RecoveryInput } from '../../../src/core/recovery';
import type { GitChange } from '../../../src/core/porcelain';

export const NOW = Date.parse('2026-02-19T12:00:00Z');

export function minutesAgo(minutes: number): string {
  return new Date(NOW - minutes * 60_000).toISOString();
}

export function issue(id: string, title: string, overrides: Partial<Issue> = {}): Issue {
  return {
    id,
    title,
    status: 'open',
    priority: 2,
    issueType: 'task',
    createdAt: '2026-02-01T09:00:00Z',
    updatedAt: '2026-02-10T09:00:00Z',
    labels: [],
    ...overrides,
  };
}

export function link(target: Pick<Issue, 'id' | 'title' | 'status' | 'priority' | 'issueType'>, dependencyType: string): LinkedIssue {
  return { id: target.id, title: target.title, status: target.status, priority: target.priority, issueType: target.issueType, dependencyType };
}

export function details(base: Issue, parts: Partial<Pick<IssueDetails, 'dependencies' | 'dependents' | 'comments'>> = {}): IssueDetails {
  return { ...base, dependencies: parts.dependencies ?? [], dependents: parts.dependents ?? [], comments: parts.comments ?? [] };
}

export function comment(id: string, text: string, minutes: number): Comment {
  return { id, author: 'agent', text, createdAt: minutesAgo(minutes) };
}

export const parser = issue('bd-a1b', 'Implement widget parser', {
  status: 'in_progress',
  updatedAt: minutesAgo(20),
  description: 'Parse the widget DSL into an AST.\nSupport nested brackets and escapes.',
});
export const widgetSystem = issue('bd-x9z', 'Widget system', { issueType: 'feature', priority: 1 });
export const grammar = issue('bd-q7', 'Decide the bracket grammar', { issueType: 'decision', priority: 1 });
export const tokenizer = issue('bd-c1', 'Tokenizer', { status: 'closed' });
export const renderer = issue('bd-c3d', 'Widget renderer');
export const widgetTests = issue('bd-e5f', 'Widget tests', { priority: 3 });
export const docs = issue('bd-d0c', 'Document the parser', { issueType: 'chore', priority: 4 });
export const oldFollowUp = issue('bd-old', 'Old follow-up', { status: 'closed' });
export const deletedBlocker: LinkedIssue = { id: 'bd-gone', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown', dependencyType: 'waits-for' };

export const parserComments: Comment[] = [
  comment('1', 'Claimed. Plan: recursive descent over the token stream.', 60 * 26),
  comment('2', 'Done: tokenizer integration. Next: parser skeleton.', 60 * 5),
  comment('3', 'Done: parser skeleton.\nApproach: recursive descent.\nNext: handle nested brackets.', 120),
  comment('4', 'commit: 9f8e7d6 feat: parse flat widgets', 95),
  comment('5', 'Checkpoint: bracket parsing works for depth≤3. Next: handle escapes.', 45),
  comment('6', 'Blocked on the grammar decision for escapes (bd-q7); working on error messages meanwhile.', 30),
  comment('7', 'Files modified: src/parser.ts, src/tokens.ts', 12),
];

export const parserDetails = details(parser, {
  dependencies: [
    link(widgetSystem, 'parent-child'),
    link(grammar, 'blocks'),
    link(tokenizer, 'blocks'),
    deletedBlocker,
    link(docs, 'related'),
  ],
  dependents: [
    link(renderer, 'blocks'),
    link(widgetTests, 'blocks'),
    link(oldFollowUp, 'blocks'),
    link(docs, 'discovered-from'),
  ],
  comments: parserComments,
});

export const rendererDetails = details(renderer, { dependencies: [link(parser, 'blocks'), link(tokenizer, 'blocks')] });
export const widgetTestsDetails = details(widgetTests, { dependencies: [link(parser, 'blocks'), link(grammar, 'conditional-blocks')] });

export const parserLedger: LedgerSummary = {
  issueId: 'bd-a1b',
  files: ['src/parser.ts', 'tests/parser.test.ts', 'src/tokens.ts', 'src/parser.ts'],
  commits: [
    { hash: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432', subject: 'feat: parse flat widgets' },
    { hash: '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', subject: 'test: nested brackets up to depth 3' },
  ],
  edits: 14,
  lastCheckpointAt: NOW - 45 * 60_000,
};

export const parserChanges: GitChange[] = [
  { path: 'tests/parser.test.ts', status: '??' },
  { path: 'src/parser.ts', status: ' M' },
  { path: 'src/widget/ast.ts', status: 'R ', from: 'src/ast.ts' },
  { path: 'src/tokens.ts', status: 'M ' },
];

export function resumeInput(overrides: Partial<RecoveryInput> = {}): RecoveryInput {
  return {
    now: NOW,
    budget: 2048,
    project: { cli: 'bd', readOnly: false },
    inProgress: { ok: true, value: [parser] },
    details: { ok: true, value: [parserDetails, rendererDetails, widgetTestsDetails] },
    ready: { ok: true, value: [] },
    ledger: parserLedger,
    uncommitted: { ok: true, value: parserChanges },
    ...overrides,
  };
}

export const cache = issue('bd-k2', 'Cache parsed widgets', { status: 'in_progress', updatedAt: minutesAgo(60 * 3) });
export const flaky = issue('bd-f1', 'Fix flaky renderer test', { status: 'in_progress', issueType: 'bug', priority: 1, updatedAt: minutesAgo(60 * 50) });

export const readyQueue: Issue[] = [
  issue('bd-r1', 'Add escape sequences to the grammar', { priority: 1 }),
  issue('bd-r2', 'Render widgets to HTML', { priority: 2, issueType: 'feature' }),
  issue('bd-r3', 'Fix crash on empty input', { priority: 2, issueType: 'bug' }),
  issue('bd-r4', 'Benchmark the parser', { priority: 3 }),
  issue('bd-r5', 'Write the widget guide', { priority: 3, issueType: 'docs' }),
  issue('bd-r6', 'Tidy the examples folder', { priority: 4, issueType: 'chore' }),
  issue('bd-r7', 'Upgrade the test runner', { priority: 4, issueType: 'chore' }),
];

const [r1, r2, r3] = readyQueue as [Issue, Issue, Issue];
const r8 = issue('bd-r8', 'Escape-aware renderer', { priority: 2 });
const r9 = issue('bd-r9', 'Escape docs', { priority: 3 });

export const readyDetails: IssueDetails[] = [
  details(r1, { dependencies: [link(widgetSystem, 'parent-child')], dependents: [link(r8, 'blocks'), link(r9, 'waits-for')] }),
  details(r8, { dependencies: [link(r1, 'blocks')] }),
  details(r9, { dependencies: [link(r1, 'waits-for'), link(grammar, 'blocks')] }),
  details(r2, { dependencies: [link(widgetSystem, 'parent-child')] }),
  details(r3, { dependents: [link(r8, 'blocks')] }),
];

export function noneInput(overrides: Partial<RecoveryInput> = {}): RecoveryInput {
  return {
    now: NOW,
    budget: 2048,
    project: { cli: 'br', readOnly: false },
    inProgress: { ok: true, value: [] },
    details: { ok: true, value: readyDetails },
    ready: { ok: true, value: readyQueue },
    uncommitted: { ok: true, value: [] },
    ...overrides,
  };
}
