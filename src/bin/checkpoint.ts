// `beads-recovery checkpoint`: a checkpoint comment written from outside VS Code, for agent hooks
// (Claude Code's PreCompact) and for people at a terminal. The argument parsing and the words
// printed; the checkpoint itself is the one flow every surface calls (src/services/checkpointFlow.ts).
// Hooks must never fail the agent: as a hook, every problem is one line and exit 0.

import { parseArgs } from 'node:util';
import { sessionOfHook } from '../core/agentSessions';
import { errorMessage } from '../core/errors';
import { openFolder, parkedNotes, runCheckpoint, type CheckpointFlowResult } from '../services/checkpointFlow';
import type { CheckpointRequest } from '../services/checkpoints';
import { folderSettings } from '../services/folderSettings';
import { guardHook, hookDeadlineMs } from './hookGuard';
import { readHookInput } from './hookInput';

export const CHECKPOINT_USAGE = `  beads-recovery checkpoint [--cwd DIR] [--message M] [--auto] [--pre-compact] [--issue ID] [--actor NAME]

Writes a checkpoint comment on the in-progress issue of the beads project that contains DIR that
is this session's (or ID): the one it claimed (a hook's session), the actor's, the issue VS Code
focuses, else the most recently updated one. The activity since the last checkpoint comes from
git (commits, the files they changed, uncommitted files modified since) and from the ledger VS
Code keeps, when there is one; what another agent session's own events show is its work is left
out, and a session's own edits and commits are named.
  --actor NAME     who this is, as \`bd --actor\`/\`br --actor\`
  --message M      write "Checkpoint: M" (M is taken as it is, even when it starts with "-")
  --auto           write "Auto-checkpoint (agent hook): …", only when there is something new
  --pre-compact    write "Auto-checkpoint (pre-compaction): …" (Claude Code's PreCompact hook)
Without either, it writes "Checkpoint: <summary>" when there is something new. When stdin is
not a terminal, Claude Code's hook JSON is read from it (PreCompact implies --pre-compact).
As a hook (--auto, --pre-compact or hook JSON), it always exits 0.

  beads-recovery retry [--cwd DIR] [--parked]

Sends every queued beads write of the project that contains DIR now, whatever its backoff said,
and waits (up to BEADS_RECOVERY_TIMEOUT_MS) for them to land. --parked first puts back the writes
beads refused, which are otherwise kept and never sent again by themselves. Exits 1 when writes
are still waiting, queued or refused; it counts as landed only what landed.`;

export interface CheckpointIo {
  out(line: string): void;
  /** Hook input, for tests; by default read from stdin when it is not a terminal. */
  readHook?: typeof readHookInput;
  now?: () => number;
  /** The environment to read settings from and run the CLI with; the process's own by default. */
  env?: NodeJS.ProcessEnv;
}

/** Returns the exit code. */
export async function checkpointCommand(args: string[], io: CheckpointIo): Promise<number> {
  const { values } = parseArgs({
    args: messageAsData(args),
    options: {
      cwd: { type: 'string' },
      message: { type: 'string', short: 'm' },
      auto: { type: 'boolean', default: false },
      'pre-compact': { type: 'boolean', default: false },
      issue: { type: 'string' },
      actor: { type: 'string' },
    },
    strict: true,
  });
  const env = io.env ?? process.env;
  const hook = await (io.readHook ?? readHookInput)();
  const preCompact = values['pre-compact'] || hook?.event === 'PreCompact';
  const automatic = values.auto || preCompact;
  const asHook = automatic || hook !== undefined;
  const say = (line: string) => io.out(`beads-recovery: ${line}`);
  const ask: CheckpointRequest =
    values.message !== undefined ? { message: values.message } : automatic ? { trigger: preCompact ? 'pre-compaction' : 'agent-hook' } : { summary: true };
  const run = (signal: AbortSignal | undefined, deadline: number) =>
    runCheckpoint(
      {
        ask,
        issueId: values.issue,
        actor: values.actor,
        // Claude Code's hook JSON names the session and its transcript.
        session: sessionOfHook('claude', hook),
        place: { kind: 'folder', cwd: values.cwd ?? hook?.cwd ?? process.cwd(), env: io.env, note: (line) => process.stderr.write(`beads-recovery: ${line}\n`) },
      },
      { signal, deadline, now: io.now },
    );

  if (asHook) {
    // A hook never fails the agent and never outlives its deadline: whatever happens, one line and exit 0.
    return guardHook(
      {
        answer: async (signal, deadline) => {
          say(checkpointLine(await run(signal, deadline)));
          return 0;
        },
        last: (reason) => {
          say(`no checkpoint written: ${reason}`);
          return 0;
        },
      },
      { deadlineMs: hookDeadlineMs(env) },
    );
  }
  // At a terminal: the CLI's own timeout bounds each call; the flow waits for beads about as long.
  const result = await run(undefined, Date.now() + folderSettings(io.env).timeoutMs);
  say(checkpointLine(result));
  return result.outcome === 'failed' && (result.failure === 'error' || result.failure === 'refused') ? 1 : 0;
}

