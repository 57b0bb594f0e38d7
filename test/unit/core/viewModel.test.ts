import { describe, expect, it } from 'vitest';
import type { CheckpointActivity } from '../../../src/core/checkpoint';
import type { Issue, IssueDetails } from '../../../src/core/model';
import { parseJsonl } from '../../../src/core/parse';
import {
  buildSidebarModel,
  DEFAULT_LIMITS,
  describeChange,
  folderCounts,
  markRefreshing,
  nextViewState,
  refusedWritesText,
  trailKind,
  type ParkedWriteInput,
  type SidebarInput,
} from '../../../src/core/viewModel';
import type { ProjectInfo, ViewState } from '../../../src/shared/protocol';

const NOW = Date.parse('2026-02-19T12:00:00Z');
const minutesAgo = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

interface Spec {
  id: string;
  title?: string;
  status?: string;
  type?: string;
  priority?: number;
  parent?: string;
  blockedBy?: string[];
  comments?: [text: string, minutesAgo: number][];
  updated?: number;
}

/** A hand-made graph through the real JSONL parser, so both directions of each record are derived as in production. */
function graph(specs: Spec[]): Map<string, IssueDetails> {
  const lines = specs.map((spec) =>
    JSON.stringify({
      id: spec.id,
      title: spec.title ?? `Title of ${spec.id}`,
      status: spec.status ?? 'open',
      priority: spec.priority ?? 2,
      issue_type: spec.type ?? 'task',
      created_at: minutesAgo(10_000),
      updated_at: minutesAgo(spec.updated ?? 60),
      dependencies: [
        ...(spec.parent ? [{ issue_id: spec.id, depends_on_id: spec.parent, type: 'parent-child' }] : []),
        ...(spec.blockedBy ?? []).map((target) => ({ issue_id: spec.id, depends_on_id: target, type: 'blocks' })),
      ],
      comments: (spec.comments ?? []).map(([text, minutes], index) => ({ id: index + 1, author: 'agent', text, created_at: minutesAgo(minutes) })),
    }),
  );
  return new Map(parseJsonl(lines.join('\n')).issues.map((issue) => [issue.id, issue]));
}

function input(all: Map<string, IssueDetails>, parts: Partial<SidebarInput> & { inProgress?: SidebarInput['inProgress'] } = {}): SidebarInput {
  const issues = [...all.values()];
  return {
    inProgress: { ok: true, value: issues.filter((issue) => issue.status === 'in_progress') },
    ready: { ok: true, value: [] },
    details: { ok: true, value: issues },
    focusedId: issues.find((issue) => issue.status === 'in_progress')?.id,
    now: NOW,
    ...parts,
  };
}

const project: ProjectInfo = { name: 'demo', backend: 'br' };

