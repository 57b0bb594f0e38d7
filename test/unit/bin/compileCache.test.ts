// The hook's work bundle is loaded through V8's code cache (src/bin/compileCache.ts): the first load
// writes the cache after the work, the next loads take it, and a cache V8 refuses (damaged, made
// for another source) costs nothing but a fresh compile, after which it is written again. Each load
// is a process of its own, as each hook is: within one process V8 keeps what it compiled anyway.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCacheDir } from '../../../src/bin/compileCache';

const repo = path.resolve(__dirname, '../../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'beads-compile-cache-'));
const loader = path.join(scratch, 'loader.cjs');

// The child: loads the file through the cache, answers with what it got, then saves the cache (as hook.js does after its answer).
const LOADER_SOURCE = `
import { requireWithCompileCache } from ${JSON.stringify(path.join(repo, 'src/bin/compileCache.ts'))};
const [file, cacheDir] = process.argv.slice(2);
void requireWithCompileCache<{ answer(question: string): string }>(file, cacheDir).then(async (loaded) => {
  process.stdout.write(JSON.stringify({ cacheUsed: loaded.cacheUsed, answer: loaded.exports.answer('olleh') }));
  await loaded.saveCache();
});
`;

beforeAll(async () => {
  const entry = path.join(scratch, 'loader.ts');
  writeFileSync(entry, LOADER_SOURCE);
  await esbuild.build({ entryPoints: [entry], outfile: loader, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A CommonJS file like a bundle of the build: a built-in it requires and a function to compile. */
function writeBundle(name: string, answer = '`${path.basename(__filename)}: ${question.split("").reverse().join("")}`'): string {
  const file = path.join(scratch, name, 'work.js');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, ["'use strict';", "const path = require('node:path');", `exports.answer = (question) => ${answer};`, ''].join('\n'));
  return file;
}

function load(file: string, cacheDir: string): { cacheUsed: boolean; answer: string } {
  return JSON.parse(execFileSync(process.execPath, [loader, file, cacheDir], { encoding: 'utf8' })) as { cacheUsed: boolean; answer: string };
}

function cacheFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.cache'));
  } catch {
    return [];
  }
}

describe('requireWithCompileCache', () => {
  it('loads the file as require would, writes the cache after the work, and the next process takes it', () => {
    const file = writeBundle('first');
    const cacheDir = path.join(scratch, 'cache-first');
    expect(load(file, cacheDir)).toEqual({ cacheUsed: false, answer: 'work.js: hello' });
    expect(cacheFiles(cacheDir)).toHaveLength(1);
    const [cache = ''] = cacheFiles(cacheDir);
    const written = statSync(path.join(cacheDir, cache)).mtimeMs;
    expect(load(file, cacheDir)).toEqual({ cacheUsed: true, answer: 'work.js: hello' });
    // A cache that served is not written again.
    expect(statSync(path.join(cacheDir, cache)).mtimeMs).toBe(written);
  });

  it('compiles afresh when V8 refuses the cache (damaged), and writes a good one again', () => {
    const file = writeBundle('damaged');
    const cacheDir = path.join(scratch, 'cache-damaged');
    load(file, cacheDir);
    const [cache = ''] = cacheFiles(cacheDir);
    writeFileSync(path.join(cacheDir, cache), 'not V8 data at all');
    expect(load(file, cacheDir)).toEqual({ cacheUsed: false, answer: 'work.js: hello' });
    expect(load(file, cacheDir)).toEqual({ cacheUsed: true, answer: 'work.js: hello' });
  });

  it('keeps a cache per version of the file: a rebuilt file is not served the old one, whose cache goes', () => {
    const cacheDir = path.join(scratch, 'cache-rebuilt');
    const file = writeBundle('rebuilt');
    load(file, cacheDir);
    const [old] = cacheFiles(cacheDir);
    writeBundle('rebuilt', '"rebuilt"');
    expect(load(file, cacheDir)).toEqual({ cacheUsed: false, answer: 'rebuilt' });
    expect(cacheFiles(cacheDir)).toHaveLength(1);
    expect(cacheFiles(cacheDir)).not.toContain(old);
  });

  it('loads plainly when the cache folder cannot be written, and says nothing', () => {
    // A file where the folder should be: mkdir fails.
    const cacheDir = path.join(scratch, 'cache-is-a-file');
    writeFileSync(cacheDir, '');
    expect(load(writeBundle('unwritable'), cacheDir)).toEqual({ cacheUsed: false, answer: 'work.js: hello' });
  });

  it('keeps the cache beside the file, with the rights of the code itself, by default', () => {
    const file = writeBundle('beside');
    expect(compileCacheDir(file)).toBe(path.join(path.dirname(file), 'compile-cache'));
    execFileSync(process.execPath, [loader, file], { encoding: 'utf8' });
    expect(cacheFiles(compileCacheDir(file))).toHaveLength(1);
  });
});
