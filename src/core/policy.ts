// When to ask for a checkpoint and when an in-progress issue looks stalled (counted in edits
// and minutes, not in agent turns). Pure: the ledger, the settings and the time come in; what to
// show and whether to notify come out, with a small memory so that each due period is announced
// once and each stall is warned about once.

import type { Ledger } from './ledger';
import { formatAge } from './time';

export interface CheckpointPolicy {
  /** Edits since the last checkpoint that make one due; 0 turns this trigger off. */
  editThreshold: number;
  /** Minutes with changes (since the first change after the last checkpoint) that make one due; 0 turns it off. */
  minutesThreshold: number;
  /** Minutes without activity after which an in-progress issue is stalled; 0 turns the warning off. */
  stalledMinutes: number;
  /** How long "Snooze" silences the reminder. */
  snoozeMinutes: number;
}

export const DEFAULT_POLICY: CheckpointPolicy = { editThreshold: 20, minutesThreshold: 30, stalledMinutes: 120, snoozeMinutes: 30 };

const MINUTE = 60_000;

export interface DueState {
  due: boolean;
  reason?: 'edits' | 'minutes';
  edits: number;
  /** Whole minutes since the first change after the last checkpoint; 0 without changes. */
  minutesWithChanges: number;
  /** Names the stretch of work between two checkpoints: one reminder per period. */
  period?: string;
}

export function checkpointDue(ledger: Ledger | undefined, now: number, policy: CheckpointPolicy): DueState {
  if (!ledger) return { due: false, edits: 0, minutesWithChanges: 0 };
  const edits = ledger.edits;
  const minutesWithChanges = edits > 0 && ledger.changesSince !== undefined ? Math.max(0, Math.floor((now - ledger.changesSince) / MINUTE)) : 0;
  const period = `${ledger.issueId}@${ledger.lastCheckpointAt ?? ledger.startedAt}`;
  if (policy.editThreshold > 0 && edits >= policy.editThreshold) return { due: true, reason: 'edits', edits, minutesWithChanges, period };
  if (policy.minutesThreshold > 0 && edits > 0 && minutesWithChanges >= policy.minutesThreshold) {
    return { due: true, reason: 'minutes', edits, minutesWithChanges, period };
  }
  return { due: false, edits, minutesWithChanges, period };
}

/** What the reminders remember between evaluations (kept per window, across reloads). */
export interface NudgeMemory {
  /** The due period last announced. */
  period?: string;
  /** When a snoozed reminder may be shown again in that period. */
  notifyAgainAt?: number;
  /** Stalls already warned about, newest last. */
  stalls: string[];
}

export const EMPTY_NUDGE_MEMORY: NudgeMemory = { stalls: [] };
const REMEMBERED_STALLS = 50;

export function shouldNotifyDue(due: DueState, memory: NudgeMemory, now: number): boolean {
  if (!due.due || due.period === undefined) return false;
  if (memory.period !== due.period) return true;
  return memory.notifyAgainAt !== undefined && now >= memory.notifyAgainAt;
}

export function dueNotified(memory: NudgeMemory, period: string): NudgeMemory {
  return { ...memory, period, notifyAgainAt: undefined };
}

export function snoozed(memory: NudgeMemory, period: string, now: number, policy: CheckpointPolicy): NudgeMemory {
  return { ...memory, period, notifyAgainAt: now + Math.max(1, policy.snoozeMinutes) * MINUTE };
}

export interface StallCandidate {
  issueId: string;
  /** Epoch ms of the issue's last sign of life (ledger activity, checkpoint or the tracker's updated_at). */
  lastActivityAt: number;
}

export interface Stall {
  issueId: string;
  idleMinutes: number;
  /** One stall of one issue: activity after it starts a new one. */
  key: string;
}

/**
 * In-progress issues idle for `stalledMinutes` of watched time. Idle time counts from the later of
 * the issue's last sign of life and `watchingSince` (when this editor session began): the hours
 * the editor was closed are not time in which anyone could have worked, so a first open after a
 * night never greets with "stalled".
 */
export function findStalls(candidates: readonly StallCandidate[], now: number, policy: CheckpointPolicy, watchingSince = -Infinity): Stall[] {
  if (policy.stalledMinutes <= 0) return [];
  return candidates
    .filter((candidate) => Number.isFinite(candidate.lastActivityAt))
    .map((candidate) => ({ candidate, idleMs: now - Math.max(candidate.lastActivityAt, watchingSince) }))
    .filter(({ idleMs }) => idleMs >= policy.stalledMinutes * MINUTE)
    .map(({ candidate, idleMs }) => ({
      issueId: candidate.issueId,
      idleMinutes: Math.floor(idleMs / MINUTE),
      // Keyed by the sign of life, not the session: one stall is warned about once, across restarts.
      key: `${candidate.issueId}@${candidate.lastActivityAt}`,
    }));
}

/** Stalls not warned about yet. */
export function unwarnedStalls(stalls: readonly Stall[], memory: NudgeMemory): Stall[] {
  return stalls.filter((stall) => !memory.stalls.includes(stall.key));
}

export function stallsWarned(memory: NudgeMemory, stalls: readonly Stall[]): NudgeMemory {
  const keys = [...memory.stalls.filter((key) => !stalls.some((stall) => stall.key === key)), ...stalls.map((stall) => stall.key)];
  return { ...memory, stalls: keys.slice(-REMEMBERED_STALLS) };
}

/** The last sign of life of an in-progress issue: what the ledger saw, or the tracker's updated_at when it says later. */
export function lastSignOfLife(ledger: Ledger | undefined, updatedAt: number | undefined): number | undefined {
  const times = [ledger?.lastActivityAt, ledger?.lastCheckpointAt, updatedAt].filter((time): time is number => time !== undefined && Number.isFinite(time));
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** "25m", "2h 5m": how long work has gone on since the last checkpoint, for the status bar. */
export function formatDuration(minutes: number): string {
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours}h` : `${hours}h ${rest}m`;
}

/**
 * When the last checkpoint was, as the status bar's tooltip says it. `model`: what the view model
 * (loaded at activation, whether or not the view is open) knows of the issue's checkpoints, the
 * issue's comments included; `loaded: false` while that first load runs, when the ledger alone
 * cannot tell "no checkpoint" from "not read yet".
 */
export function lastCheckpointPhrase(ledger: Pick<Ledger, 'lastCheckpointAt'> | undefined, now: number, model?: { loaded: boolean; lastCheckpointAt?: number }): string {
  const at = Math.max(ledger?.lastCheckpointAt ?? -Infinity, model?.lastCheckpointAt ?? -Infinity);
  if (Number.isFinite(at)) return `last checkpoint ${formatAge(at, now)}`;
  return model?.loaded === false ? 'reading its checkpoints…' : 'no checkpoint yet';
}

/**
 * The work since the last checkpoint in words: "15 edits over 25m" (written) or "… over 25
 * minutes" (spoken); "in under a minute" rather than "over 0 minutes".
 */
export function workPhrase(edits: number, minutes: number, form: 'written' | 'spoken'): string {
  if (edits === 0) return form === 'written' ? 'No edits' : 'no edits';
  const span = minutes < 1 ? 'in under a minute' : form === 'written' ? `over ${formatDuration(minutes)}` : `over ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  return `${edits} ${edits === 1 ? 'edit' : 'edits'} ${span}`;
}
