// The session threads kept on this machine only (`beadsRecovery.thread.destination: local`),
// beside the ledger in the git directory (`<git-dir>/beads-recovery/threads.json`), which no one
// commits or pushes: written by the checkpoint flow, read by this machine's recovery contexts.
import path from 'node:path';
import { emptyLocalThreads, keepLocalThread, normalizeLocalThreads, type LocalThread, type LocalThreadsState } from '../core/threadDestination';
import { DurableJsonFile, type DamageReport } from './durableJson';
import { LEDGER_DIR } from './ledgerStore';

const THREADS_FILE = 'threads.json';

export class LocalThreadsStore {
  private readonly disk: DurableJsonFile<LocalThreadsState>;

  constructor(gitDir: string, options: { onDamage?: (report: DamageReport) => void } = {}) {
    this.disk = new DurableJsonFile<LocalThreadsState>({ file: path.join(gitDir, LEDGER_DIR, THREADS_FILE), empty: emptyLocalThreads, parse: normalizeLocalThreads, onDamage: options.onDamage });
  }

  /** The store beside the ledger file `ledgerFile` (VS Code knows its folder's ledger, not its git dir). */
  static besideLedger(ledgerFile: string, options: { onDamage?: (report: DamageReport) => void } = {}): LocalThreadsStore {
    return new LocalThreadsStore(path.dirname(path.dirname(ledgerFile)), options);
  }

  async threads(): Promise<LocalThread[]> {
    return (await this.disk.read()).threads;
  }

  async keep(thread: LocalThread): Promise<void> {
    await this.disk.update((state) => keepLocalThread(state, thread));
  }
}
