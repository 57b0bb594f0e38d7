// io/atomicWrite.ts: a state file is replaced whole, through a temporary file that never stays behind.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../src/io/atomicWrite';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'atomic-write-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces the file whole and leaves only the file', async () => {
    const file = path.join(dir, 'state.json');
    writeFileSync(file, 'a much longer text than the one that replaces it');
    await Promise.all([writeFileAtomic(file, '{"a":1}\n'), writeFileAtomic(path.join(dir, 'other.json'), '{}')]);
    await writeFileAtomic(file, '{"b":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"b":2}\n');
    expect(readdirSync(dir).sort()).toEqual(['other.json', 'state.json']);
  });

  it('replaces a link at the name with the file, and writes nothing through it', async () => {
    const target = path.join(dir, 'target');
    writeFileSync(target, 'untouched');
    const file = path.join(dir, 'state.json');
    symlinkSync(target, file);
    await writeFileAtomic(file, 'new');
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(readFileSync(file, 'utf8')).toBe('new');
  });

  it('throws where the file cannot be written, and leaves no temporary file', async () => {
    const file = path.join(dir, 'state.json');
    // A folder at the name: the rename cannot replace it.
    await import('node:fs').then(({ mkdirSync }) => mkdirSync(file));
    await expect(writeFileAtomic(file, 'x')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});
