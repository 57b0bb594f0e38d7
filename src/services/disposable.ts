// The one lifecycle pattern of the extension (as in rust-analyzer's and vscode-pull-request-github's
// extensions). Free of `vscode` so that the services use it too: a vscode.Disposable is anything
// with `dispose()`, which is all this needs.

/** Something that lets go of what it holds when disposed: a listener, a watcher, a timer. */
export interface Subscription {
  dispose(): void;
}

/** Where timers come from: the system's, or a test's hand-driven clock. */
export interface Timers {
  setTimeout(run: () => void, delayMs: number): Subscription;
  setInterval(run: () => void, periodMs: number): Subscription;
}

export const systemTimers: Timers = {
  setTimeout(run, delayMs) {
    const timer = setTimeout(run, delayMs);
    return { dispose: () => clearTimeout(timer) };
  },
  setInterval(run, periodMs) {
    const timer = setInterval(run, periodMs);
    return { dispose: () => clearInterval(timer) };
  },
};

/**
 * A class registers what it owns as it creates it, and disposing the class disposes each of them
 * once, the last registered first. Something registered after disposal is disposed at once, so a
 * late async start cannot leak. Timers are owned the same way.
 */
export abstract class Disposable implements Subscription {
  private readonly owned: Subscription[] = [];
  private isDisposed = false;

  /** Where `setTimeout` and `setInterval` get their timers; a subclass may hand in a test clock. */
  protected readonly timers: Timers = systemTimers;

  protected get disposed(): boolean {
    return this.isDisposed;
  }

  /** Takes ownership of `item` and returns it. */
  protected register<T extends Subscription>(item: T): T {
    if (this.isDisposed) item.dispose();
    else this.owned.push(item);
    return item;
  }

  /** Disposes `item` now and forgets it (something owned that ends before its owner). */
  protected release(item: Subscription | undefined): void {
    if (!item) return;
    this.forget(item);
    item.dispose();
  }

  /** A timer owned like any other resource: cleared on disposal or by disposing the handle, forgotten once it has run. */
  protected setTimeout(run: () => void, delayMs: number): Subscription {
    if (this.isDisposed) return { dispose: () => undefined };
    const timer = this.timers.setTimeout(() => {
      this.forget(handle);
      run();
    }, delayMs);
    const handle = this.ownedTimer(timer);
    return handle;
  }

  /** A repeating timer, owned: stops on disposal or when its handle is disposed. */
  protected setInterval(run: () => void, periodMs: number): Subscription {
    if (this.isDisposed) return { dispose: () => undefined };
    return this.ownedTimer(this.timers.setInterval(run, periodMs));
  }

  private ownedTimer(timer: Subscription): Subscription {
    const handle: Subscription = {
      dispose: () => {
        this.forget(handle);
        timer.dispose();
      },
    };
    this.owned.push(handle);
    return handle;
  }

  private forget(item: Subscription): void {
    const index = this.owned.indexOf(item);
    if (index >= 0) this.owned.splice(index, 1);
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    for (const item of this.owned.splice(0).reverse()) item.dispose();
  }
}
