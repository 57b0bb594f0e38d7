import * as vscode from 'vscode';

/**
 * Commands a person starts and waits on (Checkpoint Now, Claim, Close) run one at a time: a second
 * press while one runs, from any surface, is ignored, and the status bar says so, rather than
 * asking the same question twice or writing twice.
 */
export class OneAtATime {
  private readonly running = new Map<string, string>();

  /** Runs `task` unless the one under `key` still runs; `what` names it ("a checkpoint of demo-1"). */
  async run<T>(key: string, what: string, task: () => Promise<T>): Promise<T | undefined> {
    const already = this.running.get(key);
    if (already !== undefined) {
      vscode.window.setStatusBarMessage(`$(info) Beads: ${already} is still under way; that press was ignored`, 5000);
      return undefined;
    }
    this.running.set(key, what);
    try {
      return await task();
    } finally {
      this.running.delete(key);
    }
  }

  /** What runs under `key`, if anything. */
  runningAs(key: string): string | undefined {
    return this.running.get(key);
  }
}

/** One for the window: every surface's press goes through the same commands. */
export const interactive = new OneAtATime();
