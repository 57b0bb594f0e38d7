// The one redaction step (src/services/redaction.ts, src/core/redact.ts): every shape of the
// corpus masked by kind with the sentence kept, nothing that is no secret touched, personal paths
// made relative, and what was masked said in counts and kinds only.
import { describe, expect, it } from 'vitest';
import { creator as secretlintPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { lintSource } from '@secretlint/core';
import { describeMasked, mayHoldVendorSecret, PRESCANNED_RULES, redactSnapshot, redactText } from '../../../src/services/redaction';
import { NOT_SECRETS, SECRET_CORPUS } from '../../fixtures/secrets/corpus.mjs';

const places = { folder: '/home/alice/projects/app', home: '/home/alice' };

describe('the redaction step', () => {
  // secretlint is run only on text where one of its rules could find something (a part every
  // match of that rule holds): the candidate parts were read from these rules.
  it("knows every rule of secretlint's preset that it skips secretlint for", () => {
    expect(secretlintPreset.rules.map((rule) => rule.meta.id).sort()).toEqual([...PRESCANNED_RULES].sort());
  });

  it('finds a candidate in every text where secretlint finds a secret, and skips text with none', async () => {
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: secretlintPreset }] };
    const found = async (content: string) => (await lintSource({ source: { content, filePath: 'thread.txt', ext: '.txt', contentType: 'text' }, options: { config } })).messages.length > 0;
    for (const { text } of SECRET_CORPUS) if (await found(text)) expect(mayHoldVendorSecret(text), text).toBe(true);
    for (const text of NOT_SECRETS) if (await found(text)) expect(mayHoldVendorSecret(text), text).toBe(true);
    expect(mayHoldVendorSecret('## Resuming: demo-1 — Parse widget config\n- Next: run the parser tests (task-12, msg.send)')).toBe(false);
  });

  it('has at least 40 secret shapes to plant', () => {
    expect(SECRET_CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SECRET_CORPUS.map((entry) => entry.secret)).size).toBe(SECRET_CORPUS.length);
  });

  it.each(SECRET_CORPUS.map((entry) => [entry.label, entry.text, entry.secret] as const))('masks a %s: %s', async (label, text, secret) => {
    const { text: redacted, masked } = await redactText(text, places);
    expect(redacted).not.toContain(secret);
    expect(redacted).toContain('[redacted: ');
    expect(Object.values(masked).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
    // The words around it stay: the first and last word of the sentence that are not the secret.
    const words = text.split(/\s+/).filter((word) => !secret.includes(word) && !word.includes(secret.slice(0, 12)) && /^[a-z]{3,}$/i.test(word));
    for (const word of words) expect(redacted).toContain(word);
    expect(describeMasked(masked)).not.toContain(secret);
    // The label of the rule that knows the vendor, where one does.
    if (!['key', 'token', 'secret', 'password', 'secret-like string'].includes(label)) expect(Object.keys(masked)).toContain(label);
  });

  it('reads as the issue asks: the kind in brackets, the sentence around it', async () => {
    const token = SECRET_CORPUS[0]!.secret;
    expect((await redactText(`push failed until I used ${token} as the password`, places)).text).toBe('push failed until I used [redacted: GitHub token] as the password');
    expect((await redactText('PASSWORD=hunter2x psql', places)).text).toBe('PASSWORD=[redacted: password] psql');
    expect((await redactText('curl -H "Authorization: Bearer abcdefghijkl0123"', places)).text).toBe('curl -H "Authorization: Bearer [redacted: authorization header]"');
  });

  it('masks every secret of a sentence that holds many, and a second pass changes nothing', async () => {
    const all = SECRET_CORPUS.map((entry) => entry.text).join(' | ');
    const once = await redactText(all, places);
    for (const { secret } of SECRET_CORPUS) expect(once.text).not.toContain(secret);
    expect(await redactText(once.text, places)).toEqual({ text: once.text, masked: {} });
  });

  it('masks a token the thread cut short, by its prefix or its randomness', async () => {
    const token = SECRET_CORPUS[0]!.secret;
    const cut = `${token.slice(0, 20)}\u2026`;
    expect((await redactText(`Request: push with ${cut}`, places)).text).toBe('Request: push with [redacted: secret (cut short)]');
  });

  it("masks a private key's header and a Slack webhook the thread cut short (a command's argument, opencode)", async () => {
    const line = "ran `python3 test_parser.py --note 'cat id_rsa printed -----BEGIN RSA PRIVATE KEY---\u2026` (exit 1)";
    expect((await redactText(line, places)).text).toBe("ran `python3 test_parser.py --note 'cat id_rsa printed [redacted: private key]` (exit 1)");
    expect((await redactText('-----BEGIN OPENSSH PRIVATE K\u2026', places)).text).toBe('[redacted: private key]');
    expect((await redactText('posted to https://hooks.slack.com/services/TXEf4O8fhsR/BlIw\u2026 (exit 0)', places)).text).toBe('posted to [redacted: Slack webhook] (exit 0)');
  });

  it('a secretlint-disable comment in the text switches nothing off', async () => {
    const token = SECRET_CORPUS[0]!.secret;
    expect((await redactText(`// secretlint-disable\n${token}`, places)).text).not.toContain(token);
  });

  it.each(NOT_SECRETS)('leaves what is no secret alone: %s', async (text) => {
    expect(await redactText(text, places)).toEqual({ text, masked: {} });
  });

  it('makes personal paths relative to the session folder, else to ~, on Linux, macOS and Windows', async () => {
    const cases: [string, string, { folder?: string; home?: string }][] = [
      ['failed at /home/alice/projects/app/test/unit/parse.test.ts:42', 'failed at test/unit/parse.test.ts:42', places],
      ['cd /home/alice/projects/app', 'cd .', places],
      ['notes in /home/alice/notes/todo.md', 'notes in ~/notes/todo.md', places],
      ['opened /Users/bob/Projects/app/src/a.ts', 'opened src/a.ts', { folder: '/Users/bob/Projects/app', home: '/Users/bob' }],
      ['read C:\\Users\\Carol\\code\\app\\src\\a.ts', 'read src\\a.ts', { folder: 'c:\\Users\\carol\\code\\app', home: 'C:\\Users\\carol' }],
      ['json "C:\\\\Users\\\\carol\\\\AppData\\\\x.log"', 'json "~\\\\AppData\\\\x.log"', { folder: 'D:\\repo', home: 'C:\\Users\\carol' }],
      ['someone else: /home/dave/.ssh/config', 'someone else: ~/.ssh/config', places],
    ];
    for (const [text, expected, where] of cases) expect((await redactText(text, where)).text).toBe(expected);
    expect((await redactText('see /usr/lib/node and /tmp/x and src/home/a.ts', places)).masked).toEqual({});
  });

  it('says what was masked in counts and kinds, never values', async () => {
    const { masked } = await redactText(`${SECRET_CORPUS[0]!.text}; ${SECRET_CORPUS[1]!.text}; PASSWORD=abc123x at /home/alice/x.txt`, places);
    expect(describeMasked(masked)).toBe('masked 3 secrets (2 GitHub token, 1 password) and 1 personal path made relative');
    expect(describeMasked({})).toBeUndefined();
  });
});

