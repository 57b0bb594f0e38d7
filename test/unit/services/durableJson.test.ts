import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableJsonFile, salvageJsonObject } from '../../../src/services/durableJson';

describe('salvageJsonObject', () => {
  it('keeps the members and elements that still parse of a file cut short', () => {
    const whole = JSON.stringify({ version: 1, pending: [{ key: 'a' }, { key: 'b, with "quotes" and } braces' }, { key: 'c' }], done: [{ key: 'd' }] });
    const cut = whole.slice(0, whole.indexOf('"c"') + 2);
    expect(salvageJsonObject(cut)).toEqual({ version: 1, pending: [{ key: 'a' }, { key: 'b, with "quotes" and } braces' }] });
  });

  it('skips garbage inside an array or object and keeps the rest', () => {
    const text = '{"version":1,"pending":[{"key":"a"},{"key":\u0000garbage},{"key":"c"}],"ledgers":{"x":{"n":1},"y":{oops},"z":{"n":3}}}';
    expect(salvageJsonObject(text)).toEqual({ version: 1, pending: [{ key: 'a' }, { key: 'c' }], ledgers: { x: { n: 1 }, z: { n: 3 } } });
  });

  it('gives up on text that does not start an object', () => {
    expect(salvageJsonObject('garbage')).toBeUndefined();
  });
});

describe('DurableJsonFile lock', () => {
  it('breaks a stale lock file left by 0.1.0, whose lock was a file where the lock directory goes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-legacy-'));
    const file = path.join(dir, 'ledger.json');
    fs.writeFileSync(`${file}.lock`, '');
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, longAgo, longAgo);
    const store = new DurableJsonFile<{ n: number }>({ file, empty: () => ({ n: 0 }), parse: (value) => value as { n: number }, lockWaitMs: 1_000 });
    await store.locked(() => store.write({ n: 1 }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ n: 1 });
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
