// The drain lease under a takeover race: when the holder died, the drainers waiting for it all see
// the lease abandoned at once, and exactly one of them may take it over. Two holders at once send
// the same queued write twice (the checkpoint fault test's "landed twice", seed 46786).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DrainLease } from '../../../src/services/outboxLease';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lease-'));
  file = join(dir, 'outbox.json.drain');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that is certainly gone: a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid as number;
}

function lease(owner: string): DrainLease {
  return new DrainLease({ file, owner, staleMs: 120_000, now: Date.now, log: () => undefined });
}

describe('DrainLease', () => {
  it('a lease whose holder died is taken over by exactly one of the drainers racing for it', async () => {
    const gone = deadPid();
    for (let round = 0; round < 200; round++) {
      writeFileSync(file, JSON.stringify({ owner: `${gone}:dead`, pid: gone, at: Date.now() }));
      const racers = Array.from({ length: 3 }, (_unused, index) => lease(`${process.pid}:racer-${round}-${index}`));
      const won = await Promise.all(racers.map((racer) => racer.acquire()));
      expect(won.filter(Boolean), `round ${round}`).toHaveLength(1);
      await racers[won.indexOf(true)]?.release();
    }
  });
});
