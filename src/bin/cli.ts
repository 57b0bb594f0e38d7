// `beads-recovery`: the recovery context (and, later, checkpoints) for agents outside VS Code,
// such as Claude Code hooks. Same core and backends as the extension, no vscode.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { detectProject } from '../beads/detect';
import { contextHookOutput } from '../core/claudeHooks';
import { toLedgerSummary } from '../core/ledger';
import { LEDGER_DIR, locateLedger, LedgerStore } from '../services/ledgerStore';
import { findRepository } from '../git/repo';
import { detectBdPrime } from '../services/primeDetection';
import { ProjectCacheFile, type ContextHints } from '../services/projectCache';
import { produceRecoveryContext } from '../services/recovery';
import { clampTimeoutMs } from '../core/time';
import { CHECKPOINT_USAGE, checkpointCommand } from './checkpoint';
import { guardHook, hookDeadlineMs, runHookProcess } from './hookGuard';
import { HOOKS_USAGE, HookUsageError, hooksCommand, readHookInput } from './hooks';

const USAGE = `Usage:
  beads-recovery context [--cwd DIR] [--json] [--budget N] [--format markdown|claude-hook]

Prints the recovery context of the beads project that contains DIR (default: the current folder).
  --json                 print {"markdown","state","focusedId","bytes","dropped"} instead of markdown
  --budget N             upper bound in bytes (default 2048)
  --format claude-hook   print Claude Code SessionStart hook output (hookSpecificOutput.additionalContext);
                         the rules are left out when bd's own \`bd prime\` already reaches Claude Code
Environment: BEADS_RECOVERY_CLI=bd|br picks the CLI, BEADS_RECOVERY_CLI_PATH names its executable,
BEADS_RECOVERY_TIMEOUT_MS bounds each CLI call (default 10000, at most 600000).
As a hook, everything ends within BEADS_RECOVERY_HOOK_DEADLINE_MS (default 20000), and the answer
is then the best known so far; a hook always exits 0.
With --format claude-hook, the JSON Claude Code writes to a hook's stdin is read for its cwd.

${CHECKPOINT_USAGE}

${HOOKS_USAGE}`;

const DEFAULT_TIMEOUT_MS = 10_000;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'context') return contextCommand(rest);
  if (command === 'hooks') return hooksCommand(rest);
  if (command === 'checkpoint') return checkpointCommand(rest, { out: (line) => process.stdout.write(`${line}\n`) });
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`beads-recovery: unknown command '${command}'\n${USAGE}\n`);
  return 2;
}

async function contextCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      cwd: { type: 'string' },
      json: { type: 'boolean', default: false },
      budget: { type: 'string' },
      format: { type: 'string', default: 'markdown' },
    },
    strict: true,
  });
  const format = values.format;
  if (format !== 'markdown' && format !== 'claude-hook') throw new UsageError(`unknown --format '${format}'`);
  const budget = values.budget === undefined ? 2048 : Number(values.budget);
  if (!Number.isInteger(budget) || budget < 256) throw new UsageError('--budget takes a whole number of bytes, at least 256');

  const timeoutMs = clampTimeoutMs(process.env.BEADS_RECOVERY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  if (format === 'claude-hook') return runHookProcess(() => contextHook(values.cwd, budget, timeoutMs));
  const result = await recoveryContext(values.cwd ?? process.cwd(), budget, timeoutMs, { trusted: true });
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : result.markdown.endsWith('\n') ? result.markdown : `${result.markdown}\n`);
  return 0;
}

/**
 * The SessionStart hook: the recovery context within the hook's deadline, else the read-only
 * reading of .beads/issues.jsonl, else a line saying why there is none. Always exit code 0.
 */
