// `beads-recovery checkpoint`: a checkpoint comment written from outside VS Code, for agent hooks
// (Claude Code's PreCompact) and for people at a terminal. Without VS Code watching, the activity
// comes from git — commits since the last checkpoint, files they changed, and uncommitted files
// modified since then — joined with whatever the shared ledger recorded if VS Code is running.
// Hooks must never fail the agent: as a hook, every problem is one line and exit 0.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { BeadsBackend } from '../beads/backend';
import { detectProject } from '../beads/detect';
import { checkpointWindowStart, type CheckpointActivity, type CommitRef } from '../core/checkpoint';
import { trackedPathFilter } from '../core/ledger';
import { clampTimeoutMs, formatAge } from '../core/time';
import { NotGitRepositoryError, runGit, type GitOptions } from '../git/runGit';
import { gitStatus } from '../git/status';
import { activityOf, checkpointWrite, markCheckpointsOnLanding, type CheckpointRequest } from '../services/checkpoints';
import { describeDamage, type DamageReport } from '../services/durableJson';
import { locateLedger, LedgerStore } from '../services/ledgerStore';
import { Outbox } from '../services/outbox';
import type { BeadsWrite } from '../services/writeQueue';
import { chooseFocus } from '../services/snapshot';
import { guardHook, hookDeadlineMs } from './hookGuard';
import { readHookInput } from './hookInput';
import { errorMessage } from '../core/errors';

