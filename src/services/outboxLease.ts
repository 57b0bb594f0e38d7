// The outbox's drain lease: only one drainer at a time per outbox file, across windows and the
// command line. A file next to the outbox, created with O_EXCL and naming its holder, broken only
// when the holder's process is gone or the lease went untouched for `staleMs`. Not io/fileLock.ts
// (which the outbox's own file uses): a lease is held across CLI calls that take seconds, and a
// holder that died must be replaced at once, by its pid, not after a staleness period.

import { promises as fs } from 'node:fs';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';
import { dirname } from 'node:path';
import { processExists } from '../beads/processRegistry';

export interface DrainLeaseOptions {
  file: string;
  /** Identifies the drainer (pid and a random part). */
  owner: string;
  staleMs: number;
  now: () => number;
  log: (message: string) => void;
}

export class DrainLease {
  constructor(private readonly options: DrainLeaseOptions) {}

  /** Takes the lease; false when a live drainer holds it. */
  async acquire(): Promise<boolean> {
    const { file } = this.options;
    await fs.mkdir(dirname(file), { recursive: true });
    for (let tries = 0; tries < 2; tries++) {
      try {
        const handle = await fs.open(file, 'wx');
        await handle.writeFile(JSON.stringify({ owner: this.options.owner, pid: process.pid, at: this.options.now() }));
        await handle.close();
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (!(await this.isAbandoned())) return false;
      this.options.log(`taking over an abandoned drain lease (${file})`);
      await fs.rm(file, { force: true });
    }
    return false;
  }

  /** Shows the lease is still held (its time is what staleness is judged by). */
  async touch(): Promise<void> {
    const now = new Date();
    await fs.utimes(this.options.file, now, now).catch(() => undefined);
  }

  async release(): Promise<void> {
    try {
      const holder = JSON.parse((await readTextFile(this.options.file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '{}') as { owner?: string };
      if (holder.owner === this.options.owner) await fs.rm(this.options.file, { force: true });
    } catch {
      // Already gone or taken over: nothing of ours to release.
    }
  }

  private async isAbandoned(): Promise<boolean> {
    let holder: { owner?: string; pid?: number } = {};
    let modifiedAt: number;
    try {
      const [text = '', stat] = await Promise.all([readTextFile(this.options.file, { maxBytes: SMALL_FILE_MAX_BYTES }), fs.stat(this.options.file)]);
      modifiedAt = stat.mtimeMs;
      try {
        holder = JSON.parse(text) as typeof holder;
      } catch {
        // Its writer died between creating and filling it: judge by age alone.
      }
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
    if (holder.owner === this.options.owner) return true;
    if (typeof holder.pid === 'number' && !processExists(holder.pid)) return true;
    return Date.now() - modifiedAt > this.options.staleMs;
  }
}
