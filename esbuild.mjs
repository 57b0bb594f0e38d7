// Builds the extension host bundle, the command-line entry and the webview script.
// Warnings fail the build: they are how esbuild reports mistakes it can still work around.
import * as esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = !watch;

/** @type {esbuild.BuildOptions[]} */
const targets = [
  {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    entryPoints: ['src/bin/cli.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
];

const common = { bundle: true, minify: production, sourcemap: production ? false : 'linked', logLevel: 'warning', metafile: true };

async function build() {
  const contexts = await Promise.all(targets.map((options) => esbuild.context({ ...common, ...options })));
  if (watch) {
    await Promise.all(contexts.map((context) => context.watch()));
    return;
  }
  let warnings = 0;
  for (const context of contexts) {
    const result = await context.rebuild();
    warnings += result.warnings.length;
    await context.dispose();
  }
  if (warnings > 0) {
    console.error(`esbuild: ${warnings} warning(s); failing the build`);
    process.exit(1);
  }
}

mkdirSync('dist', { recursive: true });
await build();
