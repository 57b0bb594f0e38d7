import { describe, expect, it } from 'vitest';
import { emptyLedgerState, markCheckpoint, recordFileChange, type Ledger } from '../../../src/core/ledger';
import { missedFiles, recordMissedFiles, type DirtyBaseline } from '../../../src/core/missedFiles';

const CLAIM = Date.parse('2026-03-01T10:00:00Z');
const NOW = CLAIM + 3_600_000;

function ledgerWith(files: [string, number][], checkpointAt?: number): Ledger {
  let state = emptyLedgerState();
  if (checkpointAt !== undefined) state = markCheckpoint(state, 'demo-1', checkpointAt);
  for (const [file, at] of files) state = recordFileChange(state, 'demo-1', file, at);
  return state.ledgers['demo-1'] as Ledger;
}

const baseline = (paths: string[], focusedAt: number | undefined = CLAIM, issueId = 'demo-1'): DirtyBaseline => ({ issueId, focusedAt, paths: new Set(paths) });

describe('missedFiles', () => {
  it('finds files modified since the claim that the ledger never recorded, at their modification time', () => {
    const ledger = ledgerWith([['src/seen.ts', CLAIM + 10]]);
    const missed = missedFiles({
      issueId: 'demo-1',
      ledger,
      focusedAt: CLAIM,
      dirty: [{ path: 'src/seen.ts', modifiedMs: CLAIM + 10 }, { path: 'src/missed.ts', modifiedMs: CLAIM + 20 }],
      baseline: undefined,
      now: NOW,
    });
    expect(missed).toEqual([{ path: 'src/missed.ts', at: CLAIM + 20 }]);
  });

  it('never gives the issue a file already dirty before the claim, or before its last checkpoint', () => {
    const dirty = [{ path: 'before-claim.ts', modifiedMs: CLAIM - 1 }, { path: 'at-claim.ts', modifiedMs: CLAIM }, { path: 'before-checkpoint.ts', modifiedMs: CLAIM + 50 }];
    expect(missedFiles({ issueId: 'demo-1', ledger: ledgerWith([], CLAIM + 100), focusedAt: CLAIM, dirty, baseline: undefined, now: NOW })).toEqual([]);
    expect(missedFiles({ issueId: 'demo-1', ledger: undefined, focusedAt: CLAIM, dirty, baseline: undefined, now: NOW }).map((file) => file.path)).toEqual(['before-checkpoint.ts']);
  });

  it('counts a deleted file only when it went missing since the last look at this same focus', () => {
    const dirty = [{ path: 'old-gone.ts' }, { path: 'new-gone.ts' }];
    const input = { issueId: 'demo-1', ledger: undefined, focusedAt: CLAIM, dirty, now: NOW };
    expect(missedFiles({ ...input, baseline: undefined })).toEqual([]);
    expect(missedFiles({ ...input, baseline: baseline(['old-gone.ts']) })).toEqual([{ path: 'new-gone.ts', at: NOW }]);
    // The last look was of another issue, or of an earlier focus on this one: nothing to compare with.
    expect(missedFiles({ ...input, baseline: baseline(['old-gone.ts'], CLAIM, 'demo-2') })).toEqual([]);
    expect(missedFiles({ ...input, baseline: baseline(['old-gone.ts'], CLAIM - 5) })).toEqual([]);
  });

  it('without the time of the focus, counts only files newly dirty since the last look', () => {
    const dirty = [{ path: 'a.ts', modifiedMs: CLAIM + 1 }, { path: 'b.ts', modifiedMs: CLAIM + 2 }];
    expect(missedFiles({ issueId: 'demo-1', ledger: undefined, focusedAt: undefined, dirty, baseline: undefined, now: NOW })).toEqual([]);
    expect(missedFiles({ issueId: 'demo-1', ledger: undefined, focusedAt: undefined, dirty, baseline: { issueId: 'demo-1', focusedAt: undefined, paths: new Set(['a.ts']) }, now: NOW })).toEqual([{ path: 'b.ts', at: NOW }]);
  });

  it('does not bring back a file a capped ledger let go unless it changed since the oldest one kept', () => {
    const files: [string, number][] = Array.from({ length: 201 }, (_, index) => [`f${String(index).padStart(3, '0')}.ts`, CLAIM + 1_000 + index * 2_000]);
    const ledger = ledgerWith(files);
    expect(ledger.moreFiles).toBeGreaterThan(0);
    const dropped = files.find(([file]) => !ledger.files.includes(file)) as [string, number];
    const dirty = [{ path: dropped[0], modifiedMs: dropped[1] }, { path: 'fresh.ts', modifiedMs: NOW - 1 }];
    expect(missedFiles({ issueId: 'demo-1', ledger, focusedAt: CLAIM, dirty, baseline: undefined, now: NOW })).toEqual([{ path: 'fresh.ts', at: NOW - 1 }]);
  });

  it('never dates a file in the future', () => {
    expect(missedFiles({ issueId: 'demo-1', ledger: undefined, focusedAt: CLAIM, dirty: [{ path: 'a.ts', modifiedMs: NOW + 60_000 }], baseline: undefined, now: NOW })).toEqual([{ path: 'a.ts', at: NOW }]);
  });
});

describe('recordMissedFiles', () => {
  it('records oldest first and keeps the last sign of life where it was', () => {
    const state = recordFileChange(emptyLedgerState(), 'demo-1', 'recent.ts', CLAIM + 500);
    const next = recordMissedFiles(state, 'demo-1', [{ path: 'b.ts', at: CLAIM + 200 }, { path: 'a.ts', at: CLAIM + 100 }]);
    const ledger = next.ledgers['demo-1'] as Ledger;
    expect(ledger.files).toEqual(['a.ts', 'b.ts', 'recent.ts']);
    expect(ledger.touched).toEqual([CLAIM + 100, CLAIM + 200, CLAIM + 500]);
    expect(ledger.edits).toBe(3);
    expect(ledger.lastActivityAt).toBe(CLAIM + 500);
    expect(recordMissedFiles(state, 'demo-1', [])).toBe(state);
  });
});
