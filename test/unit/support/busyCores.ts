// The randomized fault tests run with every core kept busy (up to two): the races they look for
// show when the processes under test wait to be scheduled. Each test starts the loops itself (it
// alone knows how long it needs them) and ends them by their own PIDs, never by name.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Starts one busy loop per core, two at most; returns what ends them. */
export function keepCoresBusy(): () => void {
  const loops: ChildProcess[] = Array.from({ length: Math.min(2, availableParallelism()) }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return () => {
    for (const loop of loops) if (loop.pid !== undefined) process.kill(loop.pid, 'SIGKILL');
  };
}
