import * as vscode from 'vscode';
import { DEFAULT_POLICY, type CheckpointPolicy } from '../core/policy';
import { DEFAULT_BUDGET_BYTES, MIN_BUDGET_BYTES } from '../core/recovery';
import { DEFAULT_SESSION_IDLE_MINUTES } from '../core/agentSessions';
import { DEFAULT_THREAD_DESTINATION, parseThreadDestination, type ThreadDestination } from '../core/threadDestination';

/** Every setting the extension reads, as one typed object (rust-analyzer's `Config` pattern). */
export interface Settings {
  cli: 'auto' | 'bd' | 'br';
  /** Only ever the user's (machine) value; never read from a workspace. */
  cliPath: string | undefined;
  cliTimeoutMs: number;
  recoveryBudgetBytes: number;
  /** Where "Inject" puts a recovery context or continue prompt. */
  injectTarget: InjectTarget;
  /** When a checkpoint is due and an issue is stalled (beadsRecovery.checkpoint.*, beadsRecovery.stalledMinutes). */
  checkpointPolicy: CheckpointPolicy;
  /** An agent session silent this long is gone: its binding ends (beadsRecovery.sessions.idleMinutes). */
  sessionIdleMinutes: number;
  /** Where a session's thread goes: beads, this machine only, or nowhere (beadsRecovery.thread.destination). */
  threadDestination: ThreadDestination;
}

export type InjectTarget = 'chat' | 'clipboard' | 'claudeCode' | 'terminal';
const INJECT_TARGETS: readonly InjectTarget[] = ['chat', 'clipboard', 'claudeCode', 'terminal'];

export const SECTION = 'beadsRecovery';

export function readSettings(scope?: vscode.Uri): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  // `cliPath` is machine-scoped in package.json, so VS Code already ignores workspace values;
  // reading the global value explicitly keeps that true even if the scope is ever changed.
  const cliPath = config.inspect<string>('cliPath')?.globalValue?.trim();
  return {
    cli: config.get<'auto' | 'bd' | 'br'>('cli', 'auto'),
    cliPath: cliPath ? cliPath : undefined,
    cliTimeoutMs: clamp(config.get<number>('cliTimeoutMs', 10_000), 1_000, 600_000),
    recoveryBudgetBytes: clamp(config.get<number>('recoveryBudgetBytes', DEFAULT_BUDGET_BYTES), MIN_BUDGET_BYTES, 65_536),
    injectTarget: oneOf(config.get<string>('injectTarget', 'chat'), INJECT_TARGETS, 'chat'),
    checkpointPolicy: {
      editThreshold: wholeNumber(config.get<number>('checkpoint.editThreshold'), DEFAULT_POLICY.editThreshold, 0),
      minutesThreshold: wholeNumber(config.get<number>('checkpoint.minutesThreshold'), DEFAULT_POLICY.minutesThreshold, 0),
      snoozeMinutes: wholeNumber(config.get<number>('checkpoint.snoozeMinutes'), DEFAULT_POLICY.snoozeMinutes, 1),
      stalledMinutes: wholeNumber(config.get<number>('stalledMinutes'), DEFAULT_POLICY.stalledMinutes, 0),
    },
    sessionIdleMinutes: wholeNumber(config.get<number>('sessions.idleMinutes'), DEFAULT_SESSION_IDLE_MINUTES, 1),
    threadDestination: parseThreadDestination(config.get<string>('thread.destination')) ?? DEFAULT_THREAD_DESTINATION,
  };
}

function wholeNumber(value: number | undefined, fallback: number, min: number): number {
  return value !== undefined && Number.isFinite(value) ? Math.max(min, Math.floor(value)) : fallback;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

/**
 * The settings a project's backend is built from at detection (which CLI, where, its timeout).
 * Every other setting is read where it is used, so changing it reloads nothing.
 */
const DETECTION_SETTINGS = ['cli', 'cliPath', 'cliTimeoutMs'] as const;

/** Fires when a setting that detection depends on changes: the projects must be detected again. */
export function onDetectionSettingsChanged(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (DETECTION_SETTINGS.some((name) => event.affectsConfiguration(`${SECTION}.${name}`))) listener();
  });
}
