// The agent sessions the agents themselves keep on disk for a folder, only to show them in the
// sidebar (they bind nothing: bindings come from the hooks, src/services/agentSessions.ts):
// - Claude Code: `~/.claude/projects/<folder with every other character as '-'>/<session>.jsonl`
//   (`CLAUDE_CONFIG_DIR` moves `~/.claude`);
// - Codex: `~/.codex/sessions/YYYY/MM/DD/rollout-…-<session>.jsonl`, whose first line
//   (`session_meta`) names the folder it ran in (`CODEX_HOME` moves `~/.codex`).
// Only transcripts changed within the idle time are read, and of each only a bounded end: its
// compactions, and whether its last turn ended (the agent waits for the user).
import { open, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { turnEnded } from '../core/agentEvents';
import type { DiskSession } from '../core/sessionRows';
import { readTranscript } from './transcripts/readTranscript';

export interface DiskSessionOptions {
  now: number;
  idleMs: number;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Transcripts read for their compactions at most (the most recently changed). */
  limit?: number;
}

const TAIL_BYTES = 512 * 1024;
const FIRST_LINE_BYTES = 64 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function sessionsOnDisk(folder: string, options: DiskSessionOptions): Promise<DiskSession[]> {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const recent = (at: number) => options.now - at <= options.idleMs;
  const [claude, codex] = await Promise.all([
    claudeSessions(path.join(env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'), 'projects', claudeProjectSlug(folder)), recent).catch(() => []),
    codexSessions(path.join(env.CODEX_HOME || path.join(home, '.codex'), 'sessions'), folder, options, recent).catch(() => []),
  ]);
  const found = [...claude, ...codex].sort((a, b) => b.lastActivityAt - a.lastActivityAt).slice(0, options.limit ?? 8);
  return Promise.all(
    found.map(async (session) => {
      const { events } = await readTranscript(session.transcript, session.agent === 'codex' ? 'codex' : 'claude', { maxBytes: TAIL_BYTES });
      const ended = turnEnded(events);
      return { ...session, compactions: events.filter((event) => event.type === 'compaction').length, ...(ended ? { turnEndedAt: ended.at ?? session.lastActivityAt } : {}) };
    }),
  );
}

/** Claude Code's folder name for a project: its absolute path with every character but letters and digits as '-'. */
export function claudeProjectSlug(folder: string): string {
  return path.resolve(folder).replace(/[^A-Za-z0-9]/g, '-');
}

async function claudeSessions(dir: string, recent: (at: number) => boolean): Promise<DiskSession[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  const sessions = await Promise.all(
    names.map(async (name) => {
      const transcript = path.join(dir, name);
      const info = await stat(transcript).catch(() => undefined);
      if (!info?.isFile() || !recent(info.mtimeMs)) return undefined;
      return { agent: 'claude', sessionId: name.slice(0, -'.jsonl'.length), transcript, lastActivityAt: info.mtimeMs, compactions: 0 };
    }),
  );
  return sessions.filter((session): session is DiskSession => session !== undefined);
}

/** Codex rollouts of the days the idle time reaches back to, whose session ran in `folder`. */
async function codexSessions(root: string, folder: string, options: DiskSessionOptions, recent: (at: number) => boolean): Promise<DiskSession[]> {
  const wanted = path.resolve(folder);
  const days = new Set<string>();
  for (let at = options.now; at >= options.now - options.idleMs - DAY_MS; at -= DAY_MS) {
    const day = new Date(at);
    days.add(path.join(String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, '0'), String(day.getDate()).padStart(2, '0')));
  }
  const found: DiskSession[] = [];
  for (const day of days) {
    const dir = path.join(root, day);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((candidate) => candidate.startsWith('rollout-') && candidate.endsWith('.jsonl'))) {
      const transcript = path.join(dir, name);
      const info = await stat(transcript).catch(() => undefined);
      if (!info?.isFile() || !recent(info.mtimeMs)) continue;
      const meta = await sessionMeta(transcript);
      if (!meta || path.resolve(meta.cwd) !== wanted) continue;
      found.push({ agent: 'codex', sessionId: meta.id, transcript, lastActivityAt: info.mtimeMs, compactions: 0 });
    }
  }
  return found;
}

/** The `session_meta` line a Codex rollout starts with: its id and the folder it ran in. */
async function sessionMeta(file: string): Promise<{ id: string; cwd: string } | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(FIRST_LINE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, FIRST_LINE_BYTES, 0);
    const line = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const record = JSON.parse(line) as { type?: unknown; payload?: { id?: unknown; cwd?: unknown } };
    const { id, cwd } = record.payload ?? {};
    return record.type === 'session_meta' && typeof id === 'string' && typeof cwd === 'string' ? { id, cwd } : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Copilot CLI's session log, `~/.copilot/session-state/<session>/events.jsonl` (`COPILOT_HOME`
 * moves `~/.copilot`): its hooks name it only at PreCompact, so a start or a tool call finds the
 * session's own claims there. Named even before it is written: the real 1.0.102 may start a new
 * session's first hooks before the file is on disk, and a session recorded without its log is one
 * whose later claims no other session's hook ever reads (a second session was handed the first's
 * claimed issue). Undefined for a session id that is no folder name.
 */
export function copilotSessionLog(sessionId: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(sessionId)) return undefined;
  const home = env.COPILOT_HOME || path.join(env.HOME || env.USERPROFILE || os.homedir(), '.copilot');
  return path.join(home, 'session-state', sessionId, 'events.jsonl');
}
