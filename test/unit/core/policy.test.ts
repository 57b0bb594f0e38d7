import { describe, expect, it } from 'vitest';
import { emptyLedgerState, markCheckpoint, recordFileChange, type Ledger } from '../../../src/core/ledger';
import {
  DEFAULT_POLICY,
  EMPTY_NUDGE_MEMORY,
  checkpointDue,
  dueNotified,
  findStalls,
  formatDuration,
  lastCheckpointPhrase,
  workPhrase,
  lastSignOfLife,
  shouldNotifyDue,
  snoozed,
  stallsWarned,
  unwarnedStalls,
} from '../../../src/core/policy';

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;

function ledgerWithEdits(count: number, start = T0, spacing = 2_000): Ledger {
  let state = emptyLedgerState();
  for (let index = 0; index < count; index += 1) state = recordFileChange(state, 'demo-1', `f${index}.ts`, start + index * spacing);
  return state.ledgers['demo-1']!;
}

describe('checkpointDue', () => {
  it('is not due without a ledger or below both thresholds', () => {
    expect(checkpointDue(undefined, T0, DEFAULT_POLICY)).toEqual({ due: false, edits: 0, minutesWithChanges: 0 });
    expect(checkpointDue(ledgerWithEdits(19), T0 + 29 * MINUTE, DEFAULT_POLICY)).toMatchObject({ due: false, edits: 19, minutesWithChanges: 29 });
  });

  it('is due at the edit threshold', () => {
    expect(checkpointDue(ledgerWithEdits(20), T0 + MINUTE, DEFAULT_POLICY)).toMatchObject({ due: true, reason: 'edits', edits: 20, period: `demo-1@${T0}` });
  });

  it('is due after the minutes threshold only when something changed', () => {
    expect(checkpointDue(ledgerWithEdits(1), T0 + 30 * MINUTE, DEFAULT_POLICY)).toMatchObject({ due: true, reason: 'minutes', minutesWithChanges: 30 });
    const idle = markCheckpoint(emptyLedgerState(), 'demo-1', T0).ledgers['demo-1'];
    expect(checkpointDue(idle, T0 + 10 * 60 * MINUTE, DEFAULT_POLICY).due).toBe(false);
  });

  it('counts minutes from the first change after the last checkpoint', () => {
    let state = recordFileChange(emptyLedgerState(), 'demo-1', 'a.ts', T0);
    state = markCheckpoint(state, 'demo-1', T0 + 40 * MINUTE);
    state = recordFileChange(state, 'demo-1', 'a.ts', T0 + 50 * MINUTE);
    const due = checkpointDue(state.ledgers['demo-1'], T0 + 60 * MINUTE, DEFAULT_POLICY);
    expect(due).toMatchObject({ due: false, minutesWithChanges: 10, period: `demo-1@${T0 + 40 * MINUTE}` });
  });

  it('turns a trigger off with 0', () => {
    const policy = { ...DEFAULT_POLICY, editThreshold: 0, minutesThreshold: 0 };
    expect(checkpointDue(ledgerWithEdits(500), T0 + 600 * MINUTE, policy).due).toBe(false);
  });
});

describe('reminders', () => {
  const due = checkpointDue(ledgerWithEdits(20), T0 + MINUTE, DEFAULT_POLICY);

  it('notifies once per due period', () => {
    expect(shouldNotifyDue(due, EMPTY_NUDGE_MEMORY, T0)).toBe(true);
    const memory = dueNotified(EMPTY_NUDGE_MEMORY, due.period!);
    expect(shouldNotifyDue(due, memory, T0 + 1000 * MINUTE)).toBe(false);
    const nextPeriod = { ...due, period: `demo-1@${T0 + 5 * MINUTE}` };
    expect(shouldNotifyDue(nextPeriod, memory, T0 + 6 * MINUTE)).toBe(true);
    expect(shouldNotifyDue({ ...due, due: false }, EMPTY_NUDGE_MEMORY, T0)).toBe(false);
  });

  it('comes back after a snooze, in the same period', () => {
    const memory = snoozed(EMPTY_NUDGE_MEMORY, due.period!, T0, DEFAULT_POLICY);
    expect(shouldNotifyDue(due, memory, T0 + 29 * MINUTE)).toBe(false);
    expect(shouldNotifyDue(due, memory, T0 + 30 * MINUTE)).toBe(true);
    expect(shouldNotifyDue(due, dueNotified(memory, due.period!), T0 + 31 * MINUTE)).toBe(false);
  });
});