async function contextHook(cwdOption: string | undefined, budget: number, timeoutMs: number): Promise<string> {
  const started = Date.now();
  const hookInput = await readHookInput();
  const cwd = cwdOption ?? hookInput?.cwd ?? process.cwd();
  const output = (markdown: string) => contextHookOutput(markdown, hookInput?.event);
  return guardHook(
    {
      answer: async (signal) => output((await recoveryContext(cwd, budget, timeoutMs, { trusted: true, hook: true, signal })).markdown),
      // Without running any CLI: `trusted: false` serves .beads/issues.jsonl read-only.
      fallback: async (_reason, signal) => output((await recoveryContext(cwd, budget, timeoutMs, { trusted: false, hook: true, signal })).markdown),
      last: (reason) => output(`Beads recovery context unavailable: ${reason}`),
    },
    { deadlineMs: Math.max(0, hookDeadlineMs() - (Date.now() - started)) },
  );
}

async function recoveryContext(cwd: string, budget: number, timeoutMs: number, options: { trusted: boolean; hook?: boolean; signal?: AbortSignal }) {
  const preferred = process.env.BEADS_RECOVERY_CLI === 'bd' || process.env.BEADS_RECOVERY_CLI === 'br' ? process.env.BEADS_RECOVERY_CLI : 'auto';
  // What the last run on this repository learnt (the CLI's `where`, the ids the context needed).
  const repository = await findRepository(cwd, { timeoutMs, signal: options.signal }).catch(() => undefined);
  const cache = repository ? new ProjectCacheFile(path.join(repository.gitDir, LEDGER_DIR, 'project-cache.json')) : undefined;
  const detection = await detectProject(cwd, {
    preferred,
    cliPath: process.env.BEADS_RECOVERY_CLI_PATH || undefined,
    trusted: options.trusted,
    timeoutMs,
    signal: options.signal,
    whereCache: cache,
  });
  if (detection.kind === 'readonly' && options.trusted) process.stderr.write(`beads-recovery: ${detection.message}\n`);
  const root = detection.kind === 'none' ? undefined : detection.backend.root;
  const [ledger, hints, prime] = await Promise.all([
    // The ledger VS Code keeps for this folder: its focus and what changed since the last checkpoint.
    root === undefined ? undefined : readLedger(root, timeoutMs, options.signal),
    root === undefined ? undefined : cache?.hints(root).catch(() => undefined),
    // Hook output goes to an agent that may already get bd's rules from `bd prime`: not twice.
    options.hook ? detectBdPrime('claude', { projectFolders: root === undefined ? [cwd] : [cwd, root] }) : undefined,
  ]);
  if (prime?.present) process.stderr.write(`beads-recovery: rules left out: ${prime.reason} already gives them\n`);
  const focusedLedger = ledger?.current();
  let remember: ContextHints | undefined;
  const result = await produceRecoveryContext({
    backend: detection.kind === 'none' ? null : detection.backend,
    workingFolder: cwd,
    cli: detection.kind === 'none' ? 'br' : detection.cli,
    focusedId: ledger?.state.focusedId ?? hints?.focusedId,
    hints: hints?.contextIds,
    onSnapshot: (snapshot) => {
      remember = { focusedId: snapshot.focusedId, contextIds: snapshot.contextIds };
    },
    ledger: focusedLedger ? toLedgerSummary(focusedLedger) : undefined,
    budget,
    omitRules: prime?.present === true,
    now: Date.now(),
    timeoutMs,
    signal: options.signal,
  });
  if (cache && root !== undefined && remember) await cache.saveHints(root, remember).catch(() => undefined);
  return result;
}

/** The ledger, or undefined when there is none or it cannot be read (said on stderr: the context goes on without it). */
async function readLedger(root: string, timeoutMs: number, signal?: AbortSignal): Promise<LedgerStore | undefined> {
  try {
    const location = await locateLedger(root, undefined, { timeoutMs, signal });
    if (!location) return undefined;
    const store = new LedgerStore(location.file);
    await store.load();
    return store;
  } catch (error) {
    process.stderr.write(`beads-recovery: the ledger could not be read, so the context leaves it out: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(finish, (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`beads-recovery: ${message}\n`);
  const usage = error instanceof UsageError || error instanceof HookUsageError;
  if (usage || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${USAGE}\n`);
  finish(usage ? 2 : 1);
});

/** Once the answer is out, nothing left open (a pipe a CLI's grandchild holds, a stray timer) keeps the process alive. */
function finish(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}
