// The lock directory of io/fileLock.ts: proper-lockfile's protocol (a `<file>.lock` directory kept
// fresh by its holder, broken once stale), which the ledger, the outbox, the agent sessions and the
// hook's delivery claims all take.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockHeldError, lockFile } from '../../../src/io/fileLock';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'file-lock-'));
  file = path.join(dir, 'state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('lockFile', () => {
  it('holds `<file>.lock` until released, and a second writer waits for it', async () => {
    const release = await lockFile(file, { staleMs: 10_000, waitMs: 0 });
    expect(statSync(`${file}.lock`).isDirectory()).toBe(true);
    const order: string[] = [];
    const second = lockFile(file, { staleMs: 10_000, waitMs: 5_000 }).then((releaseSecond) => {
      order.push('second holds');
      return releaseSecond;
    });
    await sleep(100);
    order.push('first releases');
    await release();
    await (await second)();
    expect(order).toEqual(['first releases', 'second holds']);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('gives up on a live lock after its wait, saying the lock is held', async () => {
    mkdirSync(`${file}.lock`);
    const started = Date.now();
    const error = await lockFile(file, { staleMs: 10_000, waitMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockHeldError);
    expect((error as LockHeldError).code).toBe('ELOCKED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // Another writer's lock is left as it was.
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('breaks a lock left untouched for longer than the stale time', async () => {
    mkdirSync(`${file}.lock`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    const release = await lockFile(file, { staleMs: 10_000, waitMs: 0 });
    expect(statSync(`${file}.lock`).mtimeMs).toBeGreaterThan(old.getTime() + 30_000);
    await release();
  });

  it('fails at once where no lock can be made, without waiting', async () => {
    writeFileSync(path.join(dir, 'a file'), '');
    const started = Date.now();
    const error = (await lockFile(path.join(dir, 'a file', 'state.json'), { staleMs: 10_000, waitMs: 10_000 }).catch((caught: unknown) => caught)) as NodeJS.ErrnoException;
    expect(error).not.toBeInstanceOf(LockHeldError);
    expect(error.code).toBe('ENOTDIR');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keeps a held lock fresh, so no other writer takes it for stale', async () => {
    // Refreshed every 500 ms: untouched, it would be stale at 1 s.
    const release = await lockFile(file, { staleMs: 1_000, waitMs: 0 });
    await sleep(2_500);
    await expect(lockFile(file, { staleMs: 1_000, waitMs: 0 })).rejects.toBeInstanceOf(LockHeldError);
    await release();
  });

  it('reports a lock broken and taken by another writer while held, and leaves theirs in place', async () => {
    const compromised: string[] = [];
    const release = await lockFile(file, { staleMs: 300, waitMs: 0, onCompromised: (error) => compromised.push(error.message) });
    // Another writer that found it stale: removed, and made again at another time.
    rmSync(`${file}.lock`, { recursive: true });
    mkdirSync(`${file}.lock`);
    const theirs = new Date(Date.now() - 5_000);
    utimesSync(`${file}.lock`, theirs, theirs);
    for (let waited = 0; compromised.length === 0 && waited < 5_000; waited += 50) await sleep(50);
    expect(compromised).toEqual(['another writer broke it as stale and took it']);
    await release();
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('removes the locks a process still holds when it exits', () => {
    const entry = path.join(dir, 'holds.js');
    buildSync({
      stdin: { contents: `import { lockFile } from ${JSON.stringify(path.resolve('src/io/fileLock.ts'))};\nvoid lockFile(process.argv[2], { staleMs: 10000, waitMs: 0 }).then(() => { console.log(require('node:fs').existsSync(process.argv[2] + '.lock')); process.exit(0); });`, resolveDir: dir, loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: entry,
      logLevel: 'silent',
    });
    expect(execFileSync(process.execPath, [entry, file], { encoding: 'utf8' }).trim()).toBe('true');
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });
});
