import { describe, expect, it } from 'vitest';
import {
  EDIT_COALESCE_MS,
  MAX_FILES,
  MAX_LINKED_COMMITS,
  emptyLedgerState,
  filesByEdits,
  focusedLedger,
  isLinked,
  isSubjectLinked,
  markCheckpoint,
  mergeLedgerStates,
  normalizeLedgerState,
  reconcileFocus,
  recordCommit,
  recordFileChange,
  rememberLinked,
  setFocus,
  toLedgerSummary,
  type LedgerState,
} from '../../../src/core/ledger';

const T0 = 1_800_000_000_000;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function touch(state: LedgerState, paths: string[], start = T0, step = 2 * SECOND, issueId = 'demo-1'): LedgerState {
  return paths.reduce((current, path, index) => recordFileChange(current, issueId, path, start + index * step), state);
}

describe('recordFileChange', () => {
  it('lists touched files sorted and counts edits since the last checkpoint', () => {
    const state = touch(emptyLedgerState(), ['src/b.ts', 'src/a.ts', 'README.md']);
    const ledger = state.ledgers['demo-1'];
    expect(ledger?.files).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
    expect(ledger?.edits).toBe(3);
    expect(ledger?.startedAt).toBe(T0);
    expect(ledger?.changesSince).toBe(T0);
    expect(ledger?.lastActivityAt).toBe(T0 + 4 * SECOND);
  });

  it('counts repeats of one file within the coalescing window once, and later repeats again', () => {
    let state = emptyLedgerState();
    state = recordFileChange(state, 'demo-1', 'a.ts', T0);
    state = recordFileChange(state, 'demo-1', 'a.ts', T0 + 10);
    state = recordFileChange(state, 'demo-1', 'a.ts', T0 + EDIT_COALESCE_MS - 1);
    expect(state.ledgers['demo-1']?.edits).toBe(1);
    expect(state.ledgers['demo-1']?.lastActivityAt).toBe(T0 + EDIT_COALESCE_MS - 1);
    state = recordFileChange(state, 'demo-1', 'a.ts', T0 + 5 * SECOND);
    expect(state.ledgers['demo-1']?.edits).toBe(2);
    expect(state.ledgers['demo-1']?.files).toEqual(['a.ts']);
    expect(state.ledgers['demo-1']?.editCounts).toEqual([2]);
  });

  it('counts edits per file, index for index with the sorted files', () => {
    const state = touch(emptyLedgerState(), ['src/b.ts', 'src/a.ts', 'src/b.ts', 'README.md', 'src/b.ts', 'src/a.ts']);
    const ledger = state.ledgers['demo-1']!;
    expect(ledger.files).toEqual(['README.md', 'src/a.ts', 'src/b.ts']);
    expect(ledger.editCounts).toEqual([1, 2, 3]);
    expect(ledger.editCounts.reduce((sum, count) => sum + count, 0)).toBe(ledger.edits);
  });

  it('orders files by edits, most first, then the most recently touched, then by path', () => {
    // old.ts: 3 edits long ago; new.ts and z.ts: 1 edit each, z.ts last; a.ts and b.ts: 1 edit at the same instant.
    let state = touch(emptyLedgerState(), ['old.ts', 'old.ts', 'old.ts'], T0, 2 * SECOND);
    state = touch(state, ['new.ts', 'z.ts'], T0 + MINUTE);
    state = recordFileChange(recordFileChange(state, 'demo-1', 'b.ts', T0 + 2 * MINUTE), 'demo-1', 'a.ts', T0 + 2 * MINUTE);
    expect(filesByEdits(state.ledgers['demo-1']!)).toEqual(['old.ts', 'a.ts', 'b.ts', 'z.ts', 'new.ts']);
  });

  it('keeps the counts with their files when a folder is dropped or the cap drops files', () => {
    const folder = touch(emptyLedgerState(), ['src/new', 'src/new/a.ts', 'src/new/a.ts']);
    expect(folder.ledgers['demo-1']).toMatchObject({ files: ['src/new/a.ts'], editCounts: [2] });
    const paths = Array.from({ length: MAX_FILES + 2 }, (_, index) => `f${String(index).padStart(3, '0')}.ts`);
    let capped = touch(emptyLedgerState(), ['f150.ts'], T0 - MINUTE);
    capped = touch(capped, paths);
    const ledger = capped.ledgers['demo-1']!;
    expect(ledger.editCounts).toHaveLength(ledger.files.length);
    expect(ledger.editCounts[ledger.files.indexOf('f150.ts')]).toBe(2);
    expect(ledger.editCounts.filter((count) => count !== 1)).toEqual([2]);
  });

  it('lists the files of a new folder, not the folder, whichever event came first', () => {
    const folderFirst = touch(emptyLedgerState(), ['src/new', 'src/new/a.ts', 'src/new/deep/b.ts', 'src/newer.ts']);
    expect(folderFirst.ledgers['demo-1']?.files).toEqual(['src/new/a.ts', 'src/new/deep/b.ts', 'src/newer.ts']);
    expect(folderFirst.ledgers['demo-1']?.touched).toEqual([T0 + 2 * SECOND, T0 + 4 * SECOND, T0 + 6 * SECOND]);
    const folderAfter = touch(emptyLedgerState(), ['lib/x/a.ts', 'lib/x', 'lib']);
    expect(folderAfter.ledgers['demo-1']?.files).toEqual(['lib/x/a.ts']);
    expect(folderAfter.ledgers['demo-1']?.edits).toBe(1);
  });

  it('does not change the input state', () => {
    const before = touch(emptyLedgerState(), ['a.ts']);
    const snapshot = JSON.stringify(before);
    recordFileChange(before, 'demo-1', 'b.ts', T0 + MINUTE);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it('keeps the most recently touched files when over the cap and counts the rest', () => {
    const paths = Array.from({ length: MAX_FILES + 5 }, (_, index) => `f${String(index).padStart(3, '0')}.ts`);
    const state = touch(emptyLedgerState(), paths);
    const ledger = state.ledgers['demo-1'];
    expect(ledger?.files).toHaveLength(MAX_FILES);
    expect(ledger?.moreFiles).toBe(5);
    expect(ledger?.files).not.toContain('f000.ts');
    expect(ledger?.files).toContain(`f${MAX_FILES + 4}.ts`);
    expect(ledger?.edits).toBe(MAX_FILES + 5);
    expect(ledger?.touched).toHaveLength(MAX_FILES);
    expect(Math.min(...(ledger?.touched ?? []))).toBe(T0 + 5 * 2 * SECOND);
  });
});

describe('commits and checkpoints', () => {
  it('records a commit once and remembers it as linked', () => {
    let state = touch(emptyLedgerState(), ['a.ts']);
    const commit = { hash: 'a'.repeat(40), subject: 'feat: parser\n\nbody *markdown*', at: T0 + MINUTE };
    state = recordCommit(state, 'demo-1', commit, T0 + MINUTE);
    state = recordCommit(state, 'demo-1', commit, T0 + MINUTE);
    expect(state.ledgers['demo-1']?.commits).toEqual([{ hash: 'a'.repeat(40), subject: 'feat: parser body *markdown*', at: T0 + MINUTE }]);
    expect(isLinked(state, 'a'.repeat(40))).toBe(true);
    expect(isSubjectLinked(state, 'demo-1', 'feat: parser\n\nbody *markdown*')).toBe(true);
    expect(isSubjectLinked(state, 'demo-2', 'feat: parser body *markdown*')).toBe(false);
  });

  it('resets files, commits and edits at a checkpoint and keeps when it was', () => {
    let state = touch(emptyLedgerState(), ['a.ts', 'b.ts']);
    state = recordCommit(state, 'demo-1', { hash: 'b'.repeat(40), subject: 's', at: T0 }, T0);
    state = markCheckpoint(state, 'demo-1', T0 + 10 * MINUTE);
    const ledger = state.ledgers['demo-1'];
    expect(ledger).toMatchObject({ files: [], commits: [], edits: 0, moreFiles: 0, lastCheckpointAt: T0 + 10 * MINUTE, startedAt: T0 });
    expect(ledger?.changesSince).toBeUndefined();
    expect(isLinked(state, 'b'.repeat(40))).toBe(true);
  });

  it('keeps what was recorded after a checkpoint was taken when it lands later', () => {
    let state = recordFileChange(emptyLedgerState(), 'demo-1', 'before.ts', T0);
    state = recordCommit(state, 'demo-1', { hash: 'c'.repeat(40), subject: 'before', at: T0 }, T0);
    // Taken at T0 + 1 min, queued; meanwhile more work; it lands at T0 + 5 min.
    state = recordFileChange(state, 'demo-1', 'after.ts', T0 + 2 * MINUTE);
    state = recordFileChange(state, 'demo-1', 'before.ts', T0 + 3 * MINUTE);
    state = recordCommit(state, 'demo-1', { hash: 'd'.repeat(40), subject: 'after', at: T0 + 4 * MINUTE }, T0 + 4 * MINUTE);
    state = markCheckpoint(state, 'demo-1', T0 + MINUTE);
    expect(state.ledgers['demo-1']).toMatchObject({
      files: ['after.ts', 'before.ts'],
      commits: [{ hash: 'd'.repeat(40) }],
      edits: 2,
      lastCheckpointAt: T0 + MINUTE,
      changesSince: T0 + 2 * MINUTE,
    });
    // Counted twice (two processes saw it land): the same.
    expect(markCheckpoint(state, 'demo-1', T0 + MINUTE)).toEqual(state);
  });

  it('never moves the checkpoint time backwards', () => {
    let state = markCheckpoint(emptyLedgerState(), 'demo-1', T0 + MINUTE);
    state = markCheckpoint(state, 'demo-1', T0);
    expect(state.ledgers['demo-1']?.lastCheckpointAt).toBe(T0 + MINUTE);
  });

  it('caps the linked commits, keeping the newest', () => {
    let state = emptyLedgerState();
    for (let index = 0; index < MAX_LINKED_COMMITS + 3; index += 1) state = rememberLinked(state, `h${index}`);
    expect(state.linkedCommits).toHaveLength(MAX_LINKED_COMMITS);
    expect(isLinked(state, 'h0')).toBe(false);
    expect(isLinked(state, `h${MAX_LINKED_COMMITS + 2}`)).toBe(true);
  });

  it('summarizes a ledger for the recovery context', () => {
    let state = touch(emptyLedgerState(), ['b.ts', 'a.ts']);
    state = recordCommit(state, 'demo-1', { hash: 'c'.repeat(40), subject: 'fix', at: T0 }, T0);
    expect(toLedgerSummary(state.ledgers['demo-1']!)).toEqual({
      issueId: 'demo-1',
      files: ['a.ts', 'b.ts'],
      touched: [T0 + 2 * SECOND, T0],
      fileEdits: [1, 1],
      moreFiles: 0,
      commits: [{ hash: 'c'.repeat(40), subject: 'fix' }],
      edits: 2,
      lastCheckpointAt: undefined,
    });
  });
});

describe('focus', () => {
  it('follows the most recently updated in-progress issue until the user pins one', () => {
    let state = reconcileFocus(emptyLedgerState(), ['demo-2', 'demo-1'], T0);
    expect(state).toMatchObject({ focusedId: 'demo-2', focusPinned: false });
    state = setFocus(state, 'demo-1', T0 + 1);
    expect(reconcileFocus(state, ['demo-3', 'demo-2', 'demo-1'], T0 + 2)).toBe(state);
    const released = reconcileFocus(state, ['demo-3', 'demo-2'], T0 + 3);
    expect(released).toMatchObject({ focusedId: 'demo-3', focusPinned: false, focusedAt: T0 + 3 });
    expect(reconcileFocus(released, [], T0 + 4).focusedId).toBeUndefined();
  });

  it('returns the same state when the focus does not change', () => {
    const state = reconcileFocus(emptyLedgerState(), ['demo-1'], T0);
    expect(reconcileFocus(state, ['demo-1', 'demo-2'], T0 + 1)).toBe(state);
    expect(reconcileFocus(emptyLedgerState(), [], T0)).toEqual(emptyLedgerState());
  });

  it('gives the focused issue\'s ledger', () => {
    const state = setFocus(touch(emptyLedgerState(), ['a.ts']), 'demo-1', T0);
    expect(focusedLedger(state)?.files).toEqual(['a.ts']);
    expect(focusedLedger(setFocus(state, 'demo-9', T0))).toBeUndefined();
  });
});

describe('mergeLedgerStates', () => {
  it('unites what two windows recorded in the same period', () => {
    const base = touch(emptyLedgerState(), ['shared.ts']);
    const mine = touch(base, ['mine.ts'], T0 + MINUTE);
    const theirs = touch(touch(base, ['theirs.ts', 'x.ts'], T0 + 2 * MINUTE), ['shared.ts'], T0 + 3 * MINUTE);
    const merged = mergeLedgerStates(mine, theirs);
    const ledger = merged.ledgers['demo-1'];
    expect(ledger?.files).toEqual(['mine.ts', 'shared.ts', 'theirs.ts', 'x.ts']);
    expect(ledger?.touched[ledger.files.indexOf('shared.ts')]).toBe(T0 + 3 * MINUTE);
    expect(ledger?.editCounts).toEqual([1, 2, 1, 1]);
    expect(ledger?.edits).toBe(4);
    expect(ledger?.changesSince).toBe(T0);
  });

  it('is commutative and idempotent', () => {
    const a = recordCommit(touch(emptyLedgerState(), ['a.ts', 'b.ts']), 'demo-1', { hash: 'a'.repeat(40), subject: 'a', at: T0 }, T0);
    const b = setFocus(touch(rememberLinked(emptyLedgerState(), 'b'.repeat(40)), ['c.ts'], T0 + MINUTE, SECOND, 'demo-2'), 'demo-2', T0 + 5);
    // The linked lists are sets kept in arrival order: which side arrived first may differ.
    const canonical = (state: LedgerState) => ({ ...state, linkedCommits: [...state.linkedCommits].sort(), linkedSubjects: [...state.linkedSubjects].sort((x, y) => x.subject.localeCompare(y.subject)) });
    expect(canonical(mergeLedgerStates(a, b))).toEqual(canonical(mergeLedgerStates(b, a)));
    const once = mergeLedgerStates(a, b);
    expect(mergeLedgerStates(once, b)).toEqual(once);
    expect(mergeLedgerStates(once, once)).toEqual(once);
    expect(once.linkedCommits.sort()).toEqual(['a'.repeat(40), 'b'.repeat(40)]);
    expect(once.focusedId).toBe('demo-2');
  });

  it('lets a later checkpoint win over what the other copy recorded before it', () => {
    const before = touch(emptyLedgerState(), ['old.ts', 'older.ts']);
    const checkpointed = touch(markCheckpoint(before, 'demo-1', T0 + MINUTE), ['after.ts'], T0 + 2 * MINUTE);
    const stale = touch(before, ['late.ts'], T0 + 3 * MINUTE);
    for (const merged of [mergeLedgerStates(checkpointed, stale), mergeLedgerStates(stale, checkpointed)]) {
      const ledger = merged.ledgers['demo-1'];
      expect(ledger?.files).toEqual(['after.ts', 'late.ts']);
      expect(ledger?.editCounts).toEqual([1, 1]);
      expect(ledger?.lastCheckpointAt).toBe(T0 + MINUTE);
      expect(ledger?.edits).toBe(1);
    }
  });

  it('keeps the later reflog cursor', () => {
    const a = { ...emptyLedgerState(), reflog: { offset: 100, inode: 5, head: 'x', lastTimestamp: 10, rewrites: 0 } };
    const b = { ...emptyLedgerState(), reflog: { offset: 300, inode: 5, head: 'x', lastTimestamp: 12, rewrites: 0 } };
    expect(mergeLedgerStates(a, b).reflog?.offset).toBe(300);
    expect(mergeLedgerStates(b, a).reflog?.offset).toBe(300);
    expect(mergeLedgerStates(a, emptyLedgerState()).reflog).toEqual(a.reflog);
  });

  it('prefers a cursor made after a rewrite, though the rewritten file is shorter', () => {
    const before = { ...emptyLedgerState(), reflog: { offset: 9000, inode: 5, head: 'x', lastTimestamp: 12, rewrites: 0 } };
    const after = { ...emptyLedgerState(), reflog: { offset: 400, inode: 6, head: 'y', lastTimestamp: 12, rewrites: 1 } };
    expect(mergeLedgerStates(before, after).reflog).toEqual(after.reflog);
    expect(mergeLedgerStates(after, before).reflog).toEqual(after.reflog);
  });
});

describe('normalizeLedgerState', () => {
  it('round-trips through JSON', () => {
    const state = setFocus(recordCommit(touch(emptyLedgerState(), ['a.ts']), 'demo-1', { hash: 'd'.repeat(40), subject: 's', at: T0 }, T0), 'demo-1', T0);
    const withCursor = { ...state, reflog: { offset: 1, inode: 2, head: 'h', lastTimestamp: 3, rewrites: 4 } };
    expect(normalizeLedgerState(JSON.parse(JSON.stringify(withCursor)))).toEqual(withCursor);
  });

  it('drops what is not the expected shape instead of trusting it', () => {
    expect(normalizeLedgerState(null)).toEqual(emptyLedgerState());
    expect(normalizeLedgerState({ version: 2, ledgers: {} })).toEqual(emptyLedgerState());
    const state = normalizeLedgerState({
      version: 1,
      focusedId: 7,
      ledgers: { 'demo-1': { startedAt: T0, files: ['b.ts', 'a.ts', 7], touched: ['yesterday', T0, T0], edits: -3, commits: [{ hash: 1 }] }, broken: 'x' },
      linkedCommits: ['h', 4],
      reflog: { offset: -1 },
    });
    expect(state.focusedId).toBeUndefined();
    expect(Object.keys(state.ledgers)).toEqual(['demo-1']);
    expect(state.ledgers['demo-1']).toMatchObject({ files: ['a.ts'], touched: [T0], edits: 0, commits: [] });
    expect(state.linkedCommits).toEqual(['h']);
    expect(state.reflog).toBeUndefined();
  });

  it('loads a ledger written before per-file counts existed, counting each file once', () => {
    const old = { version: 1, ledgers: { 'demo-1': { issueId: 'demo-1', startedAt: T0, files: ['a.ts', 'b.ts'], touched: [T0, T0 + SECOND], moreFiles: 0, commits: [], edits: 7 } }, linkedCommits: [], linkedSubjects: [] };
    const ledger = normalizeLedgerState(old).ledgers['demo-1']!;
    expect(ledger).toMatchObject({ files: ['a.ts', 'b.ts'], editCounts: [1, 1], edits: 7 });
    expect(filesByEdits(ledger)).toEqual(['b.ts', 'a.ts']);
    const damaged = normalizeLedgerState({ ...old, ledgers: { 'demo-1': { ...old.ledgers['demo-1'], editCounts: [4, 'x'] } } });
    expect(damaged.ledgers['demo-1']?.editCounts).toEqual([4, 1]);
  });
});