export const CHECKPOINT_USAGE = `  beads-recovery checkpoint [--cwd DIR] [--message M] [--auto] [--pre-compact] [--issue ID]

Writes a checkpoint comment on the in-progress issue of the beads project that contains DIR: the
issue VS Code focuses, else the most recently updated one (or ID). The activity since the last
checkpoint comes from git (commits, the files they changed, uncommitted files modified since) and
from the ledger VS Code keeps, when there is one.
  --message M      write "Checkpoint: M"
  --auto           write "Auto-checkpoint (agent hook): …", only when there is something new
  --pre-compact    write "Auto-checkpoint (pre-compaction): …" (Claude Code's PreCompact hook)
Without either, it writes "Checkpoint: <summary>" when there is something new. When stdin is
not a terminal, Claude Code's hook JSON is read from it (PreCompact implies --pre-compact).
As a hook (--auto, --pre-compact or hook JSON), it always exits 0.`;

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
    args,
    options: {
      cwd: { type: 'string' },
      message: { type: 'string', short: 'm' },
      auto: { type: 'boolean', default: false },
      'pre-compact': { type: 'boolean', default: false },
      issue: { type: 'string' },
    },
    strict: true,
  });
  const env = io.env ?? process.env;
  const now = (io.now ?? Date.now)();
  const hook = await (io.readHook ?? readHookInput)();
  const preCompact = values['pre-compact'] || hook?.event === 'PreCompact';
  const automatic = values.auto || preCompact;
  const asHook = automatic || hook !== undefined;
  const say = (line: string) => io.out(`beads-recovery: ${line}`);
  const giveUp = (line: string, failed: boolean) => {
    say(line);
    return failed && !asHook ? 1 : 0;
  };

  const timeoutMs = clampTimeoutMs(env.BEADS_RECOVERY_TIMEOUT_MS, 10_000);
  if (asHook) {
    // A hook never fails the agent and never outlives its deadline: whatever happens, one line and exit 0.
    return guardHook(
      { answer: (signal) => attempt(signal), last: (reason) => giveUp(`no checkpoint written: ${reason}`, false) },
      { deadlineMs: hookDeadlineMs(env) },
    );
  }
  return attempt();

  async function attempt(signal?: AbortSignal): Promise<number> {
    let ledger: LedgerStore | undefined;
    try {
      const cwd = path.resolve(values.cwd ?? hook?.cwd ?? process.cwd());
      const preferred = env.BEADS_RECOVERY_CLI === 'bd' || env.BEADS_RECOVERY_CLI === 'br' ? env.BEADS_RECOVERY_CLI : 'auto';
      const detection = await detectProject(cwd, {
        preferred,
        cliPath: env.BEADS_RECOVERY_CLI_PATH || undefined,
        trusted: true,
        timeoutMs,
        pathEnv: env.PATH,
        env: io.env ? definedOnly(io.env) : undefined,
        signal,
      });
      if (detection.kind === 'none') return giveUp('not a beads project (no .beads directory); no checkpoint written.', false);
      // Without a working CLI (missing, hanging, locked at `where`), the checkpoint is still worked
      // out from .beads/issues.jsonl and queued: the next process that can write sends it.
      if (detection.kind === 'readonly') process.stderr.write(`beads-recovery: ${detection.message}\n`);
      const backend = detection.backend;
      const gitOptions: GitOptions = { timeoutMs, signal };

      const location = await locateLedger(backend.root, undefined, gitOptions);
      const damaged = (what: string) => (report: DamageReport) => process.stderr.write(`beads-recovery: ${describeDamage(what, report)}\n`);
      ledger = location ? new LedgerStore(location.file, { onDamage: damaged('ledger') }) : undefined;
      await ledger?.load();
      const outbox = location ? new Outbox({ file: path.join(path.dirname(location.file), 'outbox.json'), root: backend.root, backend, onDamage: damaged('queue of beads writes') }) : undefined;
      // Whatever this run lands — its own checkpoint or one an earlier process queued — the ledger counts.
      if (outbox) markCheckpointsOnLanding(outbox, () => ledger);
      if (!outbox && backend.readOnly) return giveUp(`${detection.kind === 'readonly' ? detection.message : ''} Outside git there is no queue to keep it in; no checkpoint written.`, true);
      try {
        // First what earlier runs left queued: once landed, those checkpoints start this one's window.
        const earlier = await sendQueued(outbox, signal);
        const inProgress = await backend.listInProgress(signal);
        const issueId = values.issue ?? chooseFocus(inProgress, ledger?.state.focusedId);
        if (!issueId) return giveUp(`no issue is in progress; no checkpoint written.${earlier}`, false);

        const recorded = ledger?.state.ledgers[issueId];
        const [details] = await backend.show([issueId], signal);
        const since = checkpointWindowStart(
          {
            ledgerCheckpointAt: recorded?.lastCheckpointAt,
            ledgerStartedAt: recorded?.startedAt,
            comments: details?.comments ?? [],
            claimedAt: details?.startedAt,
            updatedAt: details?.updatedAt,
            createdAt: details?.createdAt,
            cliOffsetMs: outbox?.cliClockOffsetMs,
          },
          now,
        );
        const fromGit = location?.repository && since !== undefined ? await gitActivity(location.repository.root, since, gitOptions) : { files: [], commits: [] };
        const fromLedger = recorded ? activityOf(recorded) : undefined;
        const activity: CheckpointActivity = {
          issueId,
          // The ledger's files first: they come most recently touched first.
          files: [...new Set([...(fromLedger?.files ?? []), ...fromGit.files])],
          commits: uniqueCommits([...(fromLedger?.commits ?? []), ...fromGit.commits]),
          // Index for index with the ledger's files, which lead the list.
          fileEdits: fromLedger?.fileEdits,
          edits: fromLedger?.edits,
          lastCheckpointAt: since,
        };

        const request: CheckpointRequest =
          values.message !== undefined ? { message: values.message } : automatic ? { trigger: preCompact ? 'pre-compaction' : 'agent-hook' } : { summary: true };
        const planned = checkpointWrite(activity, request, now);
        if (!planned) {
          const age = since === undefined ? '' : ` (${formatAge(since, now)})`;
          return giveUp(`nothing new on ${issueId} since the last checkpoint${age}; no checkpoint written.${earlier}`, false);
        }
        const { key, comment: text } = planned;

        const write = { key, kind: 'comment' as const, issueId, text, checkpointAt: now };
        const result = outbox ? await writeThroughOutbox(outbox, write, timeoutMs, signal) : await writeDirectly(backend, issueId, text, signal);
        if (result.state === 'failed') return giveUp(`could not write the checkpoint on ${issueId}: ${result.why}`, true);
        const firstLine = text.split('\n')[0] ?? text;
        // Counted (by the outbox's landing) only once it landed: a queued checkpoint must not make the next run "nothing new".
        if (result.state === 'queued') return giveUp(`checkpoint for ${issueId} queued (${result.why}); it will be written when beads answers: ${firstLine}`, false);
        // Landed earlier (the key was done before this run, the landing unreported) or without an outbox: noted here.
        if (result.landedBefore || !outbox) await ledger?.markCheckpoint(issueId, now);
        say(`checkpoint written on ${issueId}: ${firstLine}${earlier}`);
        return 0;
      } finally {
        outbox?.dispose();
      }
    } catch (error) {
      return giveUp(`no checkpoint written: ${errorMessage(error)}`, true);
    } finally {
      ledger?.dispose();
    }
  }
}

type WriteResult = { state: 'written'; landedBefore?: boolean } | { state: 'queued'; why: string } | { state: 'failed'; why: string };

/**
 * Through the same outbox VS Code drains: the write is durable before the CLI runs, a key already
 * queued or written is not written again, only the holder of the outbox's lease sends, and every
 * write still queued (by this process or an earlier one) is tried too.
 */
