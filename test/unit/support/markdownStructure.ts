// What a CommonMark renderer makes of a block of markdown: its headings, and whether anything
// became raw HTML or a fenced block. The recovery context is judged by this rather than by
// looking at line starts, since indentation, lists and lazy continuation lines all change what a
// line means.
import MarkdownIt from 'markdown-it';

const parser = new MarkdownIt('commonmark', { html: true });

export interface Structure {
  /** Every heading's text, "## Resuming: …" style, in order. */
  headings: string[];
  /** The distinct token types, sorted: html_block, fence, hr or blockquote here mean text escaped its place. */
  blockTypes: string[];
  /** The contents of the indented code blocks, in order. */
  codeBlocks: string[];
}

export function structureOf(markdown: string): Structure {
  const tokens = parser.parse(markdown, {});
  const headings: string[] = [];
  const blockTypes: string[] = [];
  const codeBlocks: string[] = [];
  tokens.forEach((token, index) => {
    blockTypes.push(token.type);
    if (token.type === 'heading_open') headings.push(`${token.markup} ${tokens[index + 1]?.content ?? ''}`);
    if (token.type === 'code_block') codeBlocks.push(token.content);
  });
  return { headings, blockTypes: [...new Set(blockTypes)].sort(), codeBlocks };
}
