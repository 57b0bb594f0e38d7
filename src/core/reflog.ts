// The HEAD reflog (`<git-dir>/logs/HEAD`) is written by git itself for every move of HEAD,
// whoever ran git: the user, an agent in a terminal, a background process. That makes it the one
// place that sees every commit. Each line is
//   <old-hash> SP <new-hash> SP <name> SP <<email>> SP <unix-seconds> SP <tz> TAB <message> LF
// and the message says what moved HEAD ("commit: …", "rebase (pick): …", "checkout: moving …").

/** What moved HEAD, as git names it in the message. */
export type ReflogKind =
  | 'commit'
  | 'initial'
  | 'amend'
  | 'merge'
  | 'rebase'
  | 'cherry-pick'
  | 'revert'
  | 'am'
  | 'pull'
  | 'checkout'
  | 'reset'
  | 'clone'
  | 'other';

/**
 * What the move did to history:
 * - `new`: HEAD points at a commit made just now (commit, merge commit, revert, am);
 * - `rewritten`: a commit made just now that copies or replaces one made before (amend, the
 *   picks of a rebase, cherry-pick), so it may be work that was already linked;
 * - `moved`: HEAD went to a commit that already existed (checkout, reset, fast-forward).
 */
export type ReflogEffect = 'new' | 'rewritten' | 'moved';

export interface ReflogEntry {
  oldHash: string;
  newHash: string;
  name: string;
  email: string;
  /** Epoch seconds, as git wrote them. */
  timestamp: number;
  /** The committer's zone, e.g. "+0200". */
  zone: string;
  /** The whole message after the tab. */
  message: string;
  kind: ReflogKind;
  effect: ReflogEffect;
  /** For commit-making entries, the subject git put in the message (a merge says how it merged). */
  subject: string;
}

const HASH = '[0-9a-f]{40}(?:[0-9a-f]{24})?';
const LINE = new RegExp(`^(${HASH}) (${HASH}) (.*?) <([^<>]*)> (\\d+) ([+-]\\d{4})(?:\\t(.*))?$`);
const ZERO_HASH = /^0+$/;
/** The rebase steps that do not make a commit: HEAD only moves. */
const REBASE_MOVES: ReadonlySet<string> = new Set(['start', 'finish', 'abort', 'quit', 'skip']);

/** One reflog line (without its line feed), or undefined when it is not one. */
export function parseReflogLine(line: string): ReflogEntry | undefined {
  const match = LINE.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
  if (!match) return undefined;
  const [, oldHash, newHash, name, email, seconds, zone, message = ''] = match as unknown as [string, string, string, string, string, string, string, string?];
  const { kind, effect, subject } = classifyReflogMessage(message, ZERO_HASH.test(oldHash));
  return { oldHash, newHash, name, email, timestamp: Number(seconds), zone, message, kind, effect, subject };
}

/**
 * The entries of a block of complete lines (what was appended since the last read). Lines that
 * are not reflog lines — garbage, a half-written line — are skipped, not fatal.
 */
export function parseReflog(text: string): ReflogEntry[] {
  const entries: ReflogEntry[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const entry = parseReflogLine(line);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * Reads a reflog message. The action is what precedes the first ": " ("commit (amend)",
 * "merge feat", "pull -q --rebase (pick)"); what follows is the subject or a description of the
 * move. Messages git writes without ": " ("am --abort") are moves of kind `other`.
 */
export function classifyReflogMessage(message: string, fromNothing = false): { kind: ReflogKind; effect: ReflogEffect; subject: string } {
  const separator = message.indexOf(': ');
  const action = (separator === -1 ? message : message.slice(0, separator)).trim();
  const rest = separator === -1 ? '' : message.slice(separator + 2).trim();
  const step = /\(([\w -]+)\)$/.exec(action)?.[1]?.trim();
  const word = action.split(/[\s(]/, 1)[0] ?? '';
  const moved = (kind: ReflogKind) => ({ kind, effect: 'moved' as const, subject: '' });

  if (separator === -1) return moved('other');
  if (word === 'commit') {
    if (step === 'initial' || fromNothing) return { kind: 'initial', effect: 'new', subject: rest };
    if (step === 'amend') return { kind: 'amend', effect: 'rewritten', subject: rest };
    if (step === 'merge') return { kind: 'merge', effect: 'new', subject: rest };
    // "commit (cherry-pick)" and the like: a commit that finishes a stopped operation.
    return { kind: 'commit', effect: 'new', subject: rest };
  }
  // Rebase steps, also when `pull --rebase` runs them ("pull -q --rebase (pick): …").
  // `pull` has no parenthesised steps of its own, whatever flags the user typed ("pull -r (pick)").
  if (step !== undefined && (word === 'pull' || /\brebase\b/.test(action.slice(0, action.lastIndexOf('('))))) {
    if (REBASE_MOVES.has(step.split(' ')[0] ?? '')) return moved('rebase');
    return { kind: 'rebase', effect: 'rewritten', subject: rest };
  }
  switch (word) {
    case 'rebase':
      // "rebase: fast-forward", "rebase finished: returning to …", "rebase -i (finish)" handled above.
      return moved('rebase');
    case 'merge':
    case 'pull':
      return /^fast[- ]forward/i.test(rest) ? moved(word) : { kind: word === 'merge' ? 'merge' : 'pull', effect: 'new', subject: rest };
    case 'cherry-pick':
      return { kind: 'cherry-pick', effect: 'rewritten', subject: rest };
    case 'revert':
      return { kind: 'revert', effect: 'new', subject: rest };
    case 'am':
      return { kind: 'am', effect: 'new', subject: rest };
    case 'checkout':
    case 'switch':
      return moved('checkout');
    case 'reset':
      return moved('reset');
    case 'clone':
      return moved('clone');
    default:
      return moved('other');
  }
}

/** Where a reader of one reflog file stopped, and how to tell that the file is still the same one. */
export interface ReflogCursor {
  /** Bytes consumed: the end of the last complete line read. */
  offset: number;
  /** The file's inode when read (0 where the platform has none): git rewrites the file by renaming a new one over it. */
  inode: number;
  /** Hash of the file's first line: tells a rewritten file when the inode cannot. */
  head: string;
  /** Epoch seconds of the newest entry read: after a rewrite, entries up to it were already seen. */
  lastTimestamp: number;
  /** How many rewrites the reader has seen: a cursor made after a rewrite supersedes one made before it. */
  rewrites: number;
}

/**
 * The entries of a rewritten log a reader may not have seen: those from the second of the newest
 * entry it had read. That second is included because git stamps in whole seconds; an entry seen
 * before is then offered again, and the caller's memory of linked commits drops it.
 */
export function entriesAfterRewrite(entries: readonly ReflogEntry[], lastTimestamp: number): ReflogEntry[] {
  return entries.filter((entry) => entry.timestamp >= lastTimestamp);
}
