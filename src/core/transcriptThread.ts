// The session's thread: what an agent was doing, taken from its own transcript's events
// (src/core/agentEvents.ts), deterministically. A compaction loses exactly this — the request it
// was working on, its plan, the command that failed and why, the question it is waiting on — so
// the checkpoint before a compaction and the context after one carry it. Pure.

import {
  type AgentEvent,
  type FileChange,
  type FileTouch,
  type PlanStep,
  type ToolCall,
  type ToolResult,
} from './agentEvents';
import { commentCommandIssueIds } from './commandLine';
import { oneLine } from './markdown';

/** Test counts as a runner printed them, normalized: "1 failed, 9 passed". */
export interface TestCounts {
  failed: number;
  passed: number;
  /** Skipped, pending or todo tests, when the runner names them. */
  skipped: number;
}

/** One shell command the agent ran, and how it ended. */
export interface CommandRun {
  command: string;
  /** The exit status, when the agent recorded it. */
  exitCode?: number;
  /** The run failed (a non-zero exit, or the agent marked the result as an error). */
  failed: boolean;
  /** No result came back (still running, interrupted, or the session was cut off). */
  pending: boolean;
  tests?: TestCounts;
  /** The first failing test's name, as the runner printed it. */
  failingTest?: string;
  /** The first error line of the output (`KeyError: 'a'`, `AssertionError: …`, `error[E0425]: …`). */
  errorLine?: string;
  at?: number;
}

export interface CommitMade {
  hash: string;
  subject: string;
}

export interface SessionThread {
  /** The user's latest request(s) in this stretch of the session, in their own words, oldest first. */
  requests: string[];
  /** The requests came from before the last compaction (none was made after it). */
  requestsBeforeCompaction: boolean;
  /** The agent's plan or todo list as it last stood. */
  plan?: PlanStep[];
  commands: CommandRun[];
  /** Files its tools created, edited or deleted, each once, in the order first touched. */
  files: FileTouch[];
  commits: CommitMade[];
  /** The agent's last message asked the user something, and no answer came. */
  openQuestion?: string;
  /**
   * The agent's last question when the user wrote once after it: that message may be the answer,
   * or may be about something else (the question then still waits).
   */
  repliedQuestion?: { question: string; reply: string };
  /** Tool calls that got no result. */
  unanswered: { name: string; command?: string }[];
  /** The agent's own summary of what it compacted, where it handed one over. */
  compactionSummary?: string;
  /** How many compactions the events show. */
  compactions: number;
  /** Epoch ms of the newest event with a time. */
  lastActivityAt?: number;
}

export interface ThreadOptions {
  /** A summary handed over outside the transcript (Claude Code's PostCompact `compact_summary`). */
  compactionSummary?: string;
}

const SHELL_NAMES = /^(?:Bash|bash|shell|shell_command|exec_command|local_shell|container\.exec|run_shell_command|run_in_terminal|runInTerminal|powershell)$/;

/**
 * The thread of the stretch of the session since its last compaction. Right after a compaction
 * that stretch holds nothing yet but the summary: the thread is then the stretch the compaction
 * ended, which is what the agent just forgot. A checkpoint the agent wrote itself in that stretch
 * (`br|bd comments add …` that succeeded) put the work before it into beads already: the commands,
 * files and commits are taken from after it; the request, the plan and the question whatever their age.
 */
export function sessionThread(events: readonly AgentEvent[], options: ThreadOptions = {}): SessionThread {
  const boundaries = events.flatMap((event, index) => (event.type === 'compaction' ? [index] : []));
  const last = boundaries.at(-1);
  let start = last === undefined ? 0 : last + 1;
  let end = events.length;
  if (last !== undefined && !events.slice(start).some(isWork)) {
    end = last;
    start = (boundaries.at(-2) ?? -1) + 1;
  }
  const stretch = events.slice(start, end);
  const summaryEvents = events.slice(last === undefined ? 0 : last + 1).filter((event) => event.type === 'compaction-summary');
  const results = new Map<string, ToolResult>();
  for (const event of stretch) if (event.type === 'tool-result') results.set(event.id, mergeResult(results.get(event.id), event));
  const checkpointed = findLast(stretch, (event) => event.type === 'tool-call' && event.command !== undefined && commentCommandIssueIds(event.command).length > 0 && results.get(event.id)?.isError === false);

  const commands: CommandRun[] = [];
  const files = new Map<string, FileChange | undefined>();
  const commits: CommitMade[] = [];
  const unanswered: SessionThread['unanswered'] = [];
  for (const [index, event] of stretch.entries()) {
    if (event.type !== 'tool-call') continue;
    const result = results.get(event.id);
    if (!result) unanswered.push({ name: event.name, command: event.command });
    if (index <= checkpointed) continue;
    if (event.command !== undefined || SHELL_NAMES.test(event.name)) {
      const run = commandRun(event, result);
      commands.push(run);
      if (!run.failed && !run.pending) commits.push(...commitsIn(event.command ?? '', result?.output ?? ''));
    }
    // A tool that failed or never answered changed nothing we can vouch for.
    if (!result || result.isError) continue;
    const touched = result.files ?? event.files;
    for (const touch of touched) files.set(touch.path, combine(files.get(touch.path), touch.change));
  }

  const requests = userRequests(stretch);
  const earlier = requests.length === 0 ? userRequests(events.slice(0, start)) : [];
  const plan = [...events].reverse().find((event) => event.type === 'plan');
  const times = events.map((event) => event.at).filter((at): at is number => at !== undefined);
  const summary = summaryEvents.at(-1);
  return {
    requests: requests.length > 0 ? requests : earlier,
    requestsBeforeCompaction: requests.length === 0 && earlier.length > 0,
    plan: plan?.type === 'plan' ? plan.steps : undefined,
    commands,
    files: [...files].flatMap(([path, change]) => (change === undefined ? [] : [{ path, change }])),
    commits: uniqueCommits(commits),
    openQuestion: openQuestion(stretch),
    repliedQuestion: repliedQuestion(stretch),
    unanswered,
    compactionSummary: options.compactionSummary?.trim() || (summary?.type === 'compaction-summary' ? summary.text : undefined),
    compactions: boundaries.length,
    lastActivityAt: times.length > 0 ? Math.max(...times) : undefined,
  };
}

