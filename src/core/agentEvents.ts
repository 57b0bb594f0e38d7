// What an agent did in a session, read from its own transcript and said the same way for every
// agent: the user's messages, the agent's text, its tool calls and their results, compactions and
// plan updates. Each agent's transcript format is turned into these events by its reader
// (src/core/transcript*.ts, read from disk by src/services/transcripts/); everything downstream
// (the session's thread, which issue a session claimed, which files it edited) reads only these.
// Pure.

import { commandSegments, commandWords } from './commandLine';

/** The agents whose transcripts we read. */
export const TRANSCRIPT_AGENTS = ['claude', 'codex', 'gemini', 'copilot', 'opencode'] as const;
export type TranscriptAgent = (typeof TRANSCRIPT_AGENTS)[number];

export function isTranscriptAgent(value: unknown): value is TranscriptAgent {
  return typeof value === 'string' && (TRANSCRIPT_AGENTS as readonly string[]).includes(value);
}

export type FileChange = 'created' | 'edited' | 'deleted';

/** A file a tool created, edited or deleted, as the tool named it (relative or absolute). */
export interface FileTouch {
  path: string;
  change: FileChange;
}

export type PlanStatus = 'done' | 'in-progress' | 'pending';

export interface PlanStep {
  text: string;
  status: PlanStatus;
}

interface Timed {
  /** Epoch ms, when the transcript records it. */
  at?: number;
}

/** Something the user typed (never text the agent or a tool injected). */
export interface UserMessage extends Timed {
  type: 'user';
  text: string;
}

/** Text the agent showed the user. */
export interface AssistantMessage extends Timed {
  type: 'assistant';
  text: string;
  /** The text ends by asking the user something (see endsWithQuestion). */
  asksQuestion: boolean;
}

export interface ToolCall extends Timed {
  type: 'tool-call';
  /** The agent's id for the call, which its result carries too. */
  id: string;
  /** The tool's name as the agent calls it (`Bash`, `shell`, `run_shell_command`, `Edit`, …). */
  name: string;
  /** The command line, for shell tools. */
  command?: string;
  /** Files the call creates, edits or deletes, for edit/write tools (and `rm` in a shell command). */
  files: FileTouch[];
}

export interface ToolResult extends Timed {
  type: 'tool-result';
  /** The id of the call it answers. */
  id: string;
  /** The shell's exit status, when the agent records it. */
  exitCode?: number;
  /** The agent marked the result as a failure (a non-zero exit, a refused or failed tool). */
  isError: boolean;
  /** The start and the end of the output, within OUTPUT_EXCERPT_CHARS. */
  output: string;
  /** What the tool says it did to files, when that corrects the call's guess (a Write that updated a file). */
  files?: FileTouch[];
}

/** The agent compacted its context here: what comes before is what it forgot. */
export interface CompactionBoundary extends Timed {
  type: 'compaction';
  trigger?: string;
}

/** The agent's own summary of what it compacted, where it hands one over. */
export interface CompactionSummary extends Timed {
  type: 'compaction-summary';
  text: string;
}

/** The agent's plan or todo list: the whole list as it stands now. */
export interface PlanUpdate extends Timed {
  type: 'plan';
  steps: PlanStep[];
}

/**
 * The agent's turn ended: it answered and handed the prompt back to the user (or the user
 * interrupted it). Only where the transcript records it: Claude Code's end-of-turn records
 * (`stop_hook_summary`, `turn_duration`, an assistant message that stopped with `end_turn`, an
 * interruption), Codex's `task_complete` and `turn_aborted`.
 */
export interface TurnEnd extends Timed {
  type: 'turn-end';
}

export type AgentEvent = UserMessage | AssistantMessage | ToolCall | ToolResult | CompactionBoundary | CompactionSummary | PlanUpdate | TurnEnd;

/**
 * When the agent's last turn ended, if that is the last thing its transcript shows: no message of
 * the user, no tool call or result and no compaction after it. `undefined` when a turn is under way
 * or the transcript does not say (readers that record no turn end). Its time, when recorded.
 */
