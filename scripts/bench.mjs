#!/usr/bin/env node
// `npm run bench`: prints figures, asserts nothing. Each scripts/bench/* module exports async
// functions named bench*; they are bundled with esbuild (they import the TypeScript sources
// directly) and run one after another, so their timings do not disturb each other.
import * as esbuild from 'esbuild';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const sources = readdirSync(path.join(repo, 'scripts/bench'))
  .filter((name) => /\.(ts|mjs)$/.test(name))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

const outdir = mkdtempSync(path.join(tmpdir(), 'beads-bench-'));
try {
  for (const source of sources) {
    const outfile = path.join(outdir, source.replace(/\.(ts|mjs)$/, '.mjs'));
    await esbuild.build({
      entryPoints: [path.join(repo, 'scripts/bench', source)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      // Bundled CommonJS dependencies (execa's helpers) call require(): give ESM output one.
      banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
    });
    const module = await import(pathToFileURL(outfile).href);
    for (const [name, run] of Object.entries(module)) {
      if (!name.startsWith('bench') || typeof run !== 'function') continue;
      console.log(`\n## ${source} — ${name}`);
      await run({ repo });
    }
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
