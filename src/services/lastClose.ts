import * as path from 'node:path';
import type { LastClose } from '../core/next';
import type { IssueSummary } from '../core/model';
import { DurableJsonFile, type DamageReport } from './durableJson';

// The last close made with Beads: Close Issue and not yet followed up, kept beside the ledger so
// that the sidebar of every window and the command line's recovery context offer the same next
// issue (`nextFor` in core/next.ts) as the close's notification did.

export const LAST_CLOSE_FILE = 'last-close.json';

interface LastCloseFileState {
  lastClose?: LastClose;
}

/** The store beside the ledger file `ledgerFile`. */
export function lastCloseBesideLedger(ledgerFile: string, onDamage?: (report: DamageReport) => void): LastCloseStore {
  return new LastCloseStore(path.join(path.dirname(ledgerFile), LAST_CLOSE_FILE), onDamage);
}

export class LastCloseStore {
  private readonly json: DurableJsonFile<LastCloseFileState>;

  constructor(file: string, onDamage?: (report: DamageReport) => void) {
    this.json = new DurableJsonFile<LastCloseFileState>({ file, empty: () => ({}), parse: parseState, ...(onDamage ? { onDamage } : {}) });
  }

  get file(): string {
    return this.json.file;
  }

  /** The last close not dismissed; undefined when there is none or the file cannot be read. */
  async read(): Promise<LastClose | undefined> {
    try {
      return (await this.json.read()).lastClose;
    } catch {
      return undefined;
    }
  }

  record(lastClose: LastClose): Promise<unknown> {
    return this.json.update(() => ({ lastClose }));
  }

  /** The offer was dismissed or followed (something claimed). */
  clear(): Promise<unknown> {
    return this.json.update((state) => (state.lastClose ? {} : state));
  }
}

function parseState(value: unknown, problems: string[]): LastCloseFileState {
  const raw = isRecord(value) ? value.lastClose : undefined;
  if (raw === undefined) return {};
  const closed = isRecord(raw) ? summary(raw.closed) : undefined;
  if (!isRecord(raw) || !closed) {
    problems.push('the last close could not be read and was set aside');
    return {};
  }
  return { lastClose: { closed, unblocked: ids(raw.unblocked), inProgressAfter: ids(raw.inProgressAfter) } };
}

function summary(value: unknown): IssueSummary | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || value.id === '') return undefined;
  return {
    id: value.id,
    title: typeof value.title === 'string' ? value.title : '',
    status: typeof value.status === 'string' ? value.status : 'closed',
    priority: typeof value.priority === 'number' ? value.priority : Number.NaN,
    issueType: typeof value.issueType === 'string' ? value.issueType : 'unknown',
  };
}

function ids(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