/**
 * The word after `--message`/`-m` is the message, whatever it starts with: models write summaries
 * as markdown bullets ("- parser done"), which parseArgs would otherwise refuse as an option.
 */
function messageAsData(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const value = args[index + 1];
    if ((arg === '--message' || arg === '-m') && value !== undefined) {
      joined.push(`--message=${value}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
}

/** The flow's answer as one line: its reason, then what else happened to the queue. */
export function checkpointLine(result: CheckpointFlowResult): string {
  return [result.reason, ...result.notes].join(' ');
}

/** `beads-recovery retry`: what a person runs when they want the queue sent now. Returns the exit code. */
export async function retryCommand(args: string[], io: CheckpointIo): Promise<number> {
  const { values } = parseArgs({ args, options: { cwd: { type: 'string' }, parked: { type: 'boolean', default: false } }, strict: true });
  const say = (line: string) => io.out(`beads-recovery: ${line}`);
  const opened = await openFolder({ kind: 'folder', cwd: values.cwd ?? process.cwd(), env: io.env, note: (line) => process.stderr.write(`beads-recovery: ${line}\n`) });
  if (opened.kind === 'none') {
    say('not a beads project (no .beads directory); nothing to send.');
    return 0;
  }
  try {
    const { outbox } = opened;
    if (!outbox) {
      say('outside git there is no queue of beads writes; nothing to send.');
      return 0;
    }
    await outbox.load();
    const putBack = values.parked ? await outbox.requeueFailed() : 0;
    const before = outbox.pendingCount;
    if (before > 0 && !outbox.canSend) {
      say(`${before} write(s) wait for a beads CLI that can write: ${opened.detection.kind === 'readonly' ? opened.detection.message : ''}`);
      return 1;
    }
    // Only what this run saw land counts: a write beads refused again leaves the queue too, parked.
    let landed = 0;
    const counting = outbox.onDidLand(() => {
      landed += 1;
    });
    try {
      await outbox.retryNow();
      await outbox.drain(AbortSignal.timeout(opened.timeoutMs));
    } finally {
      counting.dispose();
    }
    const left = outbox.pending;
    const parts = [
      ...(putBack > 0 ? [`${putBack} refused write(s) put back in the queue.`] : []),
      `${landed} of ${before} queued write(s) landed.`,
      ...(left.length > 0 ? [`${left.length} still wait: ${left[0]?.lastError ?? 'beads did not answer in time'}.`] : []),
      ...parkedNotes(outbox),
    ];
    say(parts.join(' '));
    // Refused writes wait too, for the user: nothing waits only when both are empty.
    return left.length > 0 || outbox.failedCount > 0 ? 1 : 0;
  } catch (error) {
    say(`could not send the queued writes: ${errorMessage(error)}`);
    return 1;
  } finally {
    opened.close();
  }
}
