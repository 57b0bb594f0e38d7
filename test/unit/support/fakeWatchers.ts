import * as path from 'node:path';
import type { Subscription } from '../../../src/services/disposable';
import type { FileEvents, FileWatchers } from '../../../src/services/folderActivity';

interface Watch {
  base: string;
  pattern: string;
  events: FileEvents;
}

/** File watchers driven by the test: `fire` reports an event to every watch whose folder holds the file. */
export class FakeWatchers implements FileWatchers {
  readonly watches = new Set<Watch>();

  watch(base: string, pattern: string, events: FileEvents): Subscription {
    const watch = { base, pattern, events };
    this.watches.add(watch);
    return { dispose: () => this.watches.delete(watch) };
  }

  /** What is watched, as `base|pattern`, for assertions. */
  watched(): string[] {
    return [...this.watches].map((watch) => `${watch.base}|${watch.pattern}`);
  }

  fire(kind: keyof FileEvents, file: string): void {
    for (const watch of [...this.watches]) {
      const relative = path.relative(watch.base, file);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      if (!watch.pattern.includes('*') && relative !== watch.pattern) continue;
      watch.events[kind]?.(file);
    }
  }
}
