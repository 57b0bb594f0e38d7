// One entry to every agent's transcript format: parsed lines in, agent events out (pure). The
// reading from disk, bounded and tolerant, is src/services/transcripts/readTranscript.ts.
//
// A transcript file may hold more than its session: Claude Code copies the conversation it
// resumes (under the earlier session id) into the new session's file, and a hook can be handed
// another session's or another project's file. Scoped to a session, only the lines of that
// session are read; scoped to the session's folder, the files its tools touched are named
// relative to it, and files outside it are left out (src/core/agentSessions.ts `workTreePath`,
// the one reading of a tool's path for every agent).

import { isRecord, stringField, type AgentEvent, type FileTouch, type TranscriptAgent } from './agentEvents';
import { workTreePath } from './agentSessions';
import { claudeEvents } from './transcriptClaude';
import { codexEvents } from './transcriptCodex';
import { copilotEvents } from './transcriptCopilot';
import { geminiEvents } from './transcriptGemini';
import { isOpencodeExport, isStoredPart, opencodeEvents, opencodeMessages } from './transcriptOpencode';

const READERS: Record<TranscriptAgent, (records: readonly unknown[]) => AgentEvent[]> = {
  claude: claudeEvents,
  codex: codexEvents,
  gemini: geminiEvents,
  copilot: copilotEvents,
  opencode: opencodeEvents,
};

/** An absolute path, POSIX or Windows (a drive, or a UNC share). */
const ABSOLUTE = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;

export interface TranscriptScope {
  /** The session the transcript is read for: lines that name another session are left out. */
  sessionId?: string;
  /** The session's own folder (absolute): file paths become relative to it, files outside it are left out. */
  cwd?: string;
}

/**
 * The events of a transcript's parsed lines, oldest first. Entries of types we do not know are
 * skipped. With a session id, a file whose lines name only other sessions gives no events.
 */
export function transcriptEvents(agent: TranscriptAgent, records: readonly unknown[], scope: TranscriptScope = {}): AgentEvent[] {
  const lines = agent === 'opencode' ? opencodeMessages(records) : records;
  const own = scope.sessionId === undefined ? lines : sessionLines(agent, lines, scope.sessionId);
  const events = READERS[agent](own);
  const cwd = scope.cwd;
  if (cwd === undefined || !ABSOLUTE.test(cwd)) return events;
  const inFolder = (files: readonly FileTouch[]) => files.flatMap((touch) => {
    const relative = workTreePath(upperDrive(touch.path), upperDrive(cwd));
    return relative === undefined ? [] : [{ path: relative, change: touch.change }];
  });
  return events.map((event) => {
    if (event.type === 'tool-call') return { ...event, files: inFolder(event.files) };
    if (event.type === 'tool-result' && event.files) return { ...event, files: inFolder(event.files) };
    return event;
  });
}

/** A Windows path with its drive letter in capitals: agents and hosts spell `c:` and `C:` alike. */
function upperDrive(path: string): string {
  return /^[a-z]:/.test(path) ? `${path.charAt(0).toUpperCase()}${path.slice(1)}` : path;
}

/** What a transcript says about itself: the session ids and working folders its lines name, each once, in order. */
export interface TranscriptOrigin {
  sessionIds: string[];
  folders: string[];
}

export function transcriptOrigin(agent: TranscriptAgent, records: readonly unknown[]): TranscriptOrigin {
  const sessionIds = new Set<string>();
  const folders = new Set<string>();
  for (const record of documentLines(agent, records)) {
    const mark = lineMark(agent, record);
    if (mark.session) sessionIds.add(mark.session);
    if (mark.folder) folders.add(mark.folder);
  }
  return { sessionIds: [...sessionIds], folders: [...folders] };
}

interface LineMark {
  /** The session the line names. */
  session?: string;
  /** The line opens the part of the file written by that session (later lines name none). */
  opensPart: boolean;
  /** The working folder the line names. */
  folder?: string;
}