/** What starts a new stretch after a compaction: the user writing, or the agent acting (a bare acknowledgement does not). */
function isWork(event: AgentEvent): boolean {
  return event.type === 'user' || event.type === 'tool-call';
}

/** Results of one call from two sources (Codex: the output item and the exec end event) make one. */
function mergeResult(earlier: ToolResult | undefined, later: ToolResult): ToolResult {
  if (!earlier) return later;
  return {
    ...later,
    exitCode: later.exitCode ?? earlier.exitCode,
    isError: later.isError || earlier.isError,
    output: later.output.length >= earlier.output.length ? later.output : earlier.output,
    files: later.files ?? earlier.files,
  };
}

/** A file created then edited stays created; created then deleted leaves nothing behind. */
function combine(previous: FileChange | undefined, next: FileChange): FileChange | undefined {
  if (previous === 'created' && next === 'edited') return 'created';
  if (previous === 'created' && next === 'deleted') return undefined;
  if (previous === 'deleted' && next === 'created') return 'edited';
  return next;
}

/** The user's messages of the stretch: the last ones, up to the agent's first reply to them, at most three. */
function userRequests(events: readonly AgentEvent[]): string[] {
  const messages = events.filter((event) => event.type === 'user').map((event) => (event.type === 'user' ? event.text.trim() : ''));
  return messages.filter((text) => text !== '').slice(-3);
}

/** The agent's last message, when it asks something and nothing the user said came after it. */
function openQuestion(events: readonly AgentEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as AgentEvent;
    if (event.type === 'user') return undefined;
    if (event.type === 'assistant') return event.asksQuestion ? lastQuestion(event.text) : undefined;
  }
  return undefined;
}

/** The agent's last question, when exactly one message of the user came after it. */
function repliedQuestion(events: readonly AgentEvent[]): SessionThread['repliedQuestion'] {
  const asked = findLast(events, (event) => event.type === 'assistant' && event.asksQuestion);
  if (asked < 0) return undefined;
  const replies = events.slice(asked + 1).filter((event) => event.type === 'user');
  const question = events[asked];
  const reply = replies[0];
  if (replies.length !== 1 || question?.type !== 'assistant' || reply?.type !== 'user') return undefined;
  return { question: lastQuestion(question.text), reply: reply.text };
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index] as T)) return index;
  return -1;
}

/** The question itself: the sentences at the end that end with a question mark (a dot inside `a.b.c` ends none). */
function lastQuestion(text: string): string {
  const sentences = oneLine(text).trim().split(/(?<=[.!?。？])\s+/);
  let first = sentences.length;
  while (first > 0 && /[?？]\W*$/.test(sentences[first - 1] as string)) first--;
  return sentences.slice(first).join(' ') || sentences.join(' ');
}

