// `beads-recovery`: the recovery context (and, later, checkpoints) for agents outside VS Code,
// such as Claude Code hooks. Same core and backends as the extension, no vscode.
import { parseArgs } from 'node:util';
import { detectProject, type Detection } from '../beads/detect';
import { contextHookOutput } from '../core/claudeHooks';
import { toLedgerSummary } from '../core/ledger';
import { locateLedger, LedgerStore } from '../services/ledgerStore';
import { detectBdPrime } from '../services/primeDetection';
import { produceRecoveryContext } from '../services/recovery';
import { CHECKPOINT_USAGE, checkpointCommand } from './checkpoint';
import { HOOKS_USAGE, HookUsageError, hooksCommand, readHookInput } from './hooks';

const USAGE = `Usage:
  beads-recovery context [--cwd DIR] [--json] [--budget N] [--format markdown|claude-hook]

Prints the recovery context of the beads project that contains DIR (default: the current folder).
  --json                 print {"markdown","state","focusedId","bytes","dropped"} instead of markdown
  --budget N             upper bound in bytes (default 2048)
  --format claude-hook   print Claude Code SessionStart hook output (hookSpecificOutput.additionalContext);
                         the rules are left out when bd's own \`bd prime\` already reaches Claude Code
Environment: BEADS_RECOVERY_CLI=bd|br picks the CLI, BEADS_RECOVERY_CLI_PATH names its executable,
BEADS_RECOVERY_TIMEOUT_MS bounds each CLI call (default 10000).
With --format claude-hook, the JSON Claude Code writes to a hook's stdin is read for its cwd.

${CHECKPOINT_USAGE}

${HOOKS_USAGE}`;

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

  const hookInput = format === 'claude-hook' ? await readHookInput() : undefined;
  const cwd = values.cwd ?? hookInput?.cwd ?? process.cwd();
  const timeoutMs = Number(process.env.BEADS_RECOVERY_TIMEOUT_MS) || 10_000;
  const preferred = process.env.BEADS_RECOVERY_CLI === 'bd' || process.env.BEADS_RECOVERY_CLI === 'br' ? process.env.BEADS_RECOVERY_CLI : 'auto';
  const detection = await detectProject(cwd, {
    preferred,
    cliPath: process.env.BEADS_RECOVERY_CLI_PATH || undefined,
    trusted: true,
    timeoutMs,
  });
  if (detection.kind === 'readonly') process.stderr.write(`beads-recovery: ${detection.message}\n`);
  // The ledger VS Code keeps for this folder: its focus and what changed since the last checkpoint.
  const ledger = detection.kind === 'none' ? undefined : await readLedger(detection.backend.root, timeoutMs);
  const focusedLedger = ledger?.current();
  // Hook output goes to an agent that may already get bd's rules from `bd prime`: not twice.
  const prime = format === 'claude-hook' ? await detectBdPrime('claude', { projectFolders: projectFolders(cwd, detection) }) : undefined;
  if (prime?.present) process.stderr.write(`beads-recovery: rules left out: ${prime.reason} already gives them\n`);
  const result = await produceRecoveryContext({
    backend: detection.kind === 'none' ? null : detection.backend,
    workingFolder: cwd,
    cli: detection.kind === 'none' ? 'br' : detection.cli,
    focusedId: ledger?.state.focusedId,
    ledger: focusedLedger ? toLedgerSummary(focusedLedger) : undefined,
    budget,
    omitRules: prime?.present === true,
    now: Date.now(),
    timeoutMs,
  });
  if (format === 'claude-hook') {
    process.stdout.write(`${contextHookOutput(result.markdown, hookInput?.event)}\n`);
  } else if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    process.stdout.write(result.markdown.endsWith('\n') ? result.markdown : `${result.markdown}\n`);
  }
  return 0;
}

/** The folders whose agent settings apply: where the agent runs, and the beads project's root. */
function projectFolders(cwd: string, detection: Detection): string[] {
  return detection.kind === 'none' ? [cwd] : [cwd, detection.backend.root];
}

async function readLedger(root: string, timeoutMs: number): Promise<LedgerStore | undefined> {
  const location = await locateLedger(root, undefined, { timeoutMs }).catch(() => undefined);
  if (!location) return undefined;
  const store = new LedgerStore(location.file);
  await store.load();
  return store;
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`beads-recovery: ${message}\n`);
    const usage = error instanceof UsageError || error instanceof HookUsageError;
    if (usage || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${USAGE}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