/**
 * Where each format names its session and folder: every Claude Code line (`sessionId`, `cwd`);
 * every opencode message (`info.sessionID`; an answer's `info.path.cwd`);
 * Codex's `session_meta` (then `turn_context` for the folder); Copilot CLI's `session.start` and
 * `session.resume`; Gemini CLI's metadata lines (written again at each resume) and `$set`.
 */
function lineMark(agent: TranscriptAgent, record: unknown): LineMark {
  if (!isRecord(record)) return { opensPart: false };
  if (agent === 'claude') return { session: stringField(record, 'sessionId'), opensPart: false, folder: folderOf(stringField(record, 'cwd')) };
  if (agent === 'codex') {
    const payload = isRecord(record.payload) ? record.payload : {};
    if (record.type === 'session_meta') return { session: stringField(payload, 'id', 'session_id'), opensPart: true, folder: folderOf(stringField(payload, 'cwd')) };
    return { opensPart: false, folder: record.type === 'turn_context' ? folderOf(stringField(payload, 'cwd')) : undefined };
  }
  if (agent === 'opencode') {
    const info = isRecord(record.info) ? record.info : {};
    const where = isRecord(info.path) ? info.path : {};
    return { session: stringField(info, 'sessionID'), opensPart: false, folder: folderOf(stringField(where, 'cwd')) };
  }
  if (agent === 'copilot') {
    const data = isRecord(record.data) ? record.data : {};
    if (record.type !== 'session.start' && record.type !== 'session.resume') return { opensPart: false };
    const context = isRecord(data.context) ? data.context : {};
    return { session: stringField(data, 'sessionId'), opensPart: true, folder: folderOf(stringField(context, 'cwd')) };
  }
  const set = isRecord(record.$set) ? record.$set : undefined;
  const metadata = set ?? (typeof record.sessionId === 'string' && record.type === undefined ? record : undefined);
  return { session: metadata ? stringField(metadata, 'sessionId') : undefined, opensPart: metadata !== undefined && typeof metadata.sessionId === 'string' };
}