function commandRun(call: ToolCall, result: ToolResult | undefined): CommandRun {
  const output = result?.output ?? '';
  const tests = testCounts(output);
  const exitCode = result?.exitCode;
  const failed = result !== undefined && (result.isError || (exitCode !== undefined && exitCode !== 0) || (tests?.failed ?? 0) > 0);
  const failure = failed ? firstFailure(output) : {};
  return {
    command: call.command ?? call.name,
    exitCode,
    failed,
    pending: result === undefined,
    tests,
    failingTest: failure.test,
    errorLine: failure.error,
    at: call.at,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading test runners' output: counts, the first failing test, the first error line.

const COUNT_PATTERNS: { pattern: RegExp; read: (match: RegExpMatchArray) => Partial<TestCounts> }[] = [
  // cargo: "test result: FAILED. 9 passed; 1 failed; 0 ignored"
  { pattern: /test result: \w+\. (\d+) passed; (\d+) failed(?:; (\d+) ignored)?/, read: (m) => ({ passed: +m[1]!, failed: +m[2]!, skipped: +(m[3] ?? 0) }) },
  // mocha: "9 passing (20ms)" / "1 failing" / "2 pending"
  { pattern: /^\s*(\d+) passing\b/m, read: (m) => ({ passed: +m[1]! }) },
  { pattern: /^\s*(\d+) failing\b/m, read: (m) => ({ failed: +m[1]! }) },
];

/**
 * The counts of the last summary line a test runner printed: pytest (`1 failed, 9 passed in
 * 0.1s`), jest (`Tests: 1 failed, 9 passed, 10 total`), vitest (`Tests  1 failed | 9 passed
 * (10)`), cargo, mocha, go test (its `--- FAIL`/`--- PASS` lines counted).
 */
export function testCounts(output: string): TestCounts | undefined {
  const lines = withoutColours(output).split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] as string;
    if (!/\b\d+ (?:passed|failed)\b/.test(line) || /test result:/.test(line)) continue;
    const count = (word: string) => Number(new RegExp(`\\b(\\d+) ${word}\\b`).exec(line)?.[1] ?? 0);
    const counts = { failed: count('failed') + count('errors?'), passed: count('passed'), skipped: count('skipped') + count('todo') + count('xfailed') };
    if (counts.failed + counts.passed > 0) return counts;
  }
  const found: Partial<TestCounts> = {};
  for (const { pattern, read } of COUNT_PATTERNS) {
    const match = output.match(pattern);
    if (match) Object.assign(found, read(match), found);
  }
  if (found.passed === undefined && found.failed === undefined) {
    const goFailed = (output.match(/^\s*--- FAIL: /gm) ?? []).length;
    const goPassed = (output.match(/^\s*--- PASS: /gm) ?? []).length;
    if (goFailed + goPassed === 0) return undefined;
    return { failed: goFailed, passed: goPassed, skipped: 0 };
  }
  return { failed: found.failed ?? 0, passed: found.passed ?? 0, skipped: found.skipped ?? 0 };
}

/** "1 failed, 9 passed" (and skipped when any). */
export function formatCounts(counts: TestCounts): string {
  const parts = [];
  if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  parts.push(`${counts.passed} passed`);
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  return parts.join(', ');
}

const FAILING_TEST_PATTERNS: RegExp[] = [
  // pytest short summary: "FAILED tests/test_x.py::test_y - KeyError: 'a'"
  /^FAILED (\S+)(?: - (.+))?$/m,
  // vitest: " FAIL  test/x.test.ts > suite > name"; jest: "  ● suite › name"
  /^\s*(?:×|✗|FAIL)\s+(\S+\.(?:test|spec)\.\w+\s+>\s+.+)$/m,
  /^\s*● (.+ › .+)$/m,
  // go: "--- FAIL: TestName (0.00s)"
  /^\s*--- FAIL: (\S+)/m,
  // cargo: "---- tests::name stdout ----"
  /^---- (\S+) stdout ----$/m,
  // mocha: "  1) suite\n       name:"
  /^\s*1\) (.+)$/m,
];

/** A line that names an error: Python/JS exceptions, Rust and TypeScript compiler errors, panics. */
const ERROR_LINE = /^\s*(?:E\s+)?((?:[A-Z]\w*(?:Error|Exception)|AssertionError|panic|error(?:\[E\d+\])?|Error)\b(?::|\s+TS\d+:).*)$/m;

function firstFailure(output: string): { test?: string; error?: string } {
  const clean = withoutColours(output);
  let test: string | undefined;
  let error: string | undefined;
  for (const pattern of FAILING_TEST_PATTERNS) {
    const match = pattern.exec(clean);
    if (!match) continue;
    test = match[1]?.trim();
    error = match[2]?.trim();
    break;
  }
  error ??= ERROR_LINE.exec(clean)?.[1]?.trim();
  return { test: test ? oneLine(test) : undefined, error: error ? oneLine(error) : undefined };
}

/** Output without its terminal colour codes (ESC [ … m), which runners print around their counts. */
function withoutColours(output: string): string {
  return output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
}

// ---------------------------------------------------------------------------------------------
// Commits

/** The commits a successful `git commit` printed: "[main a1b2c3d] subject". */
function commitsIn(command: string, output: string): CommitMade[] {
  if (!/\bgit\b[^|;&]*\bcommit\b/.test(command)) return [];
  const commits: CommitMade[] = [];
  for (const match of output.matchAll(/^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.+)$/gm)) commits.push({ hash: match[1] as string, subject: (match[2] as string).trim() });
  return commits;
}

function uniqueCommits(commits: readonly CommitMade[]): CommitMade[] {
  const seen = new Set<string>();
  return commits.filter((commit) => !seen.has(commit.hash) && seen.add(commit.hash));
}