async function writeThroughOutbox(outbox: Outbox, write: BeadsWrite, timeoutMs: number, signal?: AbortSignal): Promise<WriteResult> {
  const { key } = write;
  if (outbox.status(key) === 'done') return { state: 'written', landedBefore: true };
  await outbox.enqueue(write);
  if (!outbox.canSend) return { state: 'queued', why: 'the beads CLI is not available' };
  await outbox.sendNow();
  // Untried means another drainer (a VS Code window, another hook) holds the queue: give it a moment.
  const untried = outbox.pending.find((entry) => entry.write.key === key)?.attempts === 0;
  if (untried) await outbox.drain(signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs));
  switch (outbox.status(key)) {
    case 'done':
      return { state: 'written' };
    case 'failed':
      return { state: 'failed', why: outbox.failed.find((entry) => entry.write.key === key)?.error ?? 'beads refused it' };
    default:
      return { state: 'queued', why: outbox.pending.find((entry) => entry.write.key === key)?.lastError ?? 'beads did not answer in time' };
  }
}

/** Sends what earlier runs left queued; words for the end of a line when anything was or still is. */
async function sendQueued(outbox: Outbox | undefined, signal?: AbortSignal): Promise<string> {
  if (!outbox) return '';
  await outbox.load();
  const before = outbox.pendingCount;
  if (before === 0) return '';
  if (outbox.canSend && !signal?.aborted) await outbox.sendNow();
  const after = outbox.pendingCount;
  const sent = before - after;
  return `${sent > 0 ? ` Sent ${sent} queued write(s).` : ''}${after > 0 ? ` ${after} write(s) still queued.` : ''}`;
}

async function writeDirectly(backend: BeadsBackend, issueId: string, text: string, signal?: AbortSignal): Promise<WriteResult> {
  try {
    await backend.addComment(issueId, text, signal);
    return { state: 'written' };
  } catch (error) {
    return { state: 'failed', why: errorMessage(error) };
  }
}

/**
 * Commits on HEAD since `since` (newest last) with the files they changed, plus uncommitted files
 * modified since then (by modification time; a deleted file has none and counts).
 */
export async function gitActivity(repositoryRoot: string, since: number, options: GitOptions): Promise<{ files: string[]; commits: CommitRef[] }> {
  const sinceArg = `--since=${new Date(since).toISOString()}`;
  let logText = '';
  try {
    ({ stdout: logText } = await runGit(repositoryRoot, ['log', sinceArg, '--reverse', '--no-show-signature', '--name-only', '--format=%x01%H%x00%ct%x00%s'], options));
  } catch (error) {
    if (error instanceof NotGitRepositoryError) return { files: [], commits: [] };
    // A repository without commits has no HEAD to log from; its uncommitted files still count.
    if (await hasHead(repositoryRoot, options)) throw error;
  }
  const isWork = trackedPathFilter([]);
  const files = new Set<string>();
  const commits: CommitRef[] = [];
  for (const record of logText.split('\u0001').slice(1)) {
    const [header = '', ...names] = record.split('\n');
    const [hash, committedAt, ...subject] = header.split('\0');
    // git's --since has whole seconds: a commit from the second of the last checkpoint but before it is left out here.
    if (!hash || Number(committedAt) * 1000 <= since) continue;
    commits.push({ hash, subject: subject.join('\0') });
    for (const name of names) if (name.trim() !== '' && isWork(name)) files.add(name);
  }
  for (const change of await gitStatus(repositoryRoot, options)) {
    if (!isWork(change.path)) continue;
    const modifiedAt = await stat(path.join(repositoryRoot, change.path)).then((info) => info.mtimeMs, () => undefined);
    if (modifiedAt === undefined || modifiedAt > since) files.add(change.path);
  }
  return { files: [...files], commits };
}

async function hasHead(repositoryRoot: string, options: GitOptions): Promise<boolean> {
  try {
    await runGit(repositoryRoot, ['rev-parse', '--verify', '--quiet', 'HEAD'], options);
    return true;
  } catch {
    return false;
  }
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function uniqueCommits(commits: readonly CommitRef[]): CommitRef[] {
  const seen = new Set<string>();
  const unique: CommitRef[] = [];
  for (const commit of commits) {
    // The ledger keeps short or full hashes; git gives full ones. One commit, either way.
    const known = [...seen].some((hash) => hash.startsWith(commit.hash) || commit.hash.startsWith(hash));
    if (known) continue;
    seen.add(commit.hash);
    unique.push(commit);
  }
  return unique;
}