export function turnEnded(events: readonly AgentEvent[]): { at?: number } | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as AgentEvent;
    if (event.type === 'turn-end') return { at: event.at };
    if (event.type === 'user' || event.type === 'tool-call' || event.type === 'tool-result' || event.type === 'compaction' || event.type === 'assistant') return undefined;
  }
  return undefined;
}

/** What reading a transcript gave: its events oldest first, and how much of it they cover. */
export interface TranscriptEvents {
  agent: TranscriptAgent;
  events: AgentEvent[];
  /** The events start at the beginning of the file; false when only its end was read. */
  fromStart: boolean;
  /** Bytes of the file read: never more than the reader's bound, whatever the file's size. */
  bytesRead: number;
  /** Lines that were not usable JSON (a partial last line, damage), skipped. */
  skippedLines: number;
  /** Why nothing (or not everything) could be read: a missing file, not a regular file, … */
  problem?: string;
  /** The file held something but the reader could not make it out (src/core/transcript.ts `notUnderstood`): the thread is unavailable, and says so. */
  notUnderstood?: string;
}

/** Output kept per tool result: enough for a test summary and the first failure, not a whole log. */
export const OUTPUT_EXCERPT_CHARS = 4000;
/** Text kept per message. */
export const MESSAGE_CHARS = 4000;

/**
 * The first and last parts of a long text, joined by a marker: test runners print their counts at
 * the end and their first failure near the start.
 */
export function excerpt(text: string, maxChars = OUTPUT_EXCERPT_CHARS): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.4);
  const tail = maxChars - head - 5;
  return `${text.slice(0, head)}\n…\n${text.slice(text.length - tail)}`;
}

/**
 * Whether a message ends by asking the user something: its last sentence (code blocks and
 * trailing markup aside) ends with a question mark.
 */
