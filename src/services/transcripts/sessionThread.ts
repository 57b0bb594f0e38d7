// The thread of the agent session a hook runs in: its transcript (the hook input's
// `transcript_path`) read bounded and tolerantly, and the compaction summary its PostCompact hook
// kept. Undefined when neither says anything: the context and the checkpoint are then what they
// were without it.

import type { TranscriptAgent } from '../../core/agentEvents';
import { sessionThread, type SessionThread } from '../../core/transcriptThread';
import { keptCompactSummary } from './compactSummaries';
import { readTranscript } from './readTranscript';

export interface SessionThreadSource {
  /** The transcript file the agent named; undefined when it named none. */
  transcript?: string;
  /** Which agent wrote it; `auto` tells it from its lines (VS Code and Cursor may run another agent's hooks). */
  agent: TranscriptAgent | 'auto';
  /** The conversation (session id, else transcript path) whose kept compaction summary to use. */
  conversation?: string;
  /** The session the hook runs in: only the transcript's lines of this session are read. */
  session?: string;
  /** The session's folder (the hook's cwd): files are named relative to it, those outside it left out. */
  folder?: string;
  /** The beads project: a transcript written in a folder outside it is not read. */
  project?: string;
  /** Notes for stderr: why the transcript could not be read, or was not used. */
  note?: (line: string) => void;
}

/** The session's thread, or undefined when the transcript and the kept summary give nothing. Never throws. */
export async function readSessionThread(source: SessionThreadSource): Promise<SessionThread | undefined> {
  const [read, kept] = await Promise.all([
    source.transcript ? readTranscript(source.transcript, source.agent, { session: source.session, folder: source.folder, project: source.project }) : undefined,
    keptCompactSummary(source.conversation).catch(() => undefined),
  ]);
  if (read?.notUnderstood) source.note?.(`thread unavailable: ${read.notUnderstood}`);
  else if (read?.problem) source.note?.(`the session's transcript was not read: ${read.problem}`);
  const thread = sessionThread(read?.events ?? [], { compactionSummary: kept?.text });
  // A transcript that was not understood is said, in the checkpoint and the context, not left as silence.
  if (read?.notUnderstood) return { ...thread, unavailable: read.notUnderstood };
  if ((!read || read.events.length === 0) && !kept) return undefined;
  const empty = thread.requests.length === 0 && thread.commands.length === 0 && thread.files.length === 0 && !thread.openQuestion && !thread.plan && !thread.compactionSummary;
  return empty ? undefined : thread;
}

/**
 * The transcript format of a hook agent. Claude Code, Codex and Gemini CLI write their own, and
 * our opencode plugin writes opencode's session (src/plugins/opencode.js); the
 * `copilot` hooks run in VS Code and in Copilot CLI (which reads VS Code's hook files), and Cursor
 * may run others' hooks: those are told from the lines.
 */
export function transcriptAgentOf(hookAgent: string): TranscriptAgent | 'auto' {
  return hookAgent === 'claude' || hookAgent === 'codex' || hookAgent === 'gemini' || hookAgent === 'opencode' ? hookAgent : 'auto';
}