/** A working folder as a path (Codex names some as `file://` URIs); relative ones say nothing. */
function folderOf(value: string | undefined): string | undefined {
  const folder = value?.replace(/^file:\/\//, '');
  return folder !== undefined && ABSOLUTE.test(folder) ? folder : undefined;
}


/**
 * Why a transcript is not this session's, or undefined when nothing says so: its lines name only
 * other sessions, or every working folder they name lies outside this project (and is not the
 * folder the hook runs in). A transcript that names neither is read as the agent handed it.
 */
export function foreignTranscript(origin: TranscriptOrigin, expected: { sessionId?: string; project?: string; folder?: string }): string | undefined {
  const { sessionId, project, folder } = expected;
  if (sessionId !== undefined && origin.sessionIds.length > 0 && !origin.sessionIds.includes(sessionId)) {
    return `its lines are session ${origin.sessionIds.join(', ')}'s, not this session's (${sessionId})`;
  }
  if (project !== undefined && origin.folders.length > 0 && !origin.folders.some((named) => sameOrInside(named, project) || (folder !== undefined && sameOrInside(named, folder)))) {
    return `it was written in ${origin.folders.at(-1) as string}, outside this project`;
  }
  return undefined;
}

/** `path` is `folder` or inside it (slashes either way, a trailing one or not; a drive letter's case aside). */
export function sameOrInside(path: string, folder: string): boolean {
  const plain = (value: string) => {
    const slashed = value.replace(/\\/g, '/').replace(/\/+$/, '');
    return /^[A-Za-z]:/.test(slashed) ? slashed.toLowerCase() : slashed;
  };
  const inner = plain(path);
  const outer = plain(folder);
  return inner === outer || inner.startsWith(`${outer}/`);
}

/**
 * The lines of a transcript written as one document, for its origin: an opencode export's
 * messages; an older Gemini CLI session's messages under its own session id.
 */
function documentLines(agent: TranscriptAgent, records: readonly unknown[]): readonly unknown[] {
  if (agent === 'opencode') return opencodeMessages(records);
  const only = records.length === 1 ? records[0] : undefined;
  if (agent === 'gemini' && isRecord(only) && Array.isArray(only.messages) && !('$set' in only)) return [{ sessionId: only.sessionId }, ...only.messages];
  return records;
}

/** The lines of one session: those that name it, or that follow a line that opened its part. None when no line names it but some name another. */
function sessionLines(agent: TranscriptAgent, records: readonly unknown[], sessionId: string): readonly unknown[] {
  const origin = transcriptOrigin(agent, records);
  if (origin.sessionIds.length === 0) return records;
  if (!origin.sessionIds.includes(sessionId)) return [];
  if (origin.sessionIds.length === 1) return records;
  let current: string | undefined;
  return records.filter((record) => {
    const mark = lineMark(agent, record);
    if (mark.opensPart) current = mark.session;
    const session = mark.opensPart ? current : (mark.session ?? current);
    return session === undefined || session === sessionId;
  });
}

/**
 * Which agent wrote these lines, from their shape (a hook may hand us another agent's transcript
 * format: VS Code runs Claude Code's hooks too). Undefined when no line says.
 */
export function detectTranscriptAgent(records: readonly unknown[]): TranscriptAgent | undefined {
  for (const record of records.slice(0, 50)) {
    if (!isRecord(record)) continue;
    if ((isRecord(record.info) && Array.isArray(record.parts)) || isOpencodeExport(record) || isStoredPart(record)) return 'opencode';
    if (typeof record.type === 'string' && isRecord(record.payload) && typeof record.timestamp === 'string') return 'codex';
    if (typeof record.type === 'string' && /^[a-z_]+\.[a-z_]+$/.test(record.type) && isRecord(record.data)) return 'copilot';
    if ((typeof record.sessionId === 'string' && typeof record.projectHash === 'string') || '$set' in record || '$rewindTo' in record || record.type === 'gemini') return 'gemini';
    if (typeof record.type === 'string' && (isRecord(record.message) || record.type === 'system') && ('uuid' in record || 'sessionId' in record)) return 'claude';
  }
  return undefined;
}

const READER_NAMES: Record<TranscriptAgent, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', copilot: 'Copilot CLI', opencode: 'opencode' };
/** An entry type said in the reason: a plain word, never a path or a value from the session. */
const ENTRY_TYPE = /^[A-Za-z][\w.-]{0,39}$/;

/**
 * Why a transcript that holds something was not understood (a renamed field, entry types the
 * reader does not know, a damaged file), in a few words with no path and no text of the session;
 * undefined when the reader found the session's words or its tool calls. `records` are the lines
 * that parsed, `skippedLines` those that did not.
 */
export function notUnderstood(agent: TranscriptAgent, records: readonly unknown[], events: readonly AgentEvent[], skippedLines: number): string | undefined {
  const reader = READER_NAMES[agent];
  if (records.length === 0) return skippedLines > 0 ? `none of the transcript's ${count(skippedLines, 'line', 'lines')} is JSON (a damaged file?)` : undefined;
  if (events.some((event) => event.type === 'user' || event.type === 'tool-call')) return undefined;
  const types = [...new Set(documentLines(agent, records).flatMap((record) => (isRecord(record) && typeof record.type === 'string' && ENTRY_TYPE.test(record.type) ? [record.type] : [])))];
  const named = types.length === 0 ? '' : ` (entry types: ${types.slice(0, 4).join(', ')}${types.length > 4 ? ', …' : ''})`;
  return `the ${reader} reader found no request and no tool call in ${count(records.length, 'entry', 'entries')}${named}; a format it does not know?`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The reader's name for a message: "the Codex reader failed". */
export function readerName(agent: TranscriptAgent): string {
  return READER_NAMES[agent];
}
