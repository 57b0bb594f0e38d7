import { describe, expect, it } from 'vitest';
import { Disposable, type Subscription, type Timers } from '../../../src/services/disposable';
import { ManualClock } from '../support/manualClock';

class Owner extends Disposable {
  constructor(protected override readonly timers: Timers) {
    super();
  }
  own(item: Subscription): Subscription {
    return this.register(item);
  }
  after(run: () => void, ms: number): Subscription {
    return this.setTimeout(run, ms);
  }
  every(run: () => void, ms: number): Subscription {
    return this.setInterval(run, ms);
  }
}

describe('Disposable', () => {
  it('disposes what it owns once, the last registered first, and at once what comes after', () => {
    const owner = new Owner(new ManualClock());
    const order: string[] = [];
    owner.own({ dispose: () => order.push('first') });
    owner.own({ dispose: () => order.push('second') });
    owner.dispose();
    owner.dispose();
    expect(order).toEqual(['second', 'first']);
    owner.own({ dispose: () => order.push('late') });
    expect(order).toEqual(['second', 'first', 'late']);
  });

  it('owns its timers: a cancelled or disposed timer never runs, a run one is forgotten', () => {
    const clock = new ManualClock();
    const owner = new Owner(clock);
    const runs: string[] = [];
    owner.after(() => runs.push('ran'), 10);
    owner.after(() => runs.push('cancelled'), 10).dispose();
    const ticking = owner.every(() => runs.push('tick'), 5);
    clock.advance(10);
    expect(runs).toEqual(['tick', 'ran', 'tick']);
    ticking.dispose();
    owner.after(() => runs.push('never'), 10);
    expect(clock.timers).toBe(1);
    owner.dispose();
    expect(clock.timers).toBe(0);
    clock.advance(100);
    expect(runs).toEqual(['tick', 'ran', 'tick']);
    owner.after(() => runs.push('after disposal'), 1);
    expect(clock.timers).toBe(0);
  });
});
