// The outbox's drain lease: only one drainer at a time per outbox file, across windows and the
// command line. A file next to the outbox, created with O_EXCL and naming its holder, broken only
// when the holder's process is gone or the lease went untouched for `staleMs`. Not io/fileLock.ts
// (which the outbox's own file uses): a lease is held across CLI calls that take seconds, and a
// holder that died must be replaced at once, by its pid, not after a staleness period.
//
// Several drainers find a dead holder's lease at once (the checkpoints started beside a killed
// one). A takeover removes the very file it judged abandoned, never the lease a faster drainer
// took meanwhile: it moves the lease aside (a rename: one mover wins) and checks by its identity
// that it moved the judged one, putting back any other. Two holders at once would each send the
// same queued write.

import { promises as fs, type BigIntStats } from 'node:fs';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';
import { uniqueNamePart } from '../io/uniqueName';
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
      const abandoned = await this.abandonedLease();
      if (!abandoned) return false;
      if (!(await this.removeAbandoned(abandoned))) return false;
      this.options.log(`taking over an abandoned drain lease (${file})`);
    }
    return false;
  }

  /**
   * Shows the lease is still held (its time is what staleness is judged by). False when it is no
   * longer this drainer's: another took it over as stale; the pass should stop.
   */
  async touch(): Promise<boolean> {
    if (!(await this.holds())) return false;
    const now = new Date();
    await fs.utimes(this.options.file, now, now).catch(() => undefined);
    return true;
  }

  private async holds(): Promise<boolean> {
    try {
      const holder = JSON.parse((await readTextFile(this.options.file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '{}') as { owner?: string };
      return holder.owner === this.options.owner;
    } catch {
      return false;
    }
  }

  /**
   * Removes the lease judged abandoned, if it is still that one. False when another drainer took
   * the lease first (whatever lease it moved aside is put back).
   */
  private async removeAbandoned(abandoned: LeaseIdentity): Promise<boolean> {
    const aside = `${this.options.file}.${uniqueNamePart()}.taken`;
    try {
      await fs.rename(this.options.file, aside);
    } catch (error) {
      // Gone already: another drainer removed it; the race for a new one decides.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw error;
    }
    try {
      const moved = await fs.stat(aside, { bigint: true });
      if (moved.ino === abandoned.ino && moved.dev === abandoned.dev) return true;
      // A live drainer's new lease: back in its place, unless yet another was taken meanwhile.
      await fs.link(aside, this.options.file).catch(() => undefined);
      return false;
    } finally {
      await fs.rm(aside, { force: true });
    }
  }

  async release(): Promise<void> {
    try {
      const holder = JSON.parse((await readTextFile(this.options.file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '{}') as { owner?: string };
      if (holder.owner === this.options.owner) await fs.rm(this.options.file, { force: true });
    } catch {
      // Already gone or taken over: nothing of ours to release.
    }
  }

  /** The lease file, when its holder is gone or it went stale; undefined while a live drainer holds it. */
  private async abandonedLease(): Promise<LeaseIdentity | undefined> {
    let holder: { owner?: string; pid?: number } = {};
    let stat: BigIntStats;
    try {
      // Its identity first: the text read after it is then that file's or a later one's.
      stat = await fs.stat(this.options.file, { bigint: true });
      const text = (await readTextFile(this.options.file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '';
      try {
        holder = JSON.parse(text) as typeof holder;
      } catch {
        // Its writer died between creating and filling it: judge by age alone.
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ino: -1n, dev: -1n };
      throw error;
    }
    const identity = { ino: stat.ino, dev: stat.dev };
    if (holder.owner === this.options.owner) return identity;
    if (typeof holder.pid === 'number' && !processExists(holder.pid)) return identity;
    return Date.now() - Number(stat.mtimeMs) > this.options.staleMs ? identity : undefined;
  }
}

interface LeaseIdentity {
  ino: bigint;
  dev: bigint;
}
