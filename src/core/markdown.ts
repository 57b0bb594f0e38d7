// Issue titles, descriptions, comments, file names and CLI errors are untrusted text: anyone who
// can write to the tracker or the repository chooses them. Two ways of putting them into markdown:
//
// - Verbatim (the recovery context, the chat participant): an agent copies paths, identifiers and
//   code out of the block, so their characters are kept exactly. Structure is protected without
//   changing a character: a one-line field has its line breaks collapsed and is only ever written
//   after the formatter's own text on a line of its own block (a heading or a list item), where
//   it cannot start a block and its inline markup ends with the line; a multi-line field is
//   indented as a code block, where nothing is markup and no fence needs balancing. Only
//   invisible controls are removed.
// - Escaped (hovers and tooltips that a renderer shows and nobody copies): inlineText
//   backslash-escapes whatever could open structure.

import { utf8Length } from './budget';

// Line and paragraph separators that some renderers and editors treat as line breaks.
const LINE_BREAKS = /[\u0085\u2028\u2029]/g;
// C0 and C1 controls, DEL, bidirectional overrides and isolates (which can make text read
// differently from how it is stored), and the byte-order mark.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVISIBLE_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Characters that can open inline structure anywhere in a line.
const INLINE_SPECIALS = /[\\`*[\]<>|]/g;
// Underscore emphasis needs an underscore at a word boundary; one between two letters or digits is literal.
const BOUNDARY_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
// Block markers that only matter at the start of a line: headings, list items, setext underlines,
// tilde fences, ordered lists (`>`, `*`, `_` and backtick fences are already escaped everywhere).
const LEADING_BLOCK_MARKER = /^(?:([#\-+=~])|(\d+)([.)]))/;

const ELLIPSIS = '…';
// Every kind of line break (vertical tab and form feed included), a CRLF pair as one.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LINE_BREAK = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/;
const LINE_BREAK_RUN = new RegExp(`(?:${LINE_BREAK.source})+`, 'g');
const SPANS_LINES = new RegExp(`\\S[^\\S\\n]*(?:${LINE_BREAK.source})\\s*\\S`);
// Controls other than tab and line breaks, bidirectional overrides and isolates, the byte-order mark.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * Untrusted one-line text kept character for character: runs of line breaks become one space,
 * invisible controls are removed and lone surrogates become U+FFFD; nothing is escaped, trimmed
 * or collapsed. Write it only after the formatter's own text on a heading or list-item line.
 */
export function verbatimLine(text: string): string {
  return visible(String(text ?? '')).replace(LINE_BREAK_RUN, ' ');
}

/**
 * Untrusted multi-line text as an indented code block (each line prefixed by `indent` spaces, at
 * least four more than the enclosing block's content): inside it nothing is markup, so every
 * character is kept and no line can start a heading, list, fence or HTML block. Line endings
 * become \n and trailing blank lines go; blank lines inside stay blank, which keeps the block open.
 */
export function verbatimBlock(text: string, indent = 4): string[] {
  const lines = visible(String(text ?? '')).split(LINE_BREAK);
  while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
  while (lines.length > 0 && (lines[0] as string).trim() === '') lines.shift();
  const pad = ' '.repeat(indent);
  return lines.map((line) => (line.trim() === '' ? '' : `${pad}${line}`));
}

/** True when the text, once visible, spans more than one line. */
export function isMultiLine(text: string): boolean {
  return SPANS_LINES.test(visible(String(text ?? '')));
}

/**
 * At most `maxBytes` of UTF-8, ending with "…" (counted) when cut. The cut falls between grapheme
 * clusters, so it never splits a character, a surrogate pair, an emoji sequence or a letter from
 * its combining marks.
 */
export function cutBytes(text: string, maxBytes: number): string {
  const limit = Math.max(0, Math.floor(maxBytes));
  // More units than bytes allowed is too long already: no need to measure a long text whole.
  if (text.length <= limit && utf8Length(text) <= limit) return text;
  const room = limit - utf8Length(ELLIPSIS);
  if (room < 0) return '';
  let kept = '';
  let bytes = 0;
  // Every UTF-16 unit is at least one UTF-8 byte, so nothing past `room` units can be kept; a
  // boundary depends only on what comes before it and on the next character, so the clusters
  // before the cut are the text's own. Segmenting the whole text instead costs its whole length
  // on every call (seconds for a description of megabytes).
  for (const { segment } of graphemes().segment(text.slice(0, room + 2))) {
    const size = utf8Length(segment);
    if (bytes + size > room) break;
    kept += segment;
    bytes += size;
  }
  return `${kept}${ELLIPSIS}`;
}

// Made on first use: creating it loads the runtime's text-break data (milliseconds), which a hook
// process that never cuts a text need not pay.
let segmenter: Intl.Segmenter | undefined;
function graphemes(): Intl.Segmenter {
  return (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));
}

/**
 * A word for a POSIX shell: unchanged when it holds only characters no shell treats specially,
 * else single-quoted (a quote inside becomes '\''). Ids go through this before they are shown in
 * a command an agent may run.
 */
export function shellWord(text: string): string {
  const word = String(text ?? '');
  // zsh expands a leading `=`, so it is safe only inside the word.
  if (/^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/.test(word)) return word;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

function visible(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(HIDDEN_CONTROLS, '');
}

/**
 * Untrusted text as one line of markdown: whitespace runs (newlines included) become one space,
 * controls are removed, it is cut to `maxChars` characters (code points, ending with "…" when
 * cut) and the characters that could open markdown or HTML structure are backslash-escaped.
 * Safe anywhere in a line, at its start included.
 */
export function inlineText(text: string, maxChars: number): string {
  const plain = truncate(oneLine(text), maxChars);
  return plain
    .replace(INLINE_SPECIALS, '\\$&')
    .replace(BOUNDARY_UNDERSCORE, '\\_')
    .replace(LEADING_BLOCK_MARKER, (_match, marker?: string, digits?: string, punctuation?: string) =>
      marker ? `\\${marker}` : `${digits}\\${punctuation}`);
}

/**
 * Untrusted text (a file path, a command) as a markdown code span on one line, its characters
 * kept (verbatimLine) and cut to `maxBytes`. Inside a code span nothing is markup, so only the
 * fence has to outgrow the backtick runs in the text.
 */
export function inlineCode(text: string, maxBytes: number): string {
  const plain = cutBytes(verbatimLine(text), maxBytes);
  if (plain === '') return '` `';
  const longestRun = Math.max(0, ...(plain.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // A span that starts or ends with a backtick or a space gets one more space on each side:
  // CommonMark strips exactly one from each side of a span that begins and ends with one.
  const padded = /^[` ]|[` ]$/.test(plain) ? ` ${plain} ` : plain;
  return `${fence}${padded}${fence}`;
}

/** Untrusted text as a single line of plain characters: no controls, no line breaks, single spaces. */
export function oneLine(text: string): string {
  return String(text)
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(LINE_BREAKS, ' ')
    .replace(INVISIBLE_CONTROLS, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** At most `maxChars` code points; a cut text ends with "…", which counts as one of them. */
export function truncate(text: string, maxChars: number): string {
  const limit = Math.max(1, Math.floor(maxChars));
  const codePoints = Array.from(text);
  if (codePoints.length <= limit) return text;
  return `${codePoints.slice(0, limit - 1).join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * Text for a VS Code notification, whose renderer turns `[label](target)` into a link it opens on
 * click, `command:` targets included, and knows no escape for it. A zero-width space between `]`
 * and `(` keeps a link written into issue data (an id, a title, a CLI's message) as the text it
 * is; nothing else changes. Notifications only: markdown escaping is what MarkdownString needs.
 */
export function unlinked(text: string): string {
  return text.replace(/\]\s*\(/g, (match) => `]\u200b${match.slice(1)}`);
}
