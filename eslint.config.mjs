// Lint keeps the architecture's boundaries (ARCHITECTURE §2): only src/adapters and
// src/extension.ts may import `vscode`, and src/core stays pure (no I/O, no processes).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeIoModules = ['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'os', 'path', 'worker_threads', 'execa', 'readline', 'dgram', 'cluster', 'process'];
const withNodePrefix = nodeIoModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/adapters/**', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/adapters and src/extension.ts may import vscode.' }] }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/shared/**/*.ts', 'media/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'src/core is pure: no vscode.' },
          ...withNodePrefix.map((name) => ({ name, message: 'src/core is pure: pass data in, do the I/O in src/beads, src/git or an adapter.' })),
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'src/core is pure: pass what you need in.' },
        { name: 'fetch', message: 'src/core is pure: no network.' },
        { name: 'require', message: 'src/core is pure.' },
      ],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'src/core takes time as a parameter.' }],
    },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', 'scripts/**/*.js'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Mocha provides these inside the extension host; the files may also require them from 'mocha'.
    files: ['test/integration/**/*.cjs'],
    languageOptions: { globals: { describe: 'readonly', it: 'readonly', before: 'readonly', after: 'readonly', beforeEach: 'readonly', afterEach: 'readonly' } },
  },
  {
    // Callbacks passed to page.evaluate() run in the browser.
    files: ['test/e2e/**/*.mjs'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', navigator: 'readonly', HTMLElement: 'readonly' } },
  },
);
