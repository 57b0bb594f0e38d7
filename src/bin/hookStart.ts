// A new session's start answered from the start block's cache (dist/hookStart.js, loaded by
// dist/hook.js before the whole hook): every agent's start waits for this answer, and most starts
// find the block they would compute already kept (services/startBlockCache.ts). This checks it with
// the same check the recovery context runs (services/cachedStart.ts), and hands it over with the
// same claim and records as the whole hook (hookDelivery.ts), without loading the beads CLIs, the
// recovery context's computation or the checkpoint (dist/hookWork.js, ten times the size). Anything
// else, a miss included, is the whole hook's to answer.
import { findBeadsDir } from '../beads/detect';
import { endStartedProcessesOnSignals } from '../beads/runCli';
import type { AgentId } from '../core/hookConfig';
import { hookPlan, hookResponse, isPlainStart, type HookInput } from '../core/hookProtocol';
import { findRepository } from '../git/repo';
import { gitStatus } from '../git/status';
import { checkCachedStart, startCacheFor } from '../services/cachedStart';
import { folderSettings } from '../services/folderSettings';
import { section } from '../services/section';
import { blockBudget, claimStart, handOver, hookSession, prepareMarkers, type DeliveryRun } from './hookDelivery';
import { hookFolder } from './hookInput';
import { markerFile } from './hookMarker';

export interface StartRun {
  env: NodeJS.ProcessEnv;
  note: (line: string) => void;
  /** The hook run's id: the whole hook, if it answers after all, claims the delivery under the same one. */
  runId: string;
  /** Aborted when the hook must give up on the cache and answer otherwise; it ends the git process. */
  signal: AbortSignal;
}

/** The answer for `agent`'s start `event` from the cache, with the session's record written; undefined when the whole hook must answer. */
export async function answerStartFromCache(agent: AgentId, event: string, input: HookInput | undefined, run: StartRun): Promise<string | undefined> {
  const plan = hookPlan(agent, event);
  if (!isPlainStart(plan, input) || run.env.BEADS_RECOVERY_START_CACHE === 'off') return undefined;
  endStartedProcessesOnSignals();
  const cwd = hookFolder(input, run.env);
  const { timeoutMs, cliPath } = folderSettings(run.env);
  // As in the recovery context, `git status` starts first and runs beside the rest.
  const uncommitted = section(() => gitStatus(cwd, { timeoutMs, signal: run.signal }));
  uncommitted.catch(() => undefined);
  const [found, repository] = await Promise.all([findBeadsDir(cwd).catch(() => undefined), findRepository(cwd, { timeoutMs, signal: run.signal }).catch(() => undefined)]);
  const session = hookSession(agent, input, run.env);
  if (!found || !repository || !session) return undefined;
  // The whole hook's first steps, beside the check: a miss leaves them done as the whole hook does them.
  const markers = prepareMarkers(plan, markerFile(agent, found.holder), run);
  const start = await startCacheFor({ cwd, gitDir: repository.gitDir, budget: blockBudget(agent, ''), agent, trusted: true, actor: undefined, env: run.env, cliPath, store: found });
  const hit = start && (await checkCachedStart(start, repository, session, run.env, uncommitted, run.note));
  await markers;
  if (!hit) return undefined;
  const delivery: DeliveryRun = { root: found.root, input, note: run.note, runId: run.runId };
  // The session's record beside the claim: should another hook file of this start have claimed it,
  // that run records the same session with the same issue, so writing it twice changes nothing.
  const recorded = hit.record();
  if (!(await claimStart(delivery))) {
    await recorded;
    return hookResponse(agent, event, undefined);
  }
  for (const line of hit.notes) run.note(line);
  // The conversation's record beside the session's: neither reads the other.
  const produced = { markdown: hit.result.markdown, issueId: hit.result.choice ? hit.result.choice.issueId : hit.result.focusedId, holdsAlready: false };
  const [, answer] = await Promise.all([recorded, handOver(agent, event, delivery, produced, false)]);
  return answer;
}
