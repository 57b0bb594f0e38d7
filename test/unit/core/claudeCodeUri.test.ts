import { describe, expect, it } from 'vitest';
import { claudeCodePromptUri } from '../../../src/core/claudeCodeUri';

describe('claudeCodePromptUri', () => {
  it('takes the scheme from the host, so the URI reaches the editor it came from', () => {
    expect(claudeCodePromptUri('vscode', 'hi')).toBe('vscode://anthropic.claude-code/open?prompt=hi');
    expect(claudeCodePromptUri('vscode-insiders', 'hi')).toBe('vscode-insiders://anthropic.claude-code/open?prompt=hi');
    expect(claudeCodePromptUri('cursor', 'hi')).toBe('cursor://anthropic.claude-code/open?prompt=hi');
  });

  it('URL-encodes the whole prompt: spaces, newlines, query syntax, percent signs, quotes and non-ASCII', () => {
    const prompt = '## Resuming: bd-1 — "Parse" 100% & more\n- `a+b=c`?#x\r\n';
    expect(claudeCodePromptUri('vscode', prompt)).toBe(
      'vscode://anthropic.claude-code/open?prompt=%23%23%20Resuming%3A%20bd-1%20%E2%80%94%20%22Parse%22%20100%25%20%26%20more%0A-%20%60a%2Bb%3Dc%60%3F%23x%0D%0A',
    );
    const decoded = new URL(claudeCodePromptUri('vscode', prompt)).searchParams.get('prompt');
    expect(decoded).toBe(prompt);
  });

  it('refuses a scheme that is not one', () => {
    expect(() => claudeCodePromptUri('', 'x')).toThrow(/not a URI scheme/);
    expect(() => claudeCodePromptUri('evil://x/?', 'x')).toThrow(/not a URI scheme/);
  });
});
