// The hook's work (dist/hookWork.js), loaded by dist/hook.js once a beads folder may be near.
import { endOrphanedProcesses } from '../beads/processRegistry';
import { endStartedProcessesOnSignals } from '../beads/runCli';
import type { HookInput } from '../core/hookProtocol';
import { runHook, type HookIo } from './hook';

export function answerHook(agent: string | undefined, event: string | undefined, input: HookInput | undefined, run: Pick<HookIo, 'runId' | 'startedAt'> = {}): Promise<string> {
  // A run killed outright (a hook the agent gave up on) may have left a CLI running: ended here.
  endOrphanedProcesses({ log: (message) => process.stderr.write(`beads-recovery: ${message}\n`) });
  endStartedProcessesOnSignals();
  return runHook(agent, event, { ...run, readInput: () => Promise.resolve(input) });
}
