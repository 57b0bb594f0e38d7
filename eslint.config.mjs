// Lint keeps the architecture's boundaries (docs/ARCHITECTURE.md §2): only src/adapters and
// src/extension.ts may import `vscode`; src/core is pure (no I/O, no other layer, no clock);
// src/beads, src/git and src/services never reach up into the adapters; the webview (media/)
// shares only the message protocol in src/shared; notifications go through src/adapters/notify.ts. test/unit/project/lintRules.test.ts lints one probe
// per rule, so a rule that stops biting fails a test.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Every Node built-in, bare and `node:`-prefixed, with its subpaths (`fs`, `node:fs/promises`).
const nodeBuiltins = [...new Set(builtinModules.map((name) => name.replace(/^node:/, '')))]
  .flatMap((name) => [name, `${name}/*`, `node:${name}`, `node:${name}/*`]);

// A layer named at any relative depth: `../beads/runCli`, `../../src/beads/runCli`, `./adapters`.
const layer = (name) => [`**/${name}`, `**/${name}/**`, `${name}`, `${name}/**`];

const vscodeOnlyInAdapters = { name: 'vscode', message: 'Only src/adapters and src/extension.ts may import vscode.' };
const exportDefaultBan = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' };
const notifyMessage = 'Show notifications through src/adapters/notify.ts, which keeps issue data in a message from becoming a command link.';
const clockMessage = 'src/core takes time as a parameter: read the clock in src/services, src/bin or an adapter.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', exportDefaultBan],
    },
  },
  {
    // Typed linting, for the rules that need types: every TypeScript file the project compiles.
    files: ['src/**/*.ts', 'media/**/*.ts', 'test/unit/**/*.ts', 'test/integration/**/*.ts', 'test/agents/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parserOptions: {
        // scripts/bench/*.ts sit outside tsconfig.json (nothing compiles them); lint them with the default project.
        projectService: { allowDefaultProject: ['scripts/bench/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits loses its rejection: await it, return it, or mark it `void` on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/adapters/**', 'src/extension.ts', 'src/core/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscodeOnlyInAdapters] }],
    },
  },
  {
    files: ['src/adapters/**/*.ts', 'src/extension.ts'],
    ignores: ['src/adapters/notify.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        exportDefaultBan,
        { selector: "MemberExpression[object.property.name='window'][property.name=/^show(Information|Warning|Error)Message$/]", message: notifyMessage },
      ],
    },
  },
  {
    files: ['src/beads/**/*.ts', 'src/git/**/*.ts', 'src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [vscodeOnlyInAdapters],
        patterns: [{ group: [...layer('adapters'), ...layer('extension')], message: 'src/beads, src/git and src/services never import the adapters: pass what they need in.' }],
      }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core is pure: no vscode.' }],
        patterns: [
          { group: nodeBuiltins, message: 'src/core is pure: pass data in, do the I/O in src/beads, src/git, src/services or an adapter.' },
          { group: ['beads', 'git', 'services', 'adapters', 'bin', 'extension'].flatMap(layer), message: 'src/core imports no other layer (only ./core and ../shared): the other layers call core, never the reverse.' },
          { group: ['execa', 'execa/**'], message: 'src/core runs no process.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'src/core is pure: pass what you need in.' },
        { name: 'fetch', message: 'src/core is pure: no network.' },
        { name: 'require', message: 'src/core is pure.' },
      ],
      'no-restricted-syntax': ['error',
        exportDefaultBan,
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: clockMessage },
        { selector: "CallExpression[callee.name='Date']", message: clockMessage },
      ],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: clockMessage },
        { object: 'performance', property: 'now', message: clockMessage },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts', 'media/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview and its protocol run in the browser: no vscode.' }],
        patterns: [
          { group: nodeBuiltins, message: 'The webview and its protocol run in the browser: no Node built-ins.' },
          { group: ['**/src/**', '!**/src/shared', '!**/src/shared/**'], message: 'The webview shares only the message protocol in src/shared with the extension.' },
          { group: ['core', 'beads', 'git', 'services', 'adapters', 'bin', 'extension'].flatMap((name) => [`../${name}`, `../${name}/**`]), message: 'src/shared is the protocol only: it imports no layer.' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'The webview runs in the browser.' }, { name: 'require', message: 'The webview runs in the browser.' }],
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
