// Builds the extension host bundle, the command-line entry and the webview script.
// Warnings fail the build: they are how esbuild reports mistakes it can still work around.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const watch = process.argv.includes('--watch');
const production = !watch;

// jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow; its `module` build is plain ESM.
const nodeMainFields = ['module', 'main'];

/** @type {esbuild.BuildOptions[]} */
const targets = [
  {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    mainFields: nodeMainFields,
  },
  // The command line: dist/cli.js is a launcher that loads dist/hook.js for `hook` (what every agent
  // hook event starts: small, so outside a beads project it costs little more than a bare node
  // start; at a new conversation's start it loads dist/hookStart.js, which answers from the start
  // block's cache; it loads dist/hookWork.js only where a beads folder may be and the cache did not
  // answer) and dist/main.js for everything else.
  {
    entryPoints: ['src/bin/launch.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['./hook.js', './main.js'],
  },
  {
    entryPoints: ['src/bin/hookMain.ts'],
    outfile: 'dist/hook.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['./hookStart.js', './hookWork.js'],
  },
  {
    entryPoints: ['src/bin/hookStart.ts'],
    outfile: 'dist/hookStart.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: nodeMainFields,
  },
  {
    entryPoints: ['src/bin/hookWork.ts'],
    outfile: 'dist/hookWork.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: nodeMainFields,
  },
  {
    entryPoints: ['src/bin/cli.ts'],
    outfile: 'dist/main.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: nodeMainFields,
  },
  {
    entryPoints: ['media/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  {
    entryPoints: ['media/webview/sidebar.css'],
    outfile: 'dist/webview.css',
    target: 'chrome120',
  },
];

// The sidebar webview's script budget (issue 4): it loads on every view show.
const WEBVIEW_SCRIPT_LIMIT = 150 * 1024;

// The webview loads only from dist/ (its localResourceRoots), and the VSIX ships dist/ but not
// node_modules/, so the codicon font comes along as a copy.
function copyCodicons() {
  mkdirSync('dist/codicons', { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);
}

// `import text from './file.js?raw'`: the file's text as a string, as vitest reads it too. The opencode
// plugin (src/plugins/opencode.js) is a source file of its own that the install writes whole.
const rawText = {
  name: 'raw-text',
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)), namespace: 'raw-text' }));
    build.onLoad({ filter: /.*/, namespace: 'raw-text' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text', watchFiles: [args.path] }));
  },
};

const common = { plugins: [rawText], bundle: true, minify: production, sourcemap: production ? false : 'linked', logLevel: 'warning', metafile: true };

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
copyCodicons();
await build();
if (production && statSync('dist/webview.js').size > WEBVIEW_SCRIPT_LIMIT) {
  console.error(`esbuild: dist/webview.js is ${statSync('dist/webview.js').size} bytes, over the ${WEBVIEW_SCRIPT_LIMIT}-byte budget`);
  process.exit(1);
}
