#!/usr/bin/env node
// `npm run bench`: prints figures, asserts nothing. Each scripts/bench/* module exports async
// functions named bench*; they are bundled with esbuild (they import the TypeScript sources
// directly) and run one after another, so their timings do not disturb each other.
import * as esbuild from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const sources = readdirSync(path.join(repo, 'scripts/bench'))
  .filter((name) => /\.(ts|mjs)$/.test(name))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

// Inside node_modules, so the bundles resolve their (external) packages from the project.
mkdirSync(path.join(repo, 'node_modules/.cache'), { recursive: true });
// The fixture scripts find their data relative to their own location: import them where they are.
const keepFixturesInPlace = {
  name: 'keep-fixtures-in-place',
  setup(build) {
    build.onResolve({ filter: /\.mjs$/ }, (args) => args.kind === 'entry-point' ? undefined : ({ path: pathToFileURL(path.resolve(args.resolveDir, args.path)).href, external: true }));
  },
};

const outdir = mkdtempSync(path.join(repo, 'node_modules/.cache/beads-bench-'));
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
      packages: 'external',
      plugins: [keepFixturesInPlace],
    });
    const module = await import(pathToFileURL(outfile).href);
    for (const [name, run] of Object.entries(module)) {
      if (!name.startsWith('bench') || typeof run !== 'function') continue;
      console.log(`\n## ${source} — ${name}`);
      // The words after the bench's name choose within it too (`npm run bench agents claude`).
      await run({ repo, words: only });
    }
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
