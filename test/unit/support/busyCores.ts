// The randomized fault tests run with every core kept busy (up to two): the races they look for
// show when the processes under test wait to be scheduled. Each test file keeps them busy for its
// own run (it alone knows how long it needs them) and ends the loops by their own PIDs, never by
// name.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll } from 'vitest';

/** Keeps one busy loop per core (two at most) running from this file's first test to its last. */
export function keepCoresBusyWhileTestsRun(): void {
  let loops: ChildProcess[] = [];
  beforeAll(() => {
    loops = Array.from({ length: Math.min(2, availableParallelism()) }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  });
  afterAll(() => {
    for (const loop of loops) if (loop.pid !== undefined) process.kill(loop.pid, 'SIGKILL');
  });
}
