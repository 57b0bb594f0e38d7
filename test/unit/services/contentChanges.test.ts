// An edit is a change of content, judged on a settled read: a save truncates, then writes, and a
// loaded machine may leave the writer between the two when the events' quiet time is over.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentChanges } from '../../../src/services/contentChanges';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'content-changes-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const contents = () => new ContentChanges({ root, inGit: false, timeoutMs: 5_000 });

describe('ContentChanges', () => {
  it('counts a new file and a real change, not the same bytes written again', async () => {
    const changes = contents();
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    expect(await changes.changed(['a.txt'])).toEqual(new Set(['a.txt']));
    writeFileSync(path.join(root, 'a.txt'), 'one\n');
    expect(await changes.changed(['a.txt'])).toEqual(new Set());
    writeFileSync(path.join(root, 'a.txt'), 'two\n');
    expect(await changes.changed(['a.txt'])).toEqual(new Set(['a.txt']));
  });

  it('reads a file caught between the truncation and the write of a save again, once it has settled', async () => {
    const changes = contents();
    const file = path.join(root, 'saved.txt');
    writeFileSync(file, 'as committed\n');
    await changes.changed(['saved.txt']);
    // The save has truncated the file when the comparison starts; its write lands a moment later.
    truncateSync(file, 0);
    const judged = changes.changed(['saved.txt']);
    await new Promise((resolve) => setTimeout(resolve, 30));
    writeFileSync(file, 'as committed\n');
    expect(await judged).toEqual(new Set());
  });

  it('waits for a burst of saves of the same bytes to end, rather than judging a read between a truncation and its write', async () => {
    const changes = contents();
    const file = path.join(root, 'saved.txt');
    writeFileSync(file, 'as committed\n');
    await changes.changed(['saved.txt']);
    // Saves for over a second, each leaving the file empty most of the time before its write (a
    // loaded machine's scheduling, drawn out): a read taken while they go on mostly finds it empty.
    let saving = true;
    const saves = (async () => {
      const until = Date.now() + 1_200;
      while (Date.now() < until) {
        truncateSync(file, 0);
        await new Promise((resolve) => setTimeout(resolve, 80));
        writeFileSync(file, 'as committed\n');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      saving = false;
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await changes.changed(['saved.txt'])).toEqual(new Set());
    expect(saving, 'judged only once the saves were over').toBe(false);
    await saves;
  });
});
