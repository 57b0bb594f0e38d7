import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../../src/core/hash';
import { classifyReflogMessage, entriesAfterRewrite, parseReflog, parseReflogLine } from '../../../src/core/reflog';

const A = 'e689d08c236ad900950f8b3f52dfaa9561479b5c';
const B = '8f8dfa83f9b92007df9f16393205bcad600c81f7';
const ZERO = '0'.repeat(40);

function line(message: string, { old = A, next = B, who = 'Demo User <a@b.c>', at = 1795335278, zone = '+0000' } = {}): string {
  return `${old} ${next} ${who} ${at} ${zone}\t${message}`;
}

// Every message below was written by git 2.39 into a real repository (commit, amend, merges,
// rebase with reword/squash/fixup, cherry-pick, revert, stash, switch, clone, pull in its three forms).
const REAL_MESSAGES: [string, string, string, string][] = [
  ['commit (initial): first', 'initial', 'new', 'first'],
  ['commit: second line', 'commit', 'new', 'second line'],
  ['commit (amend): second amended', 'amend', 'rewritten', 'second amended'],
  ['checkout: moving from main to feat', 'checkout', 'moved', ''],
  ["merge feat: Merge made by the 'ort' strategy.", 'merge', 'new', "Merge made by the 'ort' strategy."],
  ['merge feat: Fast-forward', 'merge', 'moved', ''],
  ['rebase (start): checkout main', 'rebase', 'moved', ''],
  ['rebase (pick): feat: e', 'rebase', 'rewritten', 'feat: e'],
  ['rebase (reword): m1 reworded', 'rebase', 'rewritten', 'm1 reworded'],
  ['rebase (squash): m1 reworded', 'rebase', 'rewritten', 'm1 reworded'],
  ['rebase (fixup): f1', 'rebase', 'rewritten', 'f1'],
  ['rebase: fast-forward', 'rebase', 'moved', ''],
  ['rebase (finish): returning to refs/heads/feat', 'rebase', 'moved', ''],
  ['rebase -i (finish): returning to refs/heads/main', 'rebase', 'moved', ''],
  ['rebase -i (pick): older git', 'rebase', 'rewritten', 'older git'],
  ['cherry-pick: side s', 'cherry-pick', 'rewritten', 'side s'],
  ['revert: Revert "side s"', 'revert', 'new', 'Revert "side s"'],
  ['reset: moving to HEAD~1', 'reset', 'moved', ''],
  ['commit (merge): resolved merge', 'merge', 'new', 'resolved merge'],
  ['am: apply this', 'am', 'new', 'apply this'],
  ['am --abort', 'other', 'moved', ''],
  ['checkout: moving from 74da56b5d6504b834dee4d2c6c9fae2e0bdba7cf to main', 'checkout', 'moved', ''],
  ['clone: from /tmp/rl/.', 'clone', 'moved', ''],
  ['pull -q --ff-only: Fast-forward', 'pull', 'moved', ''],
  ["pull -q --no-rebase --no-edit: Merge made by the 'ort' strategy.", 'pull', 'new', "Merge made by the 'ort' strategy."],
  ['pull -q --rebase (start): checkout 470aaeb93739df8960cdff4bec50688e7d6ce808', 'rebase', 'moved', ''],
  ['pull -q --rebase (pick): local 1', 'rebase', 'rewritten', 'local 1'],
  ['pull -r (pick): local 2', 'rebase', 'rewritten', 'local 2'],
  ['pull --rebase (finish): returning to refs/heads/main', 'rebase', 'moved', ''],
  ['commit (cherry-pick): resolved pick', 'commit', 'new', 'resolved pick'],
];

