// The agent sessions working in a folder, as the sidebar lists them: the agent, the session, its
// issue, its last activity, whether it compacted, and which one the status bar follows. Pure: the
// sessions our hooks recorded (src/core/agentSessions.ts) and those the agents keep on disk
// (src/services/sessionsOnDisk.ts, only to show them) come in; rows go out.

import { agentName } from './agents';
import { bindingsOf, type AgentSession } from './agentSessions';
import type { SessionState, SessionView } from '../shared/protocol';
import { formatAge } from './time';

/** A session an agent keeps on disk (a Claude Code project transcript, a Codex rollout). */
export interface DiskSession {
  agent: string;
  sessionId: string;
  transcript: string;
  /** The transcript's last change (epoch ms). */
  lastActivityAt: number;
  /** Compactions seen in the end of the transcript that was read. */
  compactions: number;
  /** When its last turn ended, if nothing came after it in the transcript (src/core/agentEvents.ts `turnEnded`): it waits for the user. */
  turnEndedAt?: number;
}

export interface SessionRowsInput {
  recorded: readonly AgentSession[];
  onDisk: readonly DiskSession[];
  /** The in-progress issues with their titles: a binding to anything else is over. */
  inProgress: readonly { id: string; title: string }[];
  /** The issue the status bar shows (the folder's focus). */
  focusedId?: string;
  now: number;
  /** Sessions silent longer than this are gone and not listed. */
  idleMs: number;
  /** A session with an event this recent is working; quieter, it is idle. */
  workingMs?: number;
  /** Rows listed at most (the most recently active). */
  limit?: number;
  /** The session of the window that shows the rows: named "this window", not by an id nobody sees elsewhere. */
  ownSession?: { agent: string; sessionId: string };
}

const DEFAULT_LIMIT = 8;
const SHORT_ID_CHARS = 8;
/** An agent writes its transcript at every step of a turn: two quiet minutes without a turn's end mean nothing is known. */
const DEFAULT_WORKING_MS = 2 * 60_000;

export function sessionRows(input: SessionRowsInput): SessionView[] {
  const titles = new Map(input.inProgress.map((issue) => [issue.id, issue.title]));
  const byKey = new Map<string, { agent: string; sessionId: string; issueId?: string; lastActivityAt: number; endedAt?: number; turnEndedAt?: number; compactions: number; recorded: boolean }>();
  const isOwn = (session: { agent: string; sessionId: string }) => session.agent === input.ownSession?.agent && session.sessionId === input.ownSession.sessionId;
  for (const session of input.recorded) {
    // The window records its edits against its focus: with no binding of its own in progress, that is its issue.
    const ownFocus = isOwn(session) && input.focusedId !== undefined && titles.has(input.focusedId) ? input.focusedId : undefined;
    byKey.set(`${session.agent}:${session.sessionId}`, {
      agent: session.agent,
      sessionId: session.sessionId,
      issueId: bindingsOf(session).find((id) => titles.has(id)) ?? ownFocus,
      lastActivityAt: session.lastEventAt,
      ...(session.endedAt === undefined ? {} : { endedAt: session.endedAt }),
      compactions: session.compactions,
      recorded: true,
    });
  }
  for (const disk of input.onDisk) {
    const key = `${disk.agent}:${disk.sessionId}`;
    const known = byKey.get(key);
    const turn = disk.turnEndedAt === undefined ? {} : { turnEndedAt: disk.turnEndedAt };
    if (known) byKey.set(key, { ...known, lastActivityAt: Math.max(known.lastActivityAt, disk.lastActivityAt), compactions: Math.max(known.compactions, disk.compactions), ...turn });
    else byKey.set(key, { agent: disk.agent, sessionId: disk.sessionId, lastActivityAt: disk.lastActivityAt, compactions: disk.compactions, recorded: false, ...turn });
  }
  const live = [...byKey.values()].filter((row) => input.now - row.lastActivityAt <= input.idleMs).sort((a, b) => b.lastActivityAt - a.lastActivityAt || (a.sessionId < b.sessionId ? -1 : 1));
  // The status bar follows the folder's focus: the most recently active session on that issue.
  const followed = live.find((row) => row.issueId !== undefined && row.issueId === input.focusedId);
  const listed = live.slice(0, input.limit ?? DEFAULT_LIMIT);
  const shortIds = distinctShortIds(listed.map((row) => row.sessionId));
  const workingMs = input.workingMs ?? DEFAULT_WORKING_MS;
  return listed.map((row, index) => {
    const { state, stateReason } = sessionState(row, input.now, workingMs);
    return {
      agent: agentName(row.agent),
      session: isOwn(row) ? 'this window' : shortIds[index],
      sessionId: row.sessionId,
      ...(row.issueId ? { issue: { id: row.issueId, title: titles.get(row.issueId) ?? '' } } : {}),
      lastActivityAge: formatAge(row.lastActivityAt, input.now),
      compactions: row.compactions,
      state,
      stateReason,
      followed: row === followed,
    };
  });
}

/**
 * Ended is ended, as for a live session (a resume clears the mark); waiting when its transcript's
 * last record ends a turn; else working while its events are recent, and idle once they are not
 * (mid-turn or not is then unknown: a long command and a question look the same). With the fact
 * that decided, for the row's tooltip.
 */
function sessionState(row: { lastActivityAt: number; endedAt?: number; turnEndedAt?: number }, now: number, workingMs: number): { state: SessionState; stateReason: string } {
  if (row.endedAt !== undefined) return { state: 'ended', stateReason: `its end-of-session hook ran ${formatAge(row.endedAt, now)}` };
  if (row.turnEndedAt !== undefined) return { state: 'waiting', stateReason: `its transcript shows its turn ended ${formatAge(row.turnEndedAt, now)}, with nothing after it` };
  const age = formatAge(row.lastActivityAt, now);
  if (now - row.lastActivityAt <= workingMs) return { state: 'working', stateReason: `its last event was ${age}` };
  return { state: 'idle', stateReason: `its last event was ${age}; its transcript does not show whether a turn is still running` };
}

/** Each session's short id, long enough to tell it from the others listed with it (ids that share a prefix get more of themselves). */
function distinctShortIds(sessionIds: readonly string[]): string[] {
  const names = sessionIds.map(idName);
  return names.map((name) => {
    let length = Math.min(SHORT_ID_CHARS, name.length);
    while (length < name.length && names.some((other) => other !== name && other.slice(0, length) === name.slice(0, length))) length += 1;
    return name.slice(0, length);
  });
}

/** A session id as people tell sessions apart: the id, or the transcript's file name when that names it. */
function idName(sessionId: string): string {
  return (sessionId.split(/[\\/]/).pop() ?? sessionId).replace(/\.jsonl$/, '');
}
