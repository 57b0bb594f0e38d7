// Exactly once: the recovery context a hook hands over carries one last line that names it,
// `beads-recovery block <digest>`, so the agent's own transcript can later say whether the
// conversation already holds this very block (a `--resume` replays what the hooks gave before).
// Pure: the caller reads the transcript.
import { fnv1a } from './hash';

const MARK_PREFIX = 'beads-recovery block ';

/**
 * The digest of a block's content. Relative ages ("3m ago", "just now") are left out, so the
 * same state read a few minutes later is the same block; anything else that changes (a new
 * checkpoint, another focus, new files) makes another one.
 */
export function blockDigest(markdown: string): string {
  return fnv1a(markdown.replace(/\b(?:\d+[mhdwy] ago|just now|time unknown)\b/g, '~'));
}

/** The line a delivered block ends with. ASCII without quotes or backslashes: it reads the same in every transcript's JSON. */
export function blockMarkLine(digest: string): string {
  return `${MARK_PREFIX}${digest}`;
}

/** Bytes the mark adds to a block: its line and the blank line before it. */
export const BLOCK_MARK_BYTES = `\n\n${blockMarkLine('00000000')}`.length;

export function withBlockMark(markdown: string): string {
  return `${markdown.replace(/\n+$/, '')}\n\n${blockMarkLine(blockDigest(markdown))}`;
}

/**
 * Whether the conversation, as the end of its transcript shows it, holds a block of ours: a mark
 * after the last compaction boundary (anything before a boundary was compacted away). Any block,
 * not only today's digest: the state moves between two runs of an agent (the work of the last
 * turn), and a second block beside the first is what exactly once forbids (a Claude Code resume
 * after a compaction held two). `boundaries` are the texts that open a compaction record in that
 * agent's transcript.
 */
export function holdsBlock(transcriptTail: string, boundaries: readonly string[]): boolean {
  return heldBlockDigest(transcriptTail, boundaries) !== undefined;
}

/** The digest of the newest block the conversation holds (see holdsBlock); undefined when it holds none. */
export function heldBlockDigest(transcriptTail: string, boundaries: readonly string[]): string | undefined {
  const marks = [...transcriptTail.matchAll(new RegExp(`${MARK_PREFIX}([0-9a-f]{8})`, 'g'))];
  const mark = marks.at(-1);
  if (mark?.index === undefined) return undefined;
  const at = mark.index;
  return boundaries.every((boundary) => transcriptTail.lastIndexOf(boundary) < at) ? mark[1] : undefined;
}
