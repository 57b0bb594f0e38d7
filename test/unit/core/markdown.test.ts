import { describe, expect, it } from 'vitest';
import { cutBytes, inlineCode, inlineText, isMultiLine, oneLine, truncate, verbatimBlock, verbatimLine, unlinked } from '../../../src/core/markdown';

describe('inlineText', () => {
  it('turns every kind of line break and whitespace run into one space', () => {
    expect(inlineText('a\nb\r\nc\td\u2028e\u2029f\u0085g\u00a0\u00a0h  i', 100)).toBe('a b c d e f g h i');
    expect(inlineText('  \n padded \n ', 100)).toBe('padded');
  });

  it('removes C0 and C1 controls, bidi overrides and the byte-order mark', () => {
    expect(inlineText('\u0000a\u0007b\u001b[31mc\u007f\u009bd\u202eevil\u2066e\ufeff', 100)).toBe('ab\\[31mcdevile');
  });

  it('replaces lone surrogates and keeps pairs', () => {
    expect(inlineText('x\ud800y\udc00z 😀', 100)).toBe('x\ufffdy\ufffdz 😀');
  });

  it('escapes what could open inline structure', () => {
    expect(inlineText('`code` *b* [l](u) <b>x</b> a|b \\', 100)).toBe('\\`code\\` \\*b\\* \\[l\\](u) \\<b\\>x\\</b\\> a\\|b \\\\');
    expect(inlineText('</script><img src=x onerror=alert(1)>', 100)).toBe('\\</script\\>\\<img src=x onerror=alert(1)\\>');
  });

  it('escapes underscores only where they could mean emphasis', () => {
    expect(inlineText('snake_case and _emphasis_ and trailing_ __init__', 100)).toBe('snake_case and \\_emphasis\\_ and trailing\\_ \\_\\_init\\_\\_');
  });

  it('escapes block markers at the start so the text is safe at the start of a line', () => {
    expect(inlineText('# heading', 100)).toBe('\\# heading');
    expect(inlineText('- item', 100)).toBe('\\- item');
    expect(inlineText('+ item', 100)).toBe('\\+ item');
    expect(inlineText('=== setext', 100)).toBe('\\=== setext');
    expect(inlineText('~~~ fence', 100)).toBe('\\~~~ fence');
    expect(inlineText('12. ordered', 100)).toBe('12\\. ordered');
    expect(inlineText('3) ordered', 100)).toBe('3\\) ordered');
    expect(inlineText('> quote', 100)).toBe('\\> quote');
    expect(inlineText('a # b - c 1. d', 100)).toBe('a # b - c 1. d');
  });

  it('cuts to a number of characters (code points) before escaping, ending with an ellipsis', () => {
    expect(inlineText('abcdef', 4)).toBe('abc…');
    expect(inlineText('abcd', 4)).toBe('abcd');
    expect(inlineText('😀😀😀😀😀', 3)).toBe('😀😀…');
    expect(inlineText('ab    cdef', 4)).toBe('ab…');
    expect(inlineText('**a**', 3)).toBe('\\*\\*…');
  });
});

describe('inlineCode', () => {
  it('wraps text in a fence longer than its longest backtick run', () => {
    expect(inlineCode('src/parser.ts', 100)).toBe('`src/parser.ts`');
    expect(inlineCode('a`b', 100)).toBe('``a`b``');
    expect(inlineCode('`x`', 100)).toBe('`` `x` ``');
    expect(inlineCode('a``b`', 100)).toBe('``` a``b` ```');
    expect(inlineCode('', 100)).toBe('` `');
  });

  it('keeps the span on one line and free of controls', () => {
    expect(inlineCode('new\nline\u0000.ts', 100)).toBe('`new line.ts`');
  });

  it('keeps the characters of a path, spaces included, padding a span that starts or ends with a space', () => {
    expect(inlineCode('two  spaces_[x].md', 100)).toBe('`two  spaces_[x].md`');
    expect(inlineCode(' lead', 100)).toBe('`  lead `');
  });
});

describe('oneLine and truncate', () => {
  it('never leave a line break, whatever the input', () => {
    for (const text of ['\n', '\r', 'a\u000bb', 'a\u000cb', 'a\u2028b', '\u0085']) {
      // eslint-disable-next-line no-control-regex -- asserting that no line-breaking control survives
      expect(oneLine(text)).not.toMatch(/[\n\r\u000b\u000c\u2028\u2029\u0085]/);
    }
  });

  it('treat a limit below one as one character', () => {
    expect(truncate('abc', 0)).toBe('…');
  });
});

describe('verbatim text', () => {
  it('verbatimLine collapses only line breaks and removes only invisible controls', () => {
    expect(verbatimLine('a\nb\r\n\r\nc\u2028d')).toBe('a b c d');
    expect(verbatimLine('  __init__.py  *ptr  `x`  ')).toBe('  __init__.py  *ptr  `x`  ');
    expect(verbatimLine('\u0000a\u001b[31m\tb\u202ec\ufeff')).toBe('a[31m\tbc');
    expect(verbatimLine('x\ud800y')).toBe('x\ufffdy');
  });

  it('verbatimBlock indents every line, keeping blank lines blank and dropping blank edges', () => {
    expect(verbatimBlock('\n# h\r\n\n- item\n   \n', 4)).toEqual(['    # h', '', '    - item']);
    expect(verbatimBlock('one', 6)).toEqual(['      one']);
    expect(verbatimBlock('  \n ', 4)).toEqual([]);
  });

  it('isMultiLine tells text that spans lines from text with only edge breaks', () => {
    expect(isMultiLine('a\nb')).toBe(true);
    expect(isMultiLine('\na\n')).toBe(false);
    expect(isMultiLine('a\u2028b')).toBe(true);
  });

  it('cutBytes cuts between grapheme clusters and counts the ellipsis', () => {
    expect(cutBytes('abcdef', 6)).toBe('abcdef');
    expect(cutBytes('abcdef', 5)).toBe('ab…');
    expect(cutBytes('日本語テキスト', 10)).toBe('日本…');
    expect(cutBytes('👨‍👩‍👧‍👦👨‍👩‍👧‍👦', 30)).toBe('👨‍👩‍👧‍👦…');
    expect(cutBytes('e\u0301e\u0301e\u0301', 7)).toBe('e\u0301…');
    expect(cutBytes('abc', 2)).toBe('');
  });
});

describe('unlinked: issue data in a notification never becomes a link', () => {
  // VS Code's notification renderer links `[label](target)` with no escape; its pattern, for the test.
  const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
  const hostile = 'wf-1 [Fix it](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) and [doc] (https://example.com)';

  it('breaks every link a title or id could carry, and is invisible otherwise', () => {
    expect(hostile.match(NOTIFICATION_LINK)).toHaveLength(1);
    expect(unlinked(hostile).match(NOTIFICATION_LINK)).toBeNull();
    expect(unlinked(hostile).replace(/\u200b/g, '')).toBe(hostile);
    expect(unlinked('Fix parse_config in src/my_mod/__init__.py (and *ptr deref) [P1]')).toBe('Fix parse_config in src/my_mod/__init__.py (and *ptr deref) [P1]');
  });
});
