// Free of `vscode` so that its timing rules can be unit-tested with fake timers.

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

/**
 * Decides when a view refreshes. Changes only mark what is stale; while the view is inactive
 * (hidden) nothing runs, and the marks are honoured once when it becomes active. A burst of
 * changes within the debounce delay costs one refresh, the soonest requested delay wins, and
 * refreshes never overlap: changes during one are gathered into the next.
 */
export class RefreshScheduler<Change extends string> {
  private readonly pending = new Set<Change>();
  private active = false;
  private timer: unknown;
  private timerDue = Infinity;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly refresh: (changes: ReadonlySet<Change>) => Promise<void>,
    private readonly timers: Timers = realTimers,
  ) {}

  setActive(active: boolean): void {
    this.active = active;
    if (active && this.pending.size > 0) this.schedule(0);
    if (!active) this.cancelTimer();
  }

  /** Marks `changes` stale and, when active, refreshes after `delayMs`. */
  invalidate(changes: readonly Change[], delayMs: number): void {
    if (this.disposed) return;
    for (const change of changes) this.pending.add(change);
    if (this.active) this.schedule(delayMs);
  }

  /** Runs what is pending now (when active); resolves when the refreshes in flight have finished. */
  async flush(): Promise<void> {
    this.cancelTimer();
    if (this.running) return this.running;
    if (!this.active || this.pending.size === 0 || this.disposed) return;
    const running = this.loop();
    this.running = running;
    try {
      await running;
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
    this.pending.clear();
  }

  private async loop(): Promise<void> {
    while (this.active && this.pending.size > 0 && !this.disposed) {
      const changes = new Set(this.pending);
      this.pending.clear();
      try {
        await this.refresh(changes);
      } catch {
        // The refresh reports its own failures; the next changes still get their refresh.
      }
    }
  }

  private schedule(delayMs: number): void {
    const due = this.timers.now() + delayMs;
    if (this.timer !== undefined && due >= this.timerDue) return;
    this.cancelTimer();
    this.timerDue = due;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Infinity;
      // A refresh in flight picks up what is pending when it loops.
      if (!this.running) void this.flush();
    }, delayMs);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }
}