describe('buildSidebarModel: the focused issue as a tree', () => {
  const all = graph([
    { id: 'p-epic', type: 'epic', title: 'Widgets' },
    { id: 'p-feat', type: 'feature', parent: 'p-epic', title: 'Parser' },
    { id: 'p-1', status: 'in_progress', parent: 'p-feat', blockedBy: ['p-closed', 'p-open', 'p-gone'], title: 'Tokenizer', comments: [['Claimed.', 300], ['commit: abc1234 feat: tokens', 120], ['Auto-checkpoint (issue switch): 3 files', 30], ['Checkpoint: tokens done.\nNext: escapes', 10]] },
    { id: 'p-closed', status: 'closed' },
    { id: 'p-open', title: 'Open blocker' },
    { id: 'p-1.1', parent: 'p-1', status: 'closed', title: 'Child done' },
    { id: 'p-1.2', parent: 'p-1', title: 'Child open' },
    { id: 'p-alone', blockedBy: ['p-1'], title: 'Only p-1 blocks it' },
    { id: 'p-shared', blockedBy: ['p-1', 'p-open'], title: 'Also blocked by p-open' },
  ]);
  const model = buildSidebarModel(input(all));

  it('walks the ancestors up to the epic, outermost first', () => {
    expect(model.focused?.issue.id).toBe('p-1');
    expect(model.focused?.ancestors.map((issue) => issue.id)).toEqual(['p-epic', 'p-feat']);
    expect(model.focused?.ancestorsCut).toBe(false);
  });

  it('lists children with their status, open blockers (a deleted one as unknown) and what closing it unblocks', () => {
    expect(model.focused?.children.map((child) => [child.id, child.status])).toEqual([['p-1.1', 'closed'], ['p-1.2', 'open']]);
    expect(model.focused?.openBlockers.map((blocker) => [blocker.id, blocker.statusKnown])).toEqual([['p-gone', false], ['p-open', true]].sort());
    expect(model.focused?.unblocks.map((dependent) => [dependent.id, dependent.wouldBecomeReady])).toEqual([['p-alone', true], ['p-shared', false]]);
  });

  it('never says "would become ready" of a dependent that is already in progress', () => {
    const started = graph([
      { id: 'p-1', status: 'in_progress', title: 'Tokenizer' },
      { id: 'p-started', status: 'in_progress', blockedBy: ['p-1'], title: 'Started early' },
      { id: 'p-waiting', blockedBy: ['p-1'], title: 'Waiting' },
    ]);
    const view = buildSidebarModel(input(started));
    expect(view.focused?.unblocks.map((dependent) => [dependent.id, dependent.wouldBecomeReady])).toEqual([['p-started', undefined], ['p-waiting', true]]);
  });

  it('gives the trail newest first, telling commits and checkpoints apart', () => {
    expect(model.trail.items.map((entry) => [entry.kind, entry.summary, entry.age])).toEqual([
      ['checkpoint', 'tokens done.', '10m ago'],
      ['auto-checkpoint', '3 files', '30m ago'],
      ['commit', 'abc1234 feat: tokens', '2h ago'],
      ['note', 'Claimed.', '5h ago'],
    ]);
    expect(model.trail.items[0]?.text).toBe('Checkpoint: tokens done.\nNext: escapes');
  });

  it('marks the chain as cut when the topmost loaded ancestor has a parent that was not loaded', () => {
    const partial = new Map(all);
    partial.delete('p-epic');
    partial.delete('p-feat');
    const view = buildSidebarModel(input(all, { details: { ok: true, value: [...partial.values()] } }));
    expect(view.focused?.ancestors.map((issue) => issue.id)).toEqual(['p-feat']);
    expect(view.focused?.ancestorsCut).toBe(true);
  });
});

