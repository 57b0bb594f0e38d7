// The recovery context for a folder, as the command line, the agent hooks and the MCP server
// produce it: the same core and backends as the extension, with the ledger VS Code keeps for the
// folder when there is one, and settings from the environment instead of VS Code's.
import path from 'node:path';
import { detectProject } from '../beads/detect';
import type { AgentId } from '../core/hookConfig';
import { toLedgerSummary } from '../core/ledger';
import type { RecoveryResult } from '../core/recovery';
import { clampTimeoutMs } from '../core/time';
import { findRepository } from '../git/repo';
import { describeDamage } from '../services/durableJson';
import { LEDGER_DIR, locateLedger, LedgerStore } from '../services/ledgerStore';
import { detectBdPrime } from '../services/primeDetection';
import { ProjectCacheFile, type ContextHints } from '../services/projectCache';
import { produceRecoveryContext } from '../services/recovery';
import { errorMessage } from '../core/errors';

export const DEFAULT_BUDGET_BYTES = 2048;
const DEFAULT_TIMEOUT_MS = 10_000;

export interface ContextOptions {
  budget?: number;
  env?: NodeJS.ProcessEnv;
  /** False: run no CLI, read `.beads/issues.jsonl` (a hook's fallback when the CLI hangs). */
  trusted?: boolean;
  /** The agent the context is for: its rules are left out when bd's own `bd prime` already reaches it. */
  forAgent?: AgentId;
  signal?: AbortSignal;
  /** Notes for stderr: a read-only project, rules left out, a ledger that could not be read. */
  warn?: (line: string) => void;
}

/** The recovery context of the beads project that contains `cwd`; a folder outside any project gets the one line saying so. */
export async function recoveryContextFor(cwd: string, options: ContextOptions = {}): Promise<RecoveryResult> {
  const env = options.env ?? process.env;
  const trusted = options.trusted ?? true;
  const warn = options.warn ?? (() => undefined);
  const timeoutMs = clampTimeoutMs(env.BEADS_RECOVERY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  // What the last run on this repository learnt (the CLI's `where`, the ids the context needed).
  const repository = await findRepository(cwd, { timeoutMs, signal: options.signal }).catch(() => undefined);
  const cache = repository ? new ProjectCacheFile(path.join(repository.gitDir, LEDGER_DIR, 'project-cache.json')) : undefined;
  const detection = await detectProject(cwd, {
    preferred: env.BEADS_RECOVERY_CLI === 'bd' || env.BEADS_RECOVERY_CLI === 'br' ? env.BEADS_RECOVERY_CLI : 'auto',
    cliPath: env.BEADS_RECOVERY_CLI_PATH || undefined,
    trusted,
    timeoutMs,
    signal: options.signal,
    whereCache: cache,
  });
  if (detection.kind === 'readonly' && trusted) warn(detection.message);
  const root = detection.kind === 'none' ? undefined : detection.backend.root;
  const [ledger, hints, prime] = await Promise.all([
    // The ledger VS Code keeps for this folder: its focus and what changed since the last checkpoint.
    root === undefined ? undefined : readLedger(root, timeoutMs, warn, options.signal),
    root === undefined ? undefined : cache?.hints(root).catch(() => undefined),
    options.forAgent ? detectBdPrime(options.forAgent, { projectFolders: root === undefined ? [cwd] : [cwd, root] }) : undefined,
  ]);
  try {
    if (prime?.present) warn(`rules left out: ${prime.reason} already gives them`);
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
      budget: options.budget ?? DEFAULT_BUDGET_BYTES,
      omitRules: prime?.present === true,
      now: Date.now(),
      timeoutMs,
      signal: options.signal,
    });
    if (cache && root !== undefined && remember) await cache.saveHints(root, remember).catch(() => undefined);
    return result;
  } finally {
    ledger?.dispose();
  }
}

/** The ledger, or undefined when there is none or it cannot be read (said through `warn`: the context goes on without it). */
async function readLedger(root: string, timeoutMs: number, warn: (line: string) => void, signal?: AbortSignal): Promise<LedgerStore | undefined> {
  try {
    const location = await locateLedger(root, undefined, { timeoutMs, signal });
    if (!location) return undefined;
    const store = new LedgerStore(location.file, { onDamage: (report) => warn(describeDamage('ledger', report)) });
    await store.load();
    return store;
  } catch (error) {
    warn(`the ledger could not be read, so the context leaves it out: ${errorMessage(error)}`);
    return undefined;
  }
}