describe('stalls', () => {
  it('finds in-progress issues without activity for the stalled time and warns once per stall', () => {
    const candidates = [
      { issueId: 'demo-1', lastActivityAt: T0 },
      { issueId: 'demo-2', lastActivityAt: T0 + 100 * MINUTE },
    ];
    const stalls = findStalls(candidates, T0 + 120 * MINUTE, DEFAULT_POLICY);
    expect(stalls).toEqual([{ issueId: 'demo-1', idleMinutes: 120, key: `demo-1@${T0}` }]);
    const memory = stallsWarned(EMPTY_NUDGE_MEMORY, stalls);
    expect(unwarnedStalls(findStalls(candidates, T0 + 500 * MINUTE, DEFAULT_POLICY), memory).map((stall) => stall.issueId)).toEqual(['demo-2']);
    const resumed = [{ issueId: 'demo-1', lastActivityAt: T0 + 200 * MINUTE }];
    expect(unwarnedStalls(findStalls(resumed, T0 + 400 * MINUTE, DEFAULT_POLICY), memory)).toHaveLength(1);
  });

  it('counts only the time the editor has been open: a first open after a night is not a stall', () => {
    const candidates = [{ issueId: 'wf-2', lastActivityAt: T0 }];
    const openedAt = T0 + 590 * MINUTE;
    expect(findStalls(candidates, openedAt + 5 * MINUTE, DEFAULT_POLICY, openedAt)).toEqual([]);
    expect(findStalls(candidates, openedAt + 119 * MINUTE, DEFAULT_POLICY, openedAt)).toEqual([]);
    expect(findStalls(candidates, openedAt + 125 * MINUTE, DEFAULT_POLICY, openedAt)).toEqual([{ issueId: 'wf-2', idleMinutes: 125, key: `wf-2@${T0}` }]);
    // Activity during the session counts from itself.
    expect(findStalls([{ issueId: 'wf-2', lastActivityAt: openedAt + 60 * MINUTE }], openedAt + 125 * MINUTE, DEFAULT_POLICY, openedAt)).toEqual([]);
  });

  it('is off with 0 and ignores unknown times', () => {
    expect(findStalls([{ issueId: 'x', lastActivityAt: 0 }], T0, { ...DEFAULT_POLICY, stalledMinutes: 0 })).toEqual([]);
    expect(findStalls([{ issueId: 'x', lastActivityAt: Number.NaN }], T0, DEFAULT_POLICY)).toEqual([]);
  });

  it('takes the latest sign of life from the ledger or the tracker', () => {
    const ledger = ledgerWithEdits(1);
    expect(lastSignOfLife(ledger, T0 - MINUTE)).toBe(T0);
    expect(lastSignOfLife(ledger, T0 + MINUTE)).toBe(T0 + MINUTE);
    expect(lastSignOfLife(undefined, undefined)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it('reads as minutes, then hours', () => {
    expect(formatDuration(0)).toBe('0m');
    expect(formatDuration(59)).toBe('59m');
    expect(formatDuration(60)).toBe('1h');
    expect(formatDuration(125)).toBe('2h 5m');
  });
});

describe('lastCheckpointPhrase', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const hoursAgo = (hours: number) => now - hours * 3_600_000;

  it('says the newest of the ledger and the model, whichever knows it', () => {
    // The report: before the view was opened, the tooltip said "no checkpoint yet" of an issue with three checkpoints.
    expect(lastCheckpointPhrase(undefined, now, { loaded: true, lastCheckpointAt: hoursAgo(20) })).toBe('last checkpoint 20h ago');
    expect(lastCheckpointPhrase({ lastCheckpointAt: hoursAgo(2) }, now, { loaded: true, lastCheckpointAt: hoursAgo(20) })).toBe('last checkpoint 2h ago');
    expect(lastCheckpointPhrase({ lastCheckpointAt: hoursAgo(2) }, now)).toBe('last checkpoint 2h ago');
  });

  it('says it is reading while the model loads, and "no checkpoint yet" only once it knows', () => {
    expect(lastCheckpointPhrase(undefined, now, { loaded: false })).toBe('reading its checkpoints…');
    expect(lastCheckpointPhrase(undefined, now, { loaded: true })).toBe('no checkpoint yet');
    expect(lastCheckpointPhrase({ lastCheckpointAt: undefined }, now, undefined)).toBe('no checkpoint yet');
  });
});

describe('workPhrase', () => {
  it('never says "over 0 minutes", and counts in plural words', () => {
    // The report: "15 edits over 0 minutes".
    expect(workPhrase(15, 0, 'spoken')).toBe('15 edits in under a minute');
    expect(workPhrase(15, 0, 'written')).toBe('15 edits in under a minute');
    expect(workPhrase(1, 1, 'spoken')).toBe('1 edit over 1 minute');
    expect(workPhrase(3, 25, 'written')).toBe('3 edits over 25m');
    expect(workPhrase(0, 25, 'written')).toBe('No edits');
  });
});
