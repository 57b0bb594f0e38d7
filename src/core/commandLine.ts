// Reading the shell command lines an agent ran, as text: where one command ends and the next
// begins, its words, and what a `bd`/`br` command in it does to issues. Nothing is expanded and an
// id is never guessed: the session bindings (agentSessions.ts), the session's thread
// (transcriptThread.ts) and the terminal watcher (checkpointCommands.ts) all read commands here.

export type IssueAction = { kind: 'claim' | 'release' | 'close' | 'comment'; issueId: string };

const BEADS_CLIS = new Set(['bd', 'br']);
/** Global and update/close flags that take a value, so their value is never read as an id. */
const VALUE_FLAGS = new Set([
  '--actor', '--db', '-C', '--directory', '--lock-timeout', '--dolt-auto-commit', '--format',
  '--status', '-s', '--assignee', '-a', '--priority', '-p', '--title', '--description', '-d', '--body', '--notes',
  '--design', '--acceptance', '--type', '-t', '--parent', '--add-label', '--remove-label', '--set-labels', '--due',
  '--defer', '--estimate', '-e', '--external-ref', '--append-notes', '--reason', '-r', '--message', '-m', '--file',
  '-f', '--author', '--session', '--metadata', '--spec-id', '--await-id',
]);
// Words that run the command after them, so the CLI need not be a segment's first word.
const COMMAND_WRAPPERS = new Set(['sudo', 'command', 'exec', 'time', 'env', 'nohup', 'npx']);
const IN_PROGRESS = new Set(['in_progress', 'hooked']);
const NOT_WORKED_ON = new Set(['open', 'blocked', 'deferred']);

/**
 * What a shell command line does to issues, in order: `bd|br update <id> --claim` or
 * `--status in_progress|hooked` claims; `--status open|blocked|deferred` or an empty `--assignee`
 * releases; `close` (or `--status closed`) closes; `comments add <id>` (bd also `comment <id>`)
 * comments. Any segment of a `&&`/`;`/`|` chain, behind env assignments, a wrapper such as `sudo`,
 * or a path; the CLI must be the segment's command (`echo br comments add` is not).
 */
export function issueActionsIn(command: string): IssueAction[] {
  const actions: IssueAction[] = [];
  for (const segment of commandSegments(command)) {
    const words = commandWords(segment);
    let index = 0;
    while (index < words.length && (/^[A-Za-z_]\w*=/.test(words[index] as string) || COMMAND_WRAPPERS.has(words[index] as string))) index++;
    const program = (words[index] ?? '').replace(/\\/g, '/').split('/').pop()?.replace(/\.(exe|cmd)$/i, '');
    if (!program || !BEADS_CLIS.has(program)) continue;
    const rest = words.slice(index + 1);
    const { positional, flags, endOfOptions } = readArguments(rest);
    const [verb, ...operands] = positional;
    // After `--` a word is an operand whatever it looks like (`comments add -- --help …`): an id
    // there is what the CLI takes as one. Before it, only a word shaped like an id is read as one.
    const isIssueId = (word: string, operand: number) => (operand + 1 >= endOfOptions ? isOperandWord(word) : looksLikeIssueId(word));
    const ids = (from: number) => operands.slice(from).filter((word, index) => isIssueId(word, from + index));
    if (verb === 'update') {
      const status = flags.get('--status') ?? flags.get('-s');
      const assignee = flags.get('--assignee') ?? flags.get('-a');
      const kind =
        flags.has('--claim') || (status !== undefined && IN_PROGRESS.has(status))
          ? 'claim'
          : status === 'closed'
            ? 'close'
            : (status !== undefined && NOT_WORKED_ON.has(status)) || assignee === '' || flags.has('--unassign')
              ? 'release'
              : undefined;
      if (kind) for (const issueId of ids(0)) actions.push({ kind, issueId });
    } else if (verb === 'close') {
      for (const issueId of ids(0)) actions.push({ kind: 'close', issueId });
    } else if (verb === 'comments' && operands[0] === 'add' && operands[1] !== undefined && isIssueId(operands[1], 1)) {
      actions.push({ kind: 'comment', issueId: operands[1] });
    } else if (verb === 'comment' && operands[0] !== undefined && isIssueId(operands[0], 0)) {
      actions.push({ kind: 'comment', issueId: operands[0] });
    }
  }
  return actions;
}

/** Splits on `&&`, `||`, `;`, `|` and line breaks outside quotes. */
export function commandSegments(command: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (quote) {
      if (char === '\\' && quote === '"' && index + 1 < command.length) {
        current += char + (command[++index] as string);
        continue;
      }
      if (char === quote) quote = undefined;
      current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current += char;
    } else if (char === ';' || char === '|' || char === '&' || char === '\n') {
      // `&&`, `||`: one separator; a lone `&` (background) separates too.
      if ((char === '|' || char === '&') && command[index + 1] === char) index++;
      segments.push(current);
      current = '';
    } else current += char;
  }
  segments.push(current);
  return segments.filter((segment) => segment.trim() !== '');
}

/** Words as a POSIX shell splits them: quotes join into the word around them (`--message="a b"` is one word), nothing expands. */
export function commandWords(segment: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && index + 1 < segment.length) current = (current ?? '') + (segment[++index] as string);
      else current = (current ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current = current ?? '';
    } else if (/\s/.test(char)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else if (char === '\\' && index + 1 < segment.length) current = (current ?? '') + (segment[++index] as string);
    else current = (current ?? '') + char;
  }
  if (current !== undefined) words.push(current);
  return words;
}

/**
 * Positional words and flags (`--flag value`, `--flag=value`, booleans); after `--` all words are
 * positional, from `endOfOptions` on (the count of positional words when there is no `--`).
 */
function readArguments(words: readonly string[]): { positional: string[]; flags: Map<string, string>; endOfOptions: number } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (word === '--') {
      const endOfOptions = positional.length;
      positional.push(...words.slice(index + 1));
      return { positional, flags, endOfOptions };
    }
    if (word.startsWith('-') && word.length > 1) {
      const equals = word.indexOf('=');
      if (equals > 0) flags.set(word.slice(0, equals), word.slice(equals + 1));
      else if (VALUE_FLAGS.has(word)) flags.set(word, words[++index] ?? '');
      else flags.set(word, 'true');
    } else positional.push(word);
  }
  return { positional, flags, endOfOptions: positional.length };
}

/** An issue id as both CLIs print them (`prefix-hash`, `prefix-1.2`): one word, no shell syntax. */
function looksLikeIssueId(word: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.]*-[A-Za-z0-9_.-]+$/.test(word) && word.length <= 100;
}

/** An operand after `--`: any one word without spaces or what a shell would have acted on. */
function isOperandWord(word: string): boolean {
  return /^[^\s'"`$;&|<>()]+$/.test(word) && word.length <= 100;
}

/** Issue ids a command line adds comments to (`bd|br comments add <id> …`, bd's `comment <id> …`). */
export function commentCommandIssueIds(command: string): string[] {
  return [...new Set(issueActionsIn(command).filter((action) => action.kind === 'comment').map((action) => action.issueId))];
}
