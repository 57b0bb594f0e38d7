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
import { commandSegments, commandWords, commentCommandIssueIds } from './commandLine';
import { oneLine } from './markdown';

/** Test counts as a runner printed them, normalized: "1 failed, 9 passed". */
export interface TestCounts {
  failed: number;
  passed: number;
  /** Skipped, pending or todo tests, when the runner names them. */
  skipped: number;
}

/**
 * What a command is for: running tests, checking the code (a build, a type check, a linter),
 * looking around (`ls`, `cat`, `grep`, …), version control (`git`, `gh`), or anything else. Only
 * tests, checks and other commands can be "failing": a `grep` that found nothing or a `git push`
 * that was refused is no failure of the work.
 */
export type CommandKind = 'test' | 'check' | 'explore' | 'vcs' | 'other';

/** One shell command the agent ran, and how it ended. */
export interface CommandRun {
  command: string;
  kind: CommandKind;
  /**
   * The program and what it runs, without flags or targets (`npm test`, `pytest`, `cargo test`,
   * `npm run lint`, `python3 check.py`): a later run of the same intent can clear a failure.
   */
  intent: string;
  /** The paths and names the command was given (`tests/test_x.py`, `./pkg/...`): what it covers. */
  targets: string[];
  /** The command was sent to the background: it is running, not passed. */
  background: boolean;
  /** The user (or a permission rule) refused to let it run: it ran neither well nor badly. */
  rejected?: boolean;
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
  /**
   * Files its tools created, edited or deleted, each once, newest touch first: the uncommitted
   * work of the task in progress leads, and a long session's early files are the ones a short
   * list leaves out.
   */
  files: FileTouch[];
  commits: CommitMade[];
  /** The agent's last message asked the user something, and no answer came. */
  openQuestion?: string;
  /**
   * The agent's last question when the user wrote once after it: that message may be the answer,
   * or may be about something else (the question then still waits).
   */
  repliedQuestion?: { question: string; reply: string };
  /** The step the agent's last message named as next, when that message was the last thing it did. */
  nextStep?: string;
  /** Tool calls that got no result. */
  unanswered: { name: string; command?: string }[];
  /** The agent's own summary of what it compacted, where it handed one over. */
  compactionSummary?: string;
  /** How many compactions the events show. */
  compactions: number;
  /** Epoch ms of the newest event with a time. */
  lastActivityAt?: number;
  /** The transcript was there but not understood, and why (no path, no text of the session): said rather than an empty thread. */
  unavailable?: string;
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
    for (const touch of touched) {
      const previous = files.get(touch.path);
      // Taken out and put back: the map's order is the order of last touch.
      files.delete(touch.path);
      files.set(touch.path, combine(previous, touch.change));
    }
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
    files: [...files].reverse().flatMap(([path, change]) => (change === undefined ? [] : [{ path, change }])),
    commits: uniqueCommits(commits),
    openQuestion: openQuestion(stretch),
    repliedQuestion: repliedQuestion(stretch),
    nextStep: nextInLastMessage(stretch),
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

/**
 * The user's messages of the stretch, oldest first, at most three: what the runtime put in a user
 * turn (hook output, system reminders, task notices, command echoes) is not the user's words.
 */
function userRequests(events: readonly AgentEvent[]): string[] {
  const messages = events.filter((event) => event.type === 'user').map((event) => (event.type === 'user' ? usersOwnWords(event.text) : ''));
  return messages.filter((text) => text !== '').slice(-3);
}

/** A whole message the runtime wrote into a user turn: it starts with one of these. */
const RUNTIME_MESSAGE =
  /^\s*(?:<(?:task-notification|system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr|bash-notification|environment_context|user_instructions|turn_aborted|hook_context|session_context)\b|Caveat: The messages below were generated by the user while running local commands|\[Request interrupted by user|\[Function Response\b|# Context from my IDE setup|This session is being continued from a previous conversation|(?:Stop|PreToolUse|PostToolUse|UserPromptSubmit|SessionStart|PreCompact)(?::\w+)? hook (?:feedback|error|additional context)\b)/i;
/** Blocks the runtime appends inside a user's message. */
const RUNTIME_BLOCKS = /<(system-reminder|task-notification|hook_context|user-prompt-submit-hook)>[\s\S]*?(?:<\/\1>|$)/g;

/** The user's own words of a message: empty when the runtime wrote it all. */
export function usersOwnWords(text: string): string {
  if (RUNTIME_MESSAGE.test(text)) return '';
  return text.replace(RUNTIME_BLOCKS, '').trim();
}

/** The agent's last message, when it asks something and nothing the user said came after it. */
function openQuestion(events: readonly AgentEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as AgentEvent;
    if (event.type === 'user' && usersOwnWords(event.text) !== '') return undefined;
    if (event.type === 'assistant') return asksUser(event) ? lastQuestion(event.text) : undefined;
  }
  return undefined;
}

/** The agent's last question, when exactly one message of the user came after it. */
function repliedQuestion(events: readonly AgentEvent[]): SessionThread['repliedQuestion'] {
  const asked = findLast(events, (event) => event.type === 'assistant' && asksUser(event));
  if (asked < 0) return undefined;
  const replies = events.slice(asked + 1).filter((event) => event.type === 'user' && usersOwnWords(event.text) !== '');
  const question = events[asked];
  const reply = replies[0];
  if (replies.length !== 1 || question?.type !== 'assistant' || reply?.type !== 'user') return undefined;
  return { question: lastQuestion(question.text), reply: reply.text };
}

function findLast<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (test(items[index] as T)) return index;
  return -1;
}

/**
 * Words after a question that hand the turn to the user: "I will wait for your answer.", "Let me
 * know.", "Once you confirm I'll go on." A question followed by these still waits; one followed
 * by anything else (an answer the agent gave itself) does not.
 */
const HANDS_OVER = /\b(?:wait(?:ing)? (?:for|on) (?:your|an?|the user'?s?) (?:answer|reply|response|input|decision|confirmation|go-ahead|call)|let me know|once you(?:'ve| have)? (?:confirm|answer|decide|reply|choose|tell)|until you (?:confirm|answer|decide|reply)|before I (?:go on|continue|proceed|change|start)|please (?:confirm|advise|choose|decide|tell me|let me know)|your (?:call|choice|preference|decision)\b|(?:I'll|I will) (?:hold|pause|stop) (?:here|until|for))/i;

/** The message asks the user something: its last sentence is a question, or a question is followed only by words that hand the turn over. */
function asksUser(event: AgentEvent): boolean {
  if (event.type !== 'assistant') return false;
  if (event.asksQuestion) return true;
  const sentences = proseSentences(event.text);
  const last = findLast(sentences, (sentence) => /[?？]\W*$/.test(sentence));
  if (last < 0) return false;
  const after = sentences.slice(last + 1).join(' ');
  return after.length <= 400 && HANDS_OVER.test(after);
}

/** The text's sentences outside code blocks, on one line each (a dot inside `a.b.c` ends none). */
function proseSentences(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?(?:```|$)/g, ' ');
  return oneLine(prose).trim().split(/(?<=[.!?。？])\s+/).filter((sentence) => sentence !== '');
}

/** The question itself: the last run of sentences that end with a question mark, wherever it stands. */
function lastQuestion(text: string): string {
  const sentences = proseSentences(text);
  const end = findLast(sentences, (sentence) => /[?？]\W*$/.test(sentence));
  if (end < 0) return sentences.join(' ');
  let first = end;
  while (first > 0 && /[?？]\W*$/.test(sentences[first - 1] as string)) first--;
  return sentences.slice(first, end + 1).join(' ');
}

/**
 * The step the agent's last message said comes next ("Next, I'll add the CLI flag.", "Next step:
 * wire the parser."), when it is the last thing the agent did: a later tool call acted on it.
 */
function nextInLastMessage(events: readonly AgentEvent[]): string | undefined {
  const last = findLast(events, (event) => event.type === 'assistant' || event.type === 'tool-call' || (event.type === 'user' && usersOwnWords(event.text) !== ''));
  const event = events[last];
  if (event?.type !== 'assistant' || asksUser(event)) return undefined;
  for (const sentence of proseSentences(event.text).reverse()) {
    const match = /^(?:\W*(?:next(?: steps?)?|then)\b\s*[:,—-]?\s*(?:I(?:'ll| will| am going to| need to| should)\s+)?|(?:I(?:'ll| will) (?:now |next )))(.{6,})$/i.exec(sentence);
    const step = match?.[1]?.trim();
    if (step && !/^(?:wait|let you know)/i.test(step)) return step.replace(/[.!]+$/, '');
  }
  return undefined;
}

function commandRun(call: ToolCall, result: ToolResult | undefined): CommandRun {
  const output = result?.output ?? '';
  const tests = testCounts(output);
  const exitCode = result?.exitCode;
  const background = isBackground(call.command ?? '', output);
  const rejected = REJECTED.test(output);
  const failed = result !== undefined && !background && !rejected && (result.isError || (exitCode !== undefined && exitCode !== 0) || (tests?.failed ?? 0) > 0);
  const failure = failed ? firstFailure(output) : {};
  const purpose = commandPurpose(call.command ?? call.name);
  return {
    command: call.command ?? call.name,
    kind: tests && purpose.kind !== 'vcs' ? 'test' : purpose.kind,
    intent: purpose.intent,
    targets: purpose.targets,
    background,
    ...(rejected ? { rejected } : {}),
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
// The state at the end of the session: what fails now, and how the last test run ended.

/**
 * The runs that fail now: each failing test, check or other command that no later run cleared. A
 * later run of the same intent clears it when it covers what failed (no narrower targets, or the
 * failed targets among its own) and succeeded; a later failing run of it replaces it. A run that
 * names the failing test's file clears it too, whatever its runner. Exploratory and
 * version-control commands are never failures of the work.
 */
export function failingNow(commands: readonly CommandRun[]): CommandRun[] {
  const failing: CommandRun[] = [];
  for (const run of commands) {
    if (run.pending || run.background || run.rejected || run.kind === 'explore' || run.kind === 'vcs') continue;
    const covered = (earlier: CommandRun) => (earlier.intent === run.intent && covers(run, earlier)) || (!run.failed && (run.kind === 'test' || run.kind === 'check') && namesFailure(run, earlier));
    for (let index = failing.length - 1; index >= 0; index--) if (covered(failing[index] as CommandRun)) failing.splice(index, 1);
    if (run.failed) failing.push(run);
  }
  return failing;
}

/** The last test run that came back (or was sent to the background): green included. */
export function lastTestRun(commands: readonly CommandRun[]): CommandRun | undefined {
  return findLastItem(commands, (run) => run.kind === 'test' && !run.rejected && (!run.pending || run.background));
}

/** `later` runs at least what `earlier` ran: no targets (the whole suite), or each earlier target under one of its own. */
function covers(later: CommandRun, earlier: CommandRun): boolean {
  if (later.targets.length === 0) return true;
  if (earlier.targets.length === 0) return false;
  return earlier.targets.every((target) => later.targets.some((own) => sameOrUnder(target, own)));
}

/** A run that names the failed test's file, or one of the failed run's targets. */
function namesFailure(later: CommandRun, earlier: CommandRun): boolean {
  const failedFile = earlier.failingTest?.split(/::| > | › /)[0]?.trim();
  const named = [...earlier.targets, ...(failedFile && /[./]/.test(failedFile) ? [failedFile] : [])];
  return named.length > 0 && later.targets.length > 0 && named.every((target) => later.targets.some((own) => sameOrUnder(target, own)));
}

/** `tests/test_x.py::t` is under `tests/test_x.py`, which is under `tests/` and `./tests`. */
function sameOrUnder(target: string, own: string): boolean {
  const clean = (path: string) => path.replace(/^\.\//, '').replace(/\/+$/, '');
  const a = clean(target);
  const b = clean(own);
  return a === b || b === '.' || b === '...' || a.startsWith(`${b}/`) || a.startsWith(`${b}::`) || (b.endsWith('/...') && a.startsWith(b.slice(0, -3)));
}

function findLastItem<T>(items: readonly T[], test: (item: T) => boolean): T | undefined {
  const index = findLast(items, test);
  return index < 0 ? undefined : items[index];
}

/** A tool call the user or a permission rule refused (Claude Code, Codex, Gemini CLI, Copilot CLI word it so). */
const REJECTED = /^\s*(?:The user doesn't want to (?:proceed|take this action)|The tool use was rejected|\[Request interrupted by user|Permission (?:to use \S+ )?(?:has been |was )?denied|User (?:rejected|denied|cancelled|canceled) (?:this|the) (?:tool|command|operation)|rejected by (?:the )?user|Tool execution (?:denied|cancelled))/i;

/** Sent to the background: a trailing `&`, `nohup`, or the agent saying it runs on (Claude Code, Codex). */
function isBackground(command: string, output: string): boolean {
  if (/(?:^|[^&])&\s*$/.test(command.trim()) || /^\s*(?:nohup|setsid)\b/.test(command)) return true;
  return /^\s*(?:Command running in background\b|Process running with session ID\b)/i.test(output);
}

const EXPLORE_PROGRAMS = new Set(
  'ls ll la cat bat head tail less more grep egrep fgrep rg ag ack find fd pwd echo printf which whereis type file stat wc tree du df env printenv whoami id uname hostname ps date realpath readlink basename dirname sort uniq cut tr jq yq column nl od xxd hexdump strings diff cmp md5sum sha256sum sha1sum awk sed cd test [ true false sleep clear history ping lsof top'.split(' '),
);
const VCS_PROGRAMS = new Set(['git', 'gh', 'hg', 'svn', 'jj', 'glab']);
/** Programs that run tests, whatever their arguments. */
const TEST_PROGRAMS = /^(?:pytest|py\.test|vitest|jest|mocha|ava|tap|rspec|phpunit|ctest|tox|nox|karma|jasmine|cypress|bats|busted|prove|nextest|unittest)$/;
/** Subcommands that run tests: `npm test`, `cargo test`, `go test`, `make check`, `dotnet test`, `npx playwright test`. */
const TEST_VERBS = /^(?:test|tests|t|check:?test|nextest|spec|e2e|integration)$|^test[:-]/;
const CHECK_PROGRAMS = /^(?:tsc|eslint|ruff|mypy|pyright|flake8|pylint|black|prettier|biome|clippy|golangci-lint|shellcheck|stylelint|oxlint|rubocop|gofmt|rustfmt|swiftlint|ktlint)$/;
const CHECK_VERBS = /^(?:build|check|lint|typecheck|type-check|tsc|clippy|vet|fmt|format|compile|verify)(?:[:-]\w+)?$/;
/** Launchers whose next words name the program they run. */
const LAUNCHERS = new Set(['npx', 'bunx', 'pnpx', 'sudo', 'time', 'nice', 'exec', 'command', 'xvfb-run', 'dotenv', 'env']);

/**
 * What a command line is for, from its first segment that is not a `cd`, an `export` or a
 * `source` (`cd app && npm test 2>&1 | tail` runs tests), and its intent and targets.
 */
export function commandPurpose(command: string): { kind: CommandKind; intent: string; targets: string[] } {
  // Redirections go first: `2>&1` holds an `&` that would split the line.
  const unredirected = command.replace(/\d*>>?\s*&\s*\d+|&>>?\s*\S+/g, ' ');
  const segments = commandSegments(unredirected).map((segment) => commandWords(segment.replace(/\d?>>?\s*\S+|<\s*\S+/g, ' ')));
  const main = segments.find((words) => words.length > 0 && !/^(?:cd|pushd|popd|export|source|\.|set|unset|ulimit|umask)$/.test(programWord(words).word)) ?? segments[0] ?? [];
  const { word: program, rest } = programWord(main);
  const operands = rest.filter((word) => !word.startsWith('-'));
  const name = program.replace(/^.*\//, '');
  if (name === '') return { kind: 'other', intent: command.trim(), targets: [] };
  if (VCS_PROGRAMS.has(name)) return { kind: 'vcs', intent: [name, operands[0] ?? ''].join(' ').trim(), targets: [] };
  // A package script or build tool: the verb after it says what runs (`npm run lint`, `cargo test -p x`, `make test`).
  if (/^(?:npm|pnpm|yarn|bun|deno|cargo|go|make|mvn|gradle|gradlew|dotnet|mix|rake|bundle|poetry|uv|hatch|just|task|nx|turbo|swift|zig|sbt|lein|composer|rye|pdm)$/.test(name)) {
    const verbs = operands[0] === 'run' || operands[0] === 'exec' || operands[0] === 'run-script' ? operands.slice(1) : operands;
    const verb = verbs[0] ?? '';
    // `uv run pytest x`, `poetry run pytest`, `bundle exec rspec`, `pnpm exec vitest`: the program it runs decides.
    if (/^(?:uv|poetry|bundle|hatch|pdm|rye|pnpm|yarn|bun|npm)$/.test(name) && (TEST_PROGRAMS.test(verb) || CHECK_PROGRAMS.test(verb) || /^python\d?(?:\.\d+)?$/.test(verb))) return commandPurpose(verbs.join(' '));
    const intent = `${name}${operands[0] === 'run' || operands[0] === 'exec' ? ` ${operands[0]}` : ''} ${verb}`.trim();
    const targets = verbs.slice(1);
    if (TEST_VERBS.test(verb)) return { kind: 'test', intent, targets };
    if (CHECK_VERBS.test(verb)) return { kind: 'check', intent, targets };
    return { kind: 'other', intent, targets };
  }
  if (/^python\d?(?:\.\d+)?$/.test(name) && rest[0] === '-m' && rest[1]) return commandPurpose(rest.slice(1).join(' '));
  if (TEST_PROGRAMS.test(name)) return { kind: 'test', intent: name, targets: operands.filter((word) => !/^(?:run|watch)$/.test(word)) };
  if (CHECK_PROGRAMS.test(name)) return { kind: 'check', intent: name, targets: operands };
  if (name === 'playwright' && operands[0] === 'test') return { kind: 'test', intent: 'playwright test', targets: operands.slice(1) };
  if (EXPLORE_PROGRAMS.has(name)) return { kind: 'explore', intent: name, targets: operands };
  // A script of its own (`python3 test_parser.py`, `node scripts/check.mjs`, `./run_tests.sh`): named by it.
  const script = /^(?:python\d?(?:\.\d+)?|node|ruby|perl|bash|sh|zsh|tsx|ts-node|php|deno)$/.test(name) ? (operands[0] ?? '') : name;
  const scriptName = script.replace(/^.*\//, '');
  const kind: CommandKind = /(?:^|[_.-])(?:tests?|spec)(?:[_.-]|$)/i.test(scriptName) ? 'test' : /(?:^|[_.-])(?:lint|check|build|typecheck)(?:[_.-]|$)/i.test(scriptName) ? 'check' : 'other';
  return { kind, intent: script === name ? name : `${name} ${script}`, targets: script === name ? operands : operands.slice(1) };
}

/** The program a command's words run, past variable assignments and launchers (`FOO=1 npx vitest` runs vitest). */
function programWord(words: readonly string[]): { word: string; rest: string[] } {
  let index = 0;
  while (index < words.length) {
    const word = words[index] as string;
    if (/^[A-Za-z_]\w*=/.test(word)) index++;
    else if (LAUNCHERS.has(word)) {
      index++;
      while (index < words.length && ((words[index] as string).startsWith('-') || /^\d+[smh]?$/.test(words[index] as string))) index++;
    } else if (word === 'timeout') {
      index++;
      while (index < words.length && ((words[index] as string).startsWith('-') || /^\d+(?:\.\d+)?[smhd]?$/.test(words[index] as string))) index++;
    } else break;
  }
  return { word: words[index] ?? '', rest: words.slice(index + 1) };
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
  // ExUnit "359 tests, 0 failures (3 excluded)", RSpec "10 examples, 1 failure, 2 pending", unittest "Ran 10 tests … FAILED (failures=1, errors=1)".
  const tally = [...withoutColours(output).matchAll(/\b(\d+) (?:tests|examples), (\d+) failures?(?:,? \(?(\d+) (?:pending|skipped|excluded)\)?)?/g)].at(-1);
  if (tally) return { passed: Math.max(0, +tally[1]! - +tally[2]!), failed: +tally[2]!, skipped: +(tally[3] ?? 0) };
  const ran = [...output.matchAll(/^Ran (\d+) tests? in [\d.]+s\s*\n\s*(OK|FAILED)\b(?: \(([^)]*)\))?/gm)].at(-1);
  if (ran) {
    const failures = [...(ran[3] ?? '').matchAll(/(?:failures|errors)=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    const skipped = Number(/skipped=(\d+)/.exec(ran[3] ?? '')?.[1] ?? 0);
    return { passed: Math.max(0, +ran[1]! - failures - skipped), failed: failures, skipped };
  }
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
