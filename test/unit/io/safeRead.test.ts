// The safe reader refuses what would hang or flood a hook (a FIFO, a device, a huge file, a link
// out of the project) before reading a byte of it, and reads regular files, whole or line by line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileRanges, readLines, readTextFile, UnreadableFileError, type FileLine } from '../../../src/io/safeRead';

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'beads-safe-read-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const posix = process.platform !== 'win32';

function file(name: string, text: string): string {
  const at = path.join(scratch, name);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, text);
  return at;
}

async function lines(at: string, maxBytes = 1 << 30): Promise<FileLine[]> {
  const found: FileLine[] = [];
  for await (const line of (await readLines(at, { maxBytes }))!) found.push(line);
  return found;
}

describe('readTextFile', () => {
  it('reads a regular file, and says undefined for a missing one', async () => {
    expect(await readTextFile(file('plain.txt', 'héllo\n'), { maxBytes: 100 })).toBe('héllo\n');
    expect(await readTextFile(path.join(scratch, 'missing.txt'), { maxBytes: 100 })).toBeUndefined();
  });

  it('reads a small file inline and a file over a megabyte in chunks, byte for byte', async () => {
    const small = 'ü'.repeat(1000);
    // Not a multiple of the chunk: the last read is a short one.
    const large = `${'0123456789abcdef'.repeat(70_000)}é`;
    expect(await readTextFile(file('small.txt', small), { maxBytes: 1 << 30 })).toBe(small);
    expect(await readTextFile(file('large.txt', large), { maxBytes: 1 << 30 })).toBe(large);
    await expect(readTextFile(path.join(scratch, 'large.txt'), { maxBytes: 1 << 20 })).rejects.toMatchObject({ reason: 'too-large' });
  });

  it('refuses a file over the cap, naming it and its size, without reading it', async () => {
    const big = file('big.txt', 'x'.repeat(2048));
    await expect(readTextFile(big, { maxBytes: 1024 })).rejects.toMatchObject({ reason: 'too-large', message: expect.stringMatching(/big\.txt is 2048 bytes, more than the 1024 bytes read at most/) });
  });

  it('refuses a folder as EISDIR', async () => {
    mkdirSync(path.join(scratch, 'folder'));
    await expect(readTextFile(path.join(scratch, 'folder'), { maxBytes: 100 })).rejects.toMatchObject({ reason: 'not-a-file', code: 'EISDIR' });
  });

  it.skipIf(!posix)('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = path.join(scratch, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Without a non-blocking open this never settles: the test's own timeout fails it.
    await expect(readTextFile(fifo, { maxBytes: 100 })).rejects.toThrow(/named pipe \(FIFO\), not a regular file/);
  });

  it.skipIf(!posix)('refuses a link to /dev/urandom or /dev/zero: devices are not files', async () => {
    const random = path.join(scratch, 'random.jsonl');
    symlinkSync('/dev/urandom', random);
    await expect(readTextFile(random, { maxBytes: 1 << 30 })).rejects.toThrow(/character device, not a regular file; it was not read/);
    await expect(readTextFile('/dev/zero', { maxBytes: 1 << 30 })).rejects.toBeInstanceOf(UnreadableFileError);
  });

  it.skipIf(!posix)('with `within`, follows a link inside that folder and refuses one that leads out', async () => {
    const project = path.join(scratch, 'project');
    const inside = file('project/exports/issues.jsonl', '{"id":"a"}\n');
    const outside = file('elsewhere/secret.txt', 'secret\n');
    symlinkSync(inside, path.join(project, 'linked-inside'));
    symlinkSync(outside, path.join(project, 'linked-outside'));
    expect(await readTextFile(path.join(project, 'linked-inside'), { maxBytes: 100, within: project })).toBe('{"id":"a"}\n');
    await expect(readTextFile(path.join(project, 'linked-outside'), { maxBytes: 100, within: project })).rejects.toMatchObject({
      reason: 'outside',
      message: expect.stringContaining(`is a symbolic link to ${outside}, outside ${project}`),
    });
    // Without `within` a link is followed (our own state folders), still only to a regular file.
    expect(await readTextFile(path.join(project, 'linked-outside'), { maxBytes: 100 })).toBe('secret\n');
  });
});

describe('readLines', () => {
  it('gives each line without its line end, and a last line without a newline as incomplete, each with its place in bytes', async () => {
    expect(await lines(file('lines.txt', 'one\r\ntwo\n\nthreé'))).toEqual([
      { text: 'one', complete: true, offset: 0, bytes: 4 },
      { text: 'two', complete: true, offset: 5, bytes: 3 },
      { text: '', complete: true, offset: 9, bytes: 0 },
      { text: 'threé', complete: false, offset: 10, bytes: 6 },
    ]);
    expect(await lines(file('empty.txt', ''))).toEqual([]);
  });

  it('joins a line that spans read chunks, multi-byte characters cut between them included', async () => {
    // The reader takes 1 MiB at a time: a 3 MiB line of two-byte characters crosses two chunk ends, one inside a character.
    const long = 'é'.repeat(1.5 * 1024 * 1024 + 1);
    const at = file('long.txt', `short\n${long}\nend\n`);
    const found = await lines(at);
    expect(found).toEqual([
      { text: 'short', complete: true, offset: 0, bytes: 5 },
      { text: long, complete: true, offset: 6, bytes: 2 * long.length },
      { text: 'end', complete: true, offset: 7 + 2 * long.length, bytes: 3 },
    ]);
    // Each line's place reads it back.
    const again = await readFileRanges(at, [...found].reverse(), { maxBytes: 1 << 30 });
    expect(again!.map((bytes) => bytes.toString('utf8'))).toEqual(['end', long, 'short']);
  });

  it('reads ranges of a file under the same checks, cut at its end, and undefined for a missing file', async () => {
    const at = file('ranges.txt', '0123456789');
    expect((await readFileRanges(at, [{ offset: 2, bytes: 3 }, { offset: 8, bytes: 10 }, { offset: 20, bytes: 1 }], { maxBytes: 100 }))!.map(String)).toEqual(['234', '89', '']);
    await expect(readFileRanges(at, [{ offset: 0, bytes: 1 }], { maxBytes: 4 })).rejects.toMatchObject({ reason: 'too-large' });
    expect(await readFileRanges(path.join(scratch, 'none.txt'), [], { maxBytes: 4 })).toBeUndefined();
  });

  it('stops at the cap a file that grew after it was opened, and is undefined for a missing file', async () => {
    const at = file('growing.txt', 'a\n');
    const reading = await readLines(at, { maxBytes: 4 });
    writeFileSync(at, 'a\nbbbbbbbb\n');
    await expect(async () => {
      for await (const line of reading!) void line;
    }).rejects.toMatchObject({ reason: 'too-large' });
    expect(await readLines(path.join(scratch, 'nothing.txt'), { maxBytes: 4 })).toBeUndefined();
  });
});
