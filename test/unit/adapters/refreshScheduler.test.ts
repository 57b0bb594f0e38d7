// When the sidebar refreshes: RefreshScheduler with a hand-driven clock.
import { describe, expect, it } from 'vitest';
import { RefreshScheduler, type Timers } from '../../../src/adapters/refreshScheduler';

type Change = 'beads' | 'git' | 'local';

class ManualTimers implements Timers {
  private time = 0;
  private readonly queue = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.queue.set(id, { at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.queue.delete(handle as number);
  }

  /** Moves the clock, firing due timers in order, and lets the refreshes they start settle. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.queue.entries()].filter(([, timer]) => timer.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.queue.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function setup() {
  const timers = new ManualTimers();
  const runs: Change[][] = [];
  let release: (() => void) | undefined;
  let holdNext = false;
  const scheduler = new RefreshScheduler<Change>(async (changes) => {
    runs.push([...changes].sort());
    if (holdNext) {
      holdNext = false;
      await new Promise<void>((resolve) => (release = resolve));
    }
  }, timers);
  return {
    timers,
    runs,
    scheduler,
    holdNextRefresh: () => (holdNext = true),
    releaseRefresh: async () => {
      release?.();
      await settle();
    },
  };
}

describe('RefreshScheduler', () => {
  it('coalesces a burst of changes into one refresh after the debounce', async () => {
    const { timers, runs, scheduler } = setup();
    scheduler.setActive(true);
    for (let i = 0; i < 1000; i++) scheduler.invalidate(['beads'], 300);
    await timers.advance(299);
    expect(runs).toEqual([]);
    await timers.advance(1);
    expect(runs).toEqual([['beads']]);
  });

  it('lets the soonest request win and gathers every kind of change', async () => {
    const { timers, runs, scheduler } = setup();
    scheduler.setActive(true);
    scheduler.invalidate(['git'], 1000);
    scheduler.invalidate(['beads'], 300);
    scheduler.invalidate(['local'], 1000);
    await timers.advance(300);
    expect(runs).toEqual([['beads', 'git', 'local']]);
    await timers.advance(2000);
    expect(runs).toHaveLength(1);
  });

  it('does nothing while hidden, then refreshes once when shown', async () => {
    const { timers, runs, scheduler } = setup();
    scheduler.invalidate(['beads'], 300);
    scheduler.invalidate(['git'], 1000);
    await timers.advance(60_000);
    expect(runs).toEqual([]);
    scheduler.setActive(true);
    await timers.advance(0);
    expect(runs).toEqual([['beads', 'git']]);
    scheduler.setActive(false);
    scheduler.setActive(true);
    await timers.advance(1000);
    expect(runs).toHaveLength(1);
  });

  it('never overlaps refreshes: changes during one make exactly one more', async () => {
    const { timers, runs, scheduler, holdNextRefresh, releaseRefresh } = setup();
    scheduler.setActive(true);
    holdNextRefresh();
    scheduler.invalidate(['beads'], 0);
    await timers.advance(0);
    expect(runs).toEqual([['beads']]);
    scheduler.invalidate(['git'], 0);
    scheduler.invalidate(['local'], 100);
    await timers.advance(500);
    expect(runs).toHaveLength(1);
    await releaseRefresh();
    expect(runs).toEqual([['beads'], ['git', 'local']]);
  });

  it('keeps refreshing after a timer fires with nothing left to do', async () => {
    const { timers, runs, scheduler, holdNextRefresh, releaseRefresh } = setup();
    scheduler.setActive(true);
    holdNextRefresh();
    scheduler.invalidate(['beads'], 0);
    await timers.advance(0);
    // Marked during the refresh, with a timer still to fire: the refresh's own loop takes the change.
    scheduler.invalidate(['git'], 1000);
    await releaseRefresh();
    expect(runs).toEqual([['beads'], ['git']]);
    await timers.advance(1000);
    scheduler.invalidate(['local'], 300);
    await timers.advance(300);
    expect(runs).toEqual([['beads'], ['git'], ['local']]);
  });

  it('flush runs now, and waits for a refresh in flight', async () => {
    const { timers, runs, scheduler } = setup();
    scheduler.setActive(true);
    scheduler.invalidate(['beads'], 10_000);
    await scheduler.flush();
    expect(runs).toEqual([['beads']]);
    await timers.advance(10_000);
    expect(runs).toHaveLength(1);
  });

  it('survives a refresh that throws', async () => {
    const timers = new ManualTimers();
    let calls = 0;
    const scheduler = new RefreshScheduler<Change>(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
    }, timers);
    scheduler.setActive(true);
    scheduler.invalidate(['beads'], 0);
    await timers.advance(0);
    scheduler.invalidate(['beads'], 0);
    await timers.advance(0);
    expect(calls).toBe(2);
  });
});