describe("the view's lists", () => {
  it('redact the titles of the in-progress, ready and detailed issues, as the focused issue’s details are', async () => {
    const token = SECRET_CORPUS[0]!.secret;
    const issue = (id: string, title: string) => ({ id, title, status: 'open', priority: 1, issueType: 'task' });
    const snapshot = {
      inProgress: { ok: true as const, value: [issue('a-1', `Rotate ${token} today`)] },
      ready: { ok: true as const, value: [issue('a-2', 'Move /home/alice/projects/app/src/x.ts into lib')] },
      details: { ok: true as const, value: [{ ...issue('a-1', `Rotate ${token} today`), comments: [{ id: 1, author: 'x', text: `was ${token}`, createdAt: '' }] }] },
      focusedId: 'a-1',
      contextIds: [],
      incomplete: false,
    };
    const shown = await redactSnapshot(snapshot as never, places.folder);
    const titles = [shown.inProgress, shown.ready, shown.details].flatMap((section) => (section.ok ? section.value.map((item) => item.title) : []));
    expect(titles).toHaveLength(3);
    for (const title of titles) expect(title).not.toContain(token);
    expect(titles[0]).toMatch(/^Rotate \[redacted: .+\] today$/);
    expect(titles[1]).toBe('Move src/x.ts into lib');
    expect(JSON.stringify(shown.details)).not.toContain(token);
    // A failed list stays as it failed.
    const failed = await redactSnapshot({ ...snapshot, ready: { ok: false, error: 'boom' } } as never, places.folder);
    expect(failed.ready).toEqual({ ok: false, error: 'boom' });
  });
});
