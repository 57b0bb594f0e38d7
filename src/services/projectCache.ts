import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CachedWhere, WhereCache, WhereKey } from '../beads/detect';
import { readIfPresent } from './files';

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

/**
 * What one command-line process leaves for the next on the same project: the answer of the CLI's
 * `where --json` (detection, valid while the executable is unchanged) and the ids the last context
 * needed. Each hook is a new process; without this every one of them would pay a `where` and a
 * third dependent step. Kept in the repository's git directory next to the ledger; advisory only:
 * unreadable or damaged, it is as if empty, and a failed write loses nothing but time.
 */
export class ProjectCacheFile implements WhereCache {
  constructor(private readonly file: string) {}

  async get(key: WhereKey): Promise<CachedWhere | undefined> {
    const entry = (await this.read()).where[key.folder];
    return entry && entry.command === key.command && entry.stamp === key.stamp ? entry.value : undefined;
  }

  async set(key: WhereKey, value: CachedWhere): Promise<void> {
    await this.update((content) => {
      content.where[key.folder] = { command: key.command, stamp: key.stamp, value };
    });
  }

  async hints(root: string): Promise<ContextHints | undefined> {
    return (await this.read()).hints[root];
  }

  async saveHints(root: string, hints: ContextHints): Promise<void> {
    await this.update((content) => {
      content.hints[root] = { ...(hints.focusedId ? { focusedId: hints.focusedId } : {}), contextIds: hints.contextIds.slice(0, MAX_HINTS) };
    });
  }

  private async read(): Promise<CacheContent> {
    try {
      const parsed: unknown = JSON.parse((await readIfPresent(this.file)) ?? '{}');
      const record = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<CacheContent>) : {};
      return { where: isRecord(record.where) ? record.where : {}, hints: isRecord(record.hints) ? record.hints : {} };
    } catch {
      return { where: {}, hints: {} };
    }
  }

  private async update(change: (content: CacheContent) => void): Promise<void> {
    const content = await this.read();
    change(content);
    await mkdir(path.dirname(this.file), { recursive: true });
    // A whole new file renamed over the old one: a reader never sees half of it.
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(content)}\n`, 'utf8');
      await rename(temporary, this.file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}

function isRecord<T>(value: unknown): value is Record<string, T> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
