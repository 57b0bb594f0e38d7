// Issue titles, descriptions, comments, file names and CLI errors are untrusted text: anyone who
// can write to the tracker or the repository chooses them. They are rendered into markdown that
// agents read and renderers display, so each value is made into one inert line: it can neither
// start a new line nor open structure (headings, code spans, links, HTML, tables) that would
// swallow the lines the formatter writes after it.

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
 * Untrusted text (a file path, a command) as a markdown code span on one line. Inside a code
 * span nothing is markup, so only the fence has to outgrow the backtick runs in the text.
 */
export function inlineCode(text: string, maxChars: number): string {
  const plain = truncate(oneLine(text), maxChars);
  if (plain === '') return '` `';
  const longestRun = Math.max(0, ...(plain.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // A span that starts or ends with a backtick needs a space so that it does not merge with the fence;
  // CommonMark strips exactly one such space on each side.
  const padded = plain.startsWith('`') || plain.endsWith('`') ? ` ${plain} ` : plain;
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