describe('parseReflogLine', () => {
  it('reads the fields of a line as git writes it', () => {
    const entry = parseReflogLine(line('commit: second line', { who: 'Ann Lee Jr. <ann@example.com>', at: 1795335290, zone: '-0230' }));
    expect(entry).toMatchObject({
      oldHash: A,
      newHash: B,
      name: 'Ann Lee Jr.',
      email: 'ann@example.com',
      timestamp: 1795335290,
      zone: '-0230',
      message: 'commit: second line',
      kind: 'commit',
      effect: 'new',
      subject: 'second line',
    });
  });

  it.each(REAL_MESSAGES)('classifies %j', (message, kind, effect, subject) => {
    expect(parseReflogLine(line(message))).toMatchObject({ kind, effect, subject });
  });

  it('keeps ": " inside a subject', () => {
    expect(parseReflogLine(line('commit: feat: parser: nested brackets'))?.subject).toBe('feat: parser: nested brackets');
  });

  it('treats a commit from the zero hash as the initial one (an orphan branch)', () => {
    expect(parseReflogLine(line('commit: orphan start', { old: ZERO }))).toMatchObject({ kind: 'initial', effect: 'new' });
  });

  it('reads SHA-256 repositories', () => {
    const long = 'a'.repeat(64);
    expect(parseReflogLine(line('commit: sha256', { old: long, next: 'b'.repeat(64) }))?.newHash).toBe('b'.repeat(64));
  });

  it('accepts a line without a message and a CRLF ending', () => {
    expect(parseReflogLine(`${A} ${B} X <x@y> 1 +0000`)).toMatchObject({ message: '', kind: 'other', effect: 'moved' });
    expect(parseReflogLine(`${line('commit: crlf')}\r`)?.subject).toBe('crlf');
  });

  it('rejects what is not a reflog line', () => {
    expect(parseReflogLine('')).toBeUndefined();
    expect(parseReflogLine('garbage')).toBeUndefined();
    expect(parseReflogLine(`${A} ${B} Demo User <a@b.c> 17953`)).toBeUndefined();
    expect(parseReflogLine(`${A.slice(0, 20)}`)).toBeUndefined();
  });
});

describe('parseReflog', () => {
  it('parses a block of lines and skips the ones that are not entries', () => {
    const text = [line('commit (initial): first', { old: ZERO }), 'not a line', line('commit: two'), ''].join('\n');
    expect(parseReflog(text).map((entry) => entry.subject)).toEqual(['first', 'two']);
  });

  it('skips a half-written last line instead of misreading it', () => {
    const full = line('commit: complete');
    const half = line('commit: half written').slice(0, 60);
    expect(parseReflog(`${full}\n${half}`).map((entry) => entry.subject)).toEqual(['complete']);
  });
});

describe('classifyReflogMessage', () => {
  it('calls anything unknown a move, so that it never produces a comment', () => {
    expect(classifyReflogMessage('update by push: whatever')).toEqual({ kind: 'other', effect: 'moved', subject: '' });
    expect(classifyReflogMessage('switch: moving from a to b')).toMatchObject({ kind: 'checkout', effect: 'moved' });
  });
});

describe('fnv1a and entriesAfterRewrite', () => {
  it('tells two first lines apart and is stable', () => {
    expect(fnv1a(line('commit (initial): first'))).toBe(fnv1a(line('commit (initial): first')));
    expect(fnv1a(line('commit (initial): first'))).not.toBe(fnv1a(line('commit: second line')));
    expect(fnv1a('')).toMatch(/^[0-9a-f]{8}$/);
  });

  it('keeps the published FNV-1a values: its outputs are stored on disk and must not change', () => {
    expect(fnv1a('')).toBe('811c9dc5');
    expect(fnv1a('a')).toBe('e40c292c');
    expect(fnv1a('foobar')).toBe('bf9cf968');
  });

  it('keeps the entries from the last second seen on: git stamps whole seconds', () => {
    const entries = parseReflog([line('commit: old', { at: 100 }), line('commit: same second', { at: 200 }), line('commit: new', { at: 201 })].join('\n'));
    expect(entriesAfterRewrite(entries, 200).map((entry) => entry.subject)).toEqual(['same second', 'new']);
  });
});