describe('buildSidebarModel: bad graphs', () => {
  it('survives a parent cycle and a self-parent', () => {
    const all = graph([
      { id: 'c-1', status: 'in_progress', parent: 'c-2' },
      { id: 'c-2', parent: 'c-3' },
      { id: 'c-3', parent: 'c-1' },
      { id: 'c-self', parent: 'c-self', status: 'in_progress', updated: 999 },
    ]);
    const model = buildSidebarModel(input(all, { focusedId: 'c-1' }));
    expect(model.focused?.ancestors.map((issue) => issue.id)).toEqual(['c-3', 'c-2']);
    expect(model.focused?.ancestorsCut).toBe(false);
    const self = buildSidebarModel(input(all, { focusedId: 'c-self' }));
    expect(self.focused?.ancestors).toEqual([]);
  });

  it('shows a dangling parent as unknown, and the chain as cut', () => {
    const all = graph([{ id: 'd-1', status: 'in_progress', parent: 'd-missing' }]);
    const model = buildSidebarModel(input(all));
    expect(model.focused?.ancestors).toEqual([{ id: 'd-missing', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown' }]);
    expect(model.focused?.ancestorsCut).toBe(true);
  });

  it('keeps several in-progress issues, the focused one apart, in the listing order', () => {
    const all = graph([
      { id: 's-1', status: 'in_progress' },
      { id: 's-2', status: 'in_progress' },
      { id: 's-3', status: 'in_progress' },
    ]);
    const model = buildSidebarModel(input(all, { focusedId: 's-2' }));
    expect(model.focused?.issue.id).toBe('s-2');
    expect(model.otherInProgress.items.map((issue) => issue.id)).toEqual(['s-1', 's-3']);
  });

  it('renders empty, very long, multi-line and unknown values as bounded single lines', () => {
    const long = 'x'.repeat(5000);
    const all = graph([
      { id: 'b-1', status: 'in_progress', title: '', type: 'not_a_real_type' },
      { id: 'b-2', status: 'weird-status', title: long },
      { id: 'b-3', title: 'line one\nline two\u202Eevil' },
    ]);
    const model = buildSidebarModel(input(all, { ready: { ok: true, value: [all.get('b-2')!, all.get('b-3')!] } }));
    expect(model.focused?.issue).toMatchObject({ title: '', issueType: 'not_a_real_type' });
    const [longItem, multiLine] = model.ready.ok ? model.ready.value.items : [];
    expect(longItem?.issue.status).toBe('weird-status');
    expect(Array.from(longItem?.issue.title ?? '').length).toBe(300);
    expect(longItem?.issue.title.endsWith('…')).toBe(true);
    expect(multiLine?.issue.title).toBe('line one line twoevil');
  });

  it('caps thousands of ready issues, keeping the CLI order and counting the rest', () => {
    const ready: Issue[] = Array.from({ length: 3000 }, (_, index) => ({
      id: `r-${3000 - index}`,
      title: `Ready ${index}`,
      status: 'open',
      priority: index % 5,
      issueType: 'task',
      createdAt: minutesAgo(index),
      updatedAt: minutesAgo(index),
      labels: [],
    }));
    const model = buildSidebarModel(input(new Map(), { ready: { ok: true, value: [...ready, ready[0]!] } }));
    expect(model.ready.ok && model.ready.value.items.map((item) => item.issue.id).slice(0, 3)).toEqual(['r-3000', 'r-2999', 'r-2998']);
    expect(model.ready.ok && model.ready.value.items.length).toBe(50);
    expect(model.ready.ok && model.ready.value.more).toBe(2950);
    expect(model.ready.ok && model.ready.value.items.every((item) => !item.contextKnown)).toBe(true);
  });

  it('gives ready items their parent and unblocks from the details', () => {
    const all = graph([
      { id: 'v-epic', type: 'epic', title: 'Widget system' },
      { id: 'v-a1b', parent: 'v-epic', title: 'Implement widget parser' },
      { id: 'v-c3d', blockedBy: ['v-a1b'], title: 'Widget renderer' },
      { id: 'v-e5f', blockedBy: ['v-a1b'], title: 'Widget tests' },
      { id: 'v-j9k', type: 'bug', title: 'Fix crash on empty input' },
    ]);
    const ready = [all.get('v-a1b')!, all.get('v-j9k')!];
    const model = buildSidebarModel(input(all, { ready: { ok: true, value: ready } }));
    const items = model.ready.ok ? model.ready.value.items : [];
    expect(items.map((item) => [item.issue.id, item.parent?.id, item.unblocks.map((issue) => issue.id)])).toEqual([
      ['v-a1b', 'v-epic', ['v-c3d', 'v-e5f']],
      ['v-j9k', undefined, []],
    ]);
    expect(model.focused).toBeUndefined();
  });

  it('gives epics no row in Ready and never suggests one; after a close it suggests what the close unblocked, first in the list, until something is claimed', () => {
    const all = graph([
      { id: 'wf-1', type: 'epic', priority: 0, title: 'Workflow epic' },
      { id: 'wf-2', parent: 'wf-1', status: 'closed' },
      { id: 'wf-3', parent: 'wf-1', priority: 2, blockedBy: ['wf-2'] },
      { id: 'wf-5', priority: 1 },
    ]);
    const ready = { ok: true as const, value: [all.get('wf-1')!, all.get('wf-5')!, all.get('wf-3')!] };
    const plain = buildSidebarModel(input(all, { ready }));
    const items = plain.ready.ok ? plain.ready.value.items : [];
    expect(items.map((item) => item.issue.id)).toEqual(['wf-5', 'wf-3']);
    expect(plain.next).toMatchObject({ item: { issue: { id: 'wf-5' } }, reason: 'ready' });
    expect(plain.next?.afterClose).toBeUndefined();

    const closed = { id: 'wf-2', title: 'Title of wf-2', status: 'closed', priority: 2, issueType: 'task' };
    const lastClose = { closed, unblocked: ['wf-3'], inProgressAfter: [] };
    const afterClose = buildSidebarModel(input(all, { ready, lastClose }));
    expect(afterClose.next).toMatchObject({ item: { issue: { id: 'wf-3' }, parent: { id: 'wf-1' } }, reason: 'unblocked', afterClose: { id: 'wf-2' } });
    const afterCloseItems = afterClose.ready.ok ? afterClose.ready.value.items : [];
    expect(afterCloseItems.map((item) => item.issue.id)).toEqual(['wf-3', 'wf-5']);

    // wf-3 claimed from a terminal: it is in progress, not "next"; the offer no longer holds.
    all.get('wf-3')!.status = 'in_progress';
    const claimed = buildSidebarModel(input(all, { ready: { ok: true, value: [all.get('wf-1')!, all.get('wf-5')!] }, inProgress: { ok: true, value: [all.get('wf-3')!] }, focusedId: 'wf-3', lastClose }));
    expect(claimed.next).toMatchObject({ item: { issue: { id: 'wf-5' } }, reason: 'ready' });
    expect(claimed.next?.afterClose).toBeUndefined();

    const onlyEpic = buildSidebarModel(input(all, { ready: { ok: true, value: [all.get('wf-1')!] } }));
    expect(onlyEpic.next).toBeUndefined();
  });

  it('names the assignee, but not the "unknown" bd and br record when a claim had no actor', () => {
    const all = graph([{ id: 'a-1', status: 'in_progress' }]);
    const claimed = all.get('a-1')!;
    claimed.assignee = 'alice';
    expect(buildSidebarModel(input(all)).focused?.assignee).toBe('alice');
    claimed.assignee = 'unknown';
    expect(buildSidebarModel(input(all)).focused?.assignee).toBeUndefined();
  });

  it('gives the focused issue its description\'s first lines and the next step its newest checkpoint named', () => {
    const all = graph([
      { id: 'n-1', status: 'in_progress', comments: [['Checkpoint: parser; Next: escapes', 90], ['Checkpoint: escapes done; next: line numbers in errors', 30], ['commit: abc1234 errors', 10]] },
    ]);
    const details = all.get('n-1')!;
    details.description = 'First line.\n\nSecond line.\nThird line.\nFourth line is left out.';
    const model = buildSidebarModel(input(all));
    expect(model.focused?.description).toBe('First line.\nSecond line.\nThird line.');
    expect(model.focused?.nextStep).toBe('line numbers in errors');
    details.description = '';
    details.comments = [];
    const bare = buildSidebarModel(input(all));
    expect(bare.focused?.description).toBeUndefined();
    expect(bare.focused?.nextStep).toBeUndefined();
  });

  it('counts a capped file list per folder over the whole list, biggest folder first', () => {
    const paths = [...Array.from({ length: 30 }, (_, index) => `src/gen0/f${index}.ts`), ...Array.from({ length: 20 }, (_, index) => `src/gen1/deep/f${index}.ts`), 'README.md', 'docs/a.md'];
    const one = graph([{ id: 'u-1', status: 'in_progress' }]);
    const model = buildSidebarModel(input(one, { uncommitted: { ok: true, value: paths.map((path) => ({ path, status: '??' })) } }), { ...DEFAULT_LIMITS, uncommitted: 10 });
    const list = model.uncommitted?.ok ? model.uncommitted.value : undefined;
    expect(list?.items).toHaveLength(10);
    expect(list?.more).toBe(42);
    expect(list?.folders).toEqual([
      { folder: 'src/gen0', count: 30 },
      { folder: 'src/gen1', count: 20 },
      { folder: '.', count: 1 },
      { folder: 'docs', count: 1 },
    ]);
    expect(folderCounts([])).toEqual([]);
  });

  it('lists file names as people read them: widget-2 before widget-10, in the files and in their folders', () => {
    const paths = ['src/widget-10.ts', 'src/widget-2.ts', 'src/widget-1.ts', 'lib9/a.ts', 'lib10/a.ts'];
    const one = graph([{ id: 'u-1', status: 'in_progress' }]);
    const model = buildSidebarModel(input(one, { uncommitted: { ok: true, value: paths.map((path) => ({ path, status: '??' })) } }));
    const list = model.uncommitted?.ok ? model.uncommitted.value : undefined;
    expect(list?.items.map((file) => file.path)).toEqual(['lib9/a.ts', 'lib10/a.ts', 'src/widget-1.ts', 'src/widget-2.ts', 'src/widget-10.ts']);
    expect(folderCounts(['b10/x', 'b2/x', 'b1/x']).map((entry) => entry.folder)).toEqual(['b1', 'b2', 'b10']);
  });

  it('empties only the failing part', () => {
    const all = graph([{ id: 'f-1', status: 'in_progress' }]);
    const model = buildSidebarModel(
      input(all, {
        ready: { ok: false, error: 'br: database is locked' },
        details: { ok: false, error: 'show timed out' },
        uncommitted: { ok: false, error: 'not a git repository' },
      }),
    );
    expect(model.focused?.issue.id).toBe('f-1');
    expect(model.ready).toEqual({ ok: false, error: 'br: database is locked' });
    expect(model.uncommitted).toEqual({ ok: false, error: 'not a git repository' });
    expect(model.problems).toEqual(['Issue details are unavailable: show timed out']);
  });
});

describe('buildSidebarModel: activity, git and outbox', () => {
  const all = graph([{ id: 'a-1', status: 'in_progress' }]);
  const activity: CheckpointActivity = {
    issueId: 'a-1',
    files: ['src/b.ts', 'src/a.ts', 'src/b.ts'],
    commits: [{ hash: 'abc1234', subject: 'feat: parser' }],
    edits: 14,
    lastCheckpointAt: NOW - 25 * 60_000,
  };

  it('shows the ledger of the focused issue only, its files in the ledger\'s order (most recent first)', () => {
    const model = buildSidebarModel(input(all, { activity, pendingWrites: 2 }));
    expect(model.activity).toEqual({
      files: { items: [{ path: 'src/b.ts' }, { path: 'src/a.ts' }], more: 0, folders: [{ folder: 'src', count: 2 }] },
      commits: { items: [{ hash: 'abc1234', subject: 'feat: parser' }], more: 0 },
      edits: 14,
      lastCheckpointAge: '25m ago',
      lastCheckpointAt: NOW - 25 * 60_000,
    });
    expect(model.pendingWrites).toBe(2);
    expect(buildSidebarModel(input(all, { activity: { ...activity, issueId: 'other' } })).activity).toBeUndefined();
  });

  it('names a commit by the one short hash the tooltip and the context use (7 characters), whatever the ledger keeps', () => {
    const full = 'abc1234def5678abc1234def5678abc1234def56';
    const model = buildSidebarModel(input(all, { activity: { ...activity, commits: [{ hash: full, subject: 'feat: parser' }] } }));
    expect(model.activity?.commits.items).toEqual([{ hash: 'abc1234', subject: 'feat: parser' }]);
  });

  it('dates the last checkpoint by the newest comment when the ledger has none, and says when there is none', () => {
    const recording = { ...activity, lastCheckpointAt: undefined };
    const commented = graph([{ id: 'a-1', status: 'in_progress', comments: [['Checkpoint: parser done', 90], ['note from a terminal', 40]] }]);
    expect(buildSidebarModel(input(commented, { activity: recording })).activity?.lastCheckpointAge).toBe('40m ago');
    expect(buildSidebarModel(input(commented, { activity })).activity?.lastCheckpointAge).toBe('25m ago');
    expect(buildSidebarModel(input(all, { activity: recording })).activity?.lastCheckpointAge).toBeUndefined();
  });

  it('never shows the start of the ledger\'s recording as a checkpoint, as the status bar says "no checkpoint yet"', () => {
    const sinceRecording = { ...activity, lastCheckpointAt: NOW - 9 * 3_600_000, recordingSince: NOW - 9 * 3_600_000 };
    expect(buildSidebarModel(input(all, { activity: sinceRecording })).activity?.lastCheckpointAge).toBeUndefined();
    const commented = graph([{ id: 'a-1', status: 'in_progress', comments: [['Checkpoint: parser done', 90]] }]);
    expect(buildSidebarModel(input(commented, { activity: sinceRecording })).activity?.lastCheckpointAge).toBe('1h ago');
  });

  it('describes uncommitted changes, renames included', () => {
    const model = buildSidebarModel(
      input(all, {
        uncommitted: {
          ok: true,
          value: [
            { path: 'src/new.ts', status: '??' },
            { path: 'src/moved.ts', status: 'R ', from: 'src/old.ts' },
            { path: 'src/both.ts', status: 'MM' },
          ],
        },
      }),
    );
    expect(model.uncommitted).toEqual({
      ok: true,
      value: {
        // By name, as the files touched are listed, not in git's order.
        items: [
          { path: 'src/both.ts', change: 'modified' },
          { path: 'src/moved.ts', change: 'renamed (staged)', from: 'src/old.ts' },
          { path: 'src/new.ts', change: 'untracked' },
        ],
        more: 0,
        folders: [{ folder: 'src', count: 3 }],
      },
    });
    expect([' M', 'A ', 'AM', 'UU', ' D'].map(describeChange)).toEqual(['modified', 'added (staged)', 'added (staged), modified', 'conflict', 'deleted']);
  });
});

describe('buildSidebarModel: writes beads refused', () => {
  const all = graph([{ id: 'a-1', status: 'in_progress', title: 'Parse widget config' }]);
  const checkpoint: ParkedWriteInput = {
    key: 'checkpoint:a-1:1',
    issueId: 'a-1',
    kind: 'comment',
    words: 'Checkpoint: parser done\n- Files: src/a.ts',
    refusedAt: NOW - 5 * 60_000,
    reason: 'Validation failed: text: too long',
  };

  it('names each refused write: the issue and its title, what it was, when and why, and its words; newest first', () => {
    const close: ParkedWriteInput = { key: 'close:b-9', issueId: 'b-9', kind: 'close', words: 'Done', refusedAt: NOW - 60_000, reason: 'blocked by: a-1' };
    const model = buildSidebarModel(input(all, { parkedWrites: [checkpoint, close], pendingWrites: 0 }));
    expect(model.parkedWrites).toEqual({
      items: [
        { key: 'close:b-9', issueId: 'b-9', what: 'Close', refusedAge: '1m ago', refusedAt: '2026-02-19T11:59:00.000Z', reason: 'blocked by: a-1', words: 'Done' },
        {
          key: 'checkpoint:a-1:1',
          issueId: 'a-1',
          issueTitle: 'Parse widget config',
          what: 'Checkpoint',
          refusedAge: '5m ago',
          refusedAt: '2026-02-19T11:55:00.000Z',
          reason: 'Validation failed: text: too long',
          words: 'Checkpoint: parser done\n- Files: src/a.ts',
        },
      ],
      more: 0,
    });
    expect(buildSidebarModel(input(all, { parkedWrites: [] })).parkedWrites).toBeUndefined();
    expect(buildSidebarModel(input(all)).parkedWrites).toBeUndefined();
  });

  it('makes hostile and damaged entries inert, bounded text, and caps the list', () => {
    const hostile: ParkedWriteInput = {
      key: 'k',
      issueId: 'a-1\u0000<img src=x>',
      kind: 'claim',
      refusedAt: Number.NaN,
      reason: `line one\n\u001b[31mline two ${'x'.repeat(2_000)}`,
    };
    const [view] = buildSidebarModel(input(all, { parkedWrites: [hostile] })).parkedWrites!.items;
    expect(view!.issueId).toBe('a-1<img src=x>');
    expect(view!.what).toBe('Claim');
    expect(view!.words).toBeUndefined();
    expect([view!.refusedAge, view!.refusedAt]).toEqual(['time unknown', '']);
    expect(view!.reason.includes('\n') || view!.reason.includes('\u001b')).toBe(false);
    expect(view!.reason.length).toBeLessThanOrEqual(500);
    expect(buildSidebarModel(input(all, { parkedWrites: [{ ...hostile, reason: '  ' }] })).parkedWrites!.items[0]!.reason).toBe('beads gave no reason');
    const many = Array.from({ length: 25 }, (_, index): ParkedWriteInput => ({ ...checkpoint, key: `k${index}`, refusedAt: NOW - index * 1000 }));
    const capped = buildSidebarModel(input(all, { parkedWrites: many })).parkedWrites!;
    expect([capped.items.length, capped.more, capped.items[0]!.key]).toEqual([DEFAULT_LIMITS.parked, 25 - DEFAULT_LIMITS.parked, 'k0']);
  });

  it('gives Show the whole words of each refused write, and says when none waits', () => {
    const long = 'Checkpoint: ' + 'word '.repeat(1_000);
    const text = refusedWritesText([{ ...checkpoint, words: long }], new Map([['a-1', 'Parse widget config']]), NOW);
    expect(text).toContain('Checkpoint on a-1 (Parse widget config)');
    expect(text).toContain('refused 5m ago, at 2026-02-19T11:55:00.000Z');
    expect(text).toContain('beads said: Validation failed: text: too long');
    expect(text).toContain(long.trim());
    // The outbox's key is how the extension names the write; a person never needs it (issue 27).
    expect(text).not.toContain('checkpoint:a-1:1');
    expect(refusedWritesText([], new Map(), NOW)).toMatch(/^Beads refused no write/);
  });
});

describe('trailKind', () => {
  it('reads the prefixes the extension writes', () => {
    expect(trailKind('commit: abc1234 subject')).toEqual({ kind: 'commit', rest: 'abc1234 subject' });
    expect(trailKind('Auto-checkpoint (before recovery): 2 files')).toEqual({ kind: 'auto-checkpoint', rest: '2 files' });
    expect(trailKind('Checkpoint: done')).toEqual({ kind: 'checkpoint', rest: 'done' });
    expect(trailKind('Files modified: a.ts, b.ts')).toEqual({ kind: 'files', rest: 'a.ts, b.ts' });
    expect(trailKind('committed to the plan')).toEqual({ kind: 'note', rest: 'committed to the plan' });
  });
});

describe('nextViewState', () => {
  const all = graph([{ id: 'n-1', status: 'in_progress' }]);
  const good = nextViewState({ kind: 'loading' }, { kind: 'loaded', project, input: input(all) });

  it('keeps the last good view when a refresh fails, and says why', () => {
    expect(good.kind).toBe('project');
    const failed = nextViewState(markRefreshing(good), { kind: 'loaded', project, input: input(all, { inProgress: { ok: false, error: 'br exited with 2: database locked' } }) });
    expect(failed).toEqual({ ...good, refreshError: 'br exited with 2: database locked', refreshing: false });
    const recovered = nextViewState(failed, { kind: 'loaded', project, input: input(all) });
    expect(recovered).toEqual(good);
  });

  it('shows the error alone when there is no earlier view', () => {
    const state: ViewState = nextViewState({ kind: 'loading' }, { kind: 'failed', project, message: 'br: not found' });
    expect(state).toEqual({ kind: 'error', message: 'br: not found', project });
  });

  it('does not keep another project’s view', () => {
    const other = { ...project, name: 'other' };
    expect(nextViewState(good, { kind: 'failed', project: other, message: 'boom' })).toEqual({ kind: 'error', message: 'boom', project: other });
  });

  it('says when the folder is not a beads project', () => {
    expect(nextViewState(good, { kind: 'not-beads', folderName: 'site' })).toEqual({ kind: 'not-beads', folderName: 'site' });
  });

  it('is deterministic', () => {
    const again = nextViewState({ kind: 'loading' }, { kind: 'loaded', project, input: input(all) });
    expect(JSON.stringify(again)).toBe(JSON.stringify(good));
  });
});
