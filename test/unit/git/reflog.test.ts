import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_REFLOG, readReflogTail } from '../../../src/git/reflog';

const ZERO = '0'.repeat(40);
let counter = 0;

function hash(): string {
  counter += 1;
  return counter.toString(16).padStart(40, 'a');
}

function entry(message: string, at = 1795335278 + counter): string {
  return `${hash()} ${hash()} Demo User <a@b.c> ${at} +0000\t${message}\n`;
}

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reflog-tail-'));
  file = join(dir, 'HEAD');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readReflogTail', () => {
  it('starts at the end on the first read: history before the extension is not linked', async () => {
    writeFileSync(file, `${ZERO} ${hash()} Demo User <a@b.c> 1795335000 +0000\tcommit (initial): first\n${entry('commit: second', 1795335100)}`);
    const read = await readReflogTail(file, undefined);
    expect(read.mode).toBe('first');
    expect(read.entries).toEqual([]);
    expect(read.cursor.offset).toBe(read.size);
    expect(read.cursor.lastTimestamp).toBe(1795335100);
  });

  it('reads only the bytes appended since the cursor', async () => {
    const history = Array.from({ length: 2000 }, (_, index) => entry(`commit: old ${index}`)).join('');
    writeFileSync(file, history);
    const first = await readReflogTail(file, undefined);
    const appended = entry('commit: new work') + entry('checkout: moving from main to feat');
    appendFileSync(file, appended);
    const next = await readReflogTail(file, first.cursor);
    expect(next.mode).toBe('append');
    expect(next.bytesRead).toBe(Buffer.byteLength(appended));
    expect(next.size).toBeGreaterThan(100 * next.bytesRead);
    expect(next.entries.map((item) => [item.kind, item.subject])).toEqual([['commit', 'new work'], ['checkout', '']]);
    expect(next.entries[1]?.end).toBe(next.size);
    expect(next.cursor.offset).toBe(next.size);
    const again = await readReflogTail(file, next.cursor);
    expect(again).toMatchObject({ mode: 'unchanged', entries: [], bytesRead: 0 });
  });

  it('leaves a partial last line for the next read', async () => {
    writeFileSync(file, entry('commit: one'));
    const first = await readReflogTail(file, undefined);
    const line = entry('commit: two');
    appendFileSync(file, line.slice(0, 50));
    const partial = await readReflogTail(file, first.cursor);
    expect(partial.entries).toEqual([]);
    expect(partial.cursor.offset).toBe(first.cursor.offset);
    appendFileSync(file, line.slice(50));
    const complete = await readReflogTail(file, partial.cursor);
    expect(complete.entries.map((item) => item.subject)).toEqual(['two']);
  });

  it('re-reads a rewritten file from the start and returns only entries from the newest second it had seen', async () => {
    const old = [entry('commit: a', 1000), entry('commit: b', 2000), entry('commit: c', 3000)];
    writeFileSync(file, old.join(''));
    const first = await readReflogTail(file, undefined);
    // reflog expire: git writes a new file (lock + rename) without the oldest entries.
    const replacement = join(dir, 'HEAD.lock');
    writeFileSync(replacement, old.slice(1).join('') + entry('commit: d', 4000));
    renameSync(replacement, file);
    const read = await readReflogTail(file, first.cursor);
    expect(read.mode).toBe('rewritten');
    expect(read.entries.map((item) => item.subject)).toEqual(['c', 'd']);
    expect(read.cursor.offset).toBe(read.size);
    expect(read.cursor.lastTimestamp).toBe(4000);
  });

  it('re-reads a file truncated in place', async () => {
    writeFileSync(file, entry('commit: a', 1000) + entry('commit: b', 2000));
    const first = await readReflogTail(file, undefined);
    truncateSync(file, 0);
    appendFileSync(file, entry('commit: after truncation', 5000));
    const read = await readReflogTail(file, first.cursor);
    expect(read.mode).toBe('rewritten');
    expect(read.entries.map((item) => item.subject)).toEqual(['after truncation']);
  });

  it('treats a file whose first line changed as rewritten when the inode cannot tell', async () => {
    writeFileSync(file, entry('commit: a', 1000) + entry('commit: b', 2000));
    const first = await readReflogTail(file, undefined);
    writeFileSync(file, entry('commit: x', 1500) + entry('commit: y', 2500) + entry('commit: z', 3500));
    const read = await readReflogTail(file, { ...first.cursor, inode: 0 });
    expect(read.mode).toBe('rewritten');
    expect(read.entries.map((item) => item.subject)).toEqual(['y', 'z']);
    const same = await readReflogTail(file, { ...read.cursor, inode: 0 });
    expect(same.mode).toBe('unchanged');
  });

  it('handles a repository without commits: no file, then its first commit is new', async () => {
    const missing = await readReflogTail(file, undefined);
    expect(missing).toMatchObject({ mode: 'missing', entries: [], cursor: NO_REFLOG });
    writeFileSync(file, `${ZERO} ${hash()} Demo User <a@b.c> 1795335000 +0000\tcommit (initial): the very first\n`);
    const read = await readReflogTail(file, missing.cursor);
    expect(read.mode).toBe('rewritten');
    expect(read.entries.map((item) => [item.kind, item.subject])).toEqual([['initial', 'the very first']]);
  });

  it('skips garbage lines and decodes UTF-8', async () => {
    writeFileSync(file, entry('commit: start'));
    const first = await readReflogTail(file, undefined);
    appendFileSync(file, `garbage\n${entry('commit: Grüße 🎉 ünïcödé')}`);
    const read = await readReflogTail(file, first.cursor);
    expect(read.entries.map((item) => item.subject)).toEqual(['Grüße 🎉 ünïcödé']);
  });

  it('reads a log larger than one chunk, with a character split across the chunk boundary', async () => {
    const prefix = entry('commit: x');
    const lead = `${hash()} ${hash()} Demo User <a@b.c> 1795335278 +0000\tcommit: `;
    const chunk = 1024 * 1024;
    // Pad so that the first byte of "🎉" (4 bytes) sits 2 bytes before the chunk boundary.
    const padding = 'p'.repeat(chunk - Buffer.byteLength(prefix) - Buffer.byteLength(lead) - 2);
    writeFileSync(file, `${prefix}${lead}${padding}🎉 end\n${entry('commit: last')}`);
    const read = await readReflogTail(file, NO_REFLOG);
    expect(read.mode).toBe('rewritten');
    expect(read.entries.map((item) => item.subject.slice(-7))).toEqual(['x', 'p🎉 end', 'last']);
    expect(read.bytesRead).toBe(read.size);
  });
});
