import type { CachedWhere, WhereCache, WhereKey } from '../beads/detect';
import { DurableJsonFile } from './durableJson';

/** What the last recovery context of a project needed, to start the next one's `show` with its lists. */
export interface ContextHints {
  focusedId?: string;
  contextIds: string[];
}

interface CacheContent {
  where: Record<string, { command: string; stamp: string; value: CachedWhere }>;
  hints: Record<string, ContextHints>;
}

const MAX_HINTS = 50;
const CACHE_LOCK_WAIT_MS = 250;

/**
 * What one command-line process leaves for the next on the same project: the answer of the CLI's
 * `where --json` (detection, valid while the executable is unchanged) and the ids the last context
 * needed. Each hook is a new process; without this every one of them would pay a `where` and a
 * third dependent step. Kept in the repository's git directory next to the ledger; advisory only:
 * unreadable, it is as if empty; damaged, what still parses of it is kept; a failed write (or a
 * lock another process holds) loses nothing but time.
 */
export class ProjectCacheFile implements WhereCache {
  private readonly store: DurableJsonFile<CacheContent>;

  constructor(file: string) {
    this.store = new DurableJsonFile<CacheContent>({
      file,
      empty: () => ({ where: {}, hints: {} }),
      parse: (value) => {
        const record = isRecord(value) ? (value as Partial<CacheContent>) : {};
        return { where: isRecord(record.where) ? record.where : {}, hints: isRecord(record.hints) ? record.hints : {} };
      },
      // A cache is worth no wait: another process holding it means this one's answer may go.
      lockWaitMs: CACHE_LOCK_WAIT_MS,
    });
  }

  async get(key: WhereKey): Promise<CachedWhere | undefined> {
    const entry = (await this.read()).where[key.folder];
    return entry && entry.command === key.command && entry.stamp === key.stamp ? entry.value : undefined;
  }

  async set(key: WhereKey, value: CachedWhere): Promise<void> {
    await this.store.update((content) => {
      content.where[key.folder] = { command: key.command, stamp: key.stamp, value };
      return content;
    });
  }

  async hints(root: string): Promise<ContextHints | undefined> {
    return (await this.read()).hints[root];
  }

  async saveHints(root: string, hints: ContextHints): Promise<void> {
    await this.store.update((content) => {
      content.hints[root] = { ...(hints.focusedId ? { focusedId: hints.focusedId } : {}), contextIds: hints.contextIds.slice(0, MAX_HINTS) };
      return content;
    });
  }

  /** Unreadable is as if empty. */
  private read(): Promise<CacheContent> {
    return this.store.read().catch(() => ({ where: {}, hints: {} }));
  }
}

function isRecord<T>(value: unknown): value is Record<string, T> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
