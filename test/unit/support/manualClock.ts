import type { Subscription } from '../../../src/services/disposable';
import type { Clock } from '../../../src/services/folderActivity';

interface Pending {
  at: number;
  run: () => void;
  periodMs?: number;
}

/** A clock that moves only when told: timers run, in order, as `advance` passes their time. */
export class ManualClock implements Clock {
  private readonly pending = new Set<Pending>();

  constructor(private current = Date.parse('2026-03-01T10:00:00Z')) {}

  now(): number {
    return this.current;
  }

  setTimeout(run: () => void, delayMs: number): Subscription {
    return this.schedule({ at: this.current + delayMs, run });
  }

  setInterval(run: () => void, periodMs: number): Subscription {
    return this.schedule({ at: this.current + periodMs, run, periodMs });
  }

  /** Timers waiting to run. */
  get timers(): number {
    return this.pending.size;
  }

  /** Moves the time on by `ms`, running each timer that falls due on the way. */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const next = [...this.pending].filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.current = next.at;
      if (next.periodMs === undefined) this.pending.delete(next);
      else next.at += next.periodMs;
      next.run();
    }
    this.current = until;
  }

  private schedule(timer: Pending): Subscription {
    this.pending.add(timer);
    return { dispose: () => this.pending.delete(timer) };
  }
}