export function endsWithQuestion(text: string): boolean {
  const prose = text.replace(/```[\s\S]*?(?:```|$)/g, ' ').trimEnd();
  const end = prose.replace(/[\s*_`)\]"'»”]+$/u, '');
  return /[?？]$/.test(end);
}

/** Text content of a message in the shapes agents use: a string, or a list of parts with `text`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' && (part.type === undefined || /text/.test(String(part.type))) ? part.text : ''))
      .filter((text) => text !== '')
      .join('\n');
  }
  if (isRecord(content) && typeof content.text === 'string') return content.text;
  return '';
}

/** Plan statuses as the agents spell them. */
export function planStatus(value: unknown): PlanStatus {
  const status = String(value ?? '').toLowerCase().replace(/[\s_-]/g, '');
  if (status === 'completed' || status === 'done' || status === 'complete' || status === 'cancelled' || status === 'canceled') return 'done';
  if (status === 'inprogress' || status === 'active' || status === 'running') return 'in-progress';
  return 'pending';
}

/**
 * Files a shell command writes or deletes, read from its words alone (nothing is expanded: a glob
 * stays as written): redirections (`> f`, `>> f`), `tee`, `touch`, `sed -i`, the target of `cp`
 * and `mv` (whose source is gone), `rm` and `git rm`, in any segment of a `&&`/`;`/`|` chain, and
 * the files of an `apply_patch` envelope the command feeds to `apply_patch`/`applypatch` (how
 * Codex edits through its shell tool). A heredoc's body is text, not commands. Written files count
 * as edited: the words do not say whether the file existed.
 */
export function filesOfCommand(command: string): FileTouch[] {
  const touched: FileTouch[] = [];
  if (/\bapply_?patch\b/.test(command) && command.includes('*** Begin Patch')) touched.push(...patchFiles(command));
  const script = command.replace(/<<-?\s*(['"]?)(\w+)\1([^\n]*)\n[\s\S]*?\n\s*\2\s*(?=\n|$)/g, '$3');
  for (const segment of commandSegments(script)) {
    const { targets, rest } = redirections(segment);
    for (const target of targets) if (target && !target.startsWith('&') && !/^\/dev\//.test(target)) touched.push({ path: target, change: 'edited' });
    const words = commandWords(rest);
    let index = 0;
    while (index < words.length && (/^[A-Za-z_]\w*=/.test(words[index] as string) || words[index] === 'sudo')) index++;
    const name = words[index] === 'git' && words[index + 1] === 'rm' ? 'git rm' : words[index];
    const operands = operandsOf(words.slice(index + (name === 'git rm' ? 2 : 1)));
    if (name === 'rm' || name === 'git rm') touched.push(...operands.map((path): FileTouch => ({ path, change: 'deleted' })));
    else if (name === 'tee' || name === 'touch') touched.push(...operands.map((path): FileTouch => ({ path, change: 'edited' })));
    else if (name === 'sed') touched.push(...sedInPlaceFiles(words.slice(index + 1)).map((path): FileTouch => ({ path, change: 'edited' })));
    else if ((name === 'cp' || name === 'mv' || name === 'git mv') && operands.length >= 2) {
      if (name === 'mv') touched.push(...operands.slice(0, -1).map((path): FileTouch => ({ path, change: 'deleted' })));
      touched.push({ path: operands.at(-1) as string, change: 'created' });
    }
  }
  return touched;
}

/**
 * The files a segment's output redirections (`> f`, `>> f`, `2> f`) write, and the segment without
 * them. Only redirections outside quotes count: a `->` inside a commit message writes nothing.
 */
function redirections(segment: string): { targets: string[]; rest: string } {
  const targets: string[] = [];
  let rest = '';
  let quote: string | undefined;
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    if (quote) {
      if (char === '\\' && quote === '"' && index + 1 < segment.length) rest += char + (segment[++index] as string);
      else {
        if (char === quote) quote = undefined;
        rest += char;
      }
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      rest += char;
      continue;
    }
    const previous = segment[index - 1] ?? ' ';
    if (char !== '>' || previous === '<' || previous === '>' || previous === '&' || previous === '-' || previous === '=') {
      rest += char;
      continue;
    }
    // `2>` names a file descriptor, not a word: drop the digit from what is left.
    if (/\d/.test(previous) && /\s/.test(segment[index - 2] ?? ' ')) rest = rest.slice(0, -1);
    let end = index + 1;
    if (segment[end] === '>') end++;
    while (end < segment.length && /[ \t]/.test(segment[end] as string)) end++;
    const word = /^(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|<>()]+)/.exec(segment.slice(end))?.[0] ?? '';
    targets.push(unquote(word));
    rest += ' ';
    index = end + word.length - 1;
  }
  return { targets, rest };
}

/** The files `sed -i` rewrites: its operands after the script (which `-e`/`-f` give instead). */
function sedInPlaceFiles(words: readonly string[]): string[] {
  if (!words.some((word) => /^-[^-]*i|^--in-place/.test(word))) return [];
  const scriptGiven = words.some((word) => /^-[^-]*[ef]$|^--(?:expression|file)/.test(word));
  const operands: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (/^-[^-]*[ef]$/.test(word)) {
      index++;
      continue;
    }
    if (!word.startsWith('-')) operands.push(word);
  }
  return scriptGiven ? operands : operands.slice(1);
}

/** The files an apply_patch envelope adds, updates, deletes, or moves one to (the moved file's old path is gone). */
export function patchFiles(patch: string): FileTouch[] {
  const files: FileTouch[] = [];
  for (const line of patch.split('\n')) {
    const match = /^\*\*\* (Add|Update|Delete) File: (.+?)\s*$/.exec(line) ?? /^\*\*\* (Move to): (.+?)\s*$/.exec(line);
    if (!match) continue;
    const verb = match[1];
    files.push({ path: match[2] as string, change: verb === 'Add' || verb === 'Move to' ? 'created' : verb === 'Delete' ? 'deleted' : 'edited' });
  }
  return files;
}

function operandsOf(words: readonly string[]): string[] {
  const operands: string[] = [];
  let flagsDone = false;
  for (const word of words) {
    if (!flagsDone && word === '--') {
      flagsDone = true;
      continue;
    }
    if (!flagsDone && word.startsWith('-')) continue;
    operands.push(word);
  }
  return operands;
}

function unquote(word: string): string {
  return /^(['"]).*\1$/.test(word) ? word.slice(1, -1) : word;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field, or undefined. */
export function stringField(record: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** JSON text parsed, or undefined (tool arguments arrive as JSON text in some agents). */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
