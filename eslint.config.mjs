// Lint keeps the architecture's boundaries (docs/ARCHITECTURE.md §2): only src/adapters and
// src/extension.ts may import `vscode`; src/core is pure (no I/O, no other layer, no clock);
// src/beads, src/git and src/services never reach up into the adapters; the webview (media/)
// shares only the message protocol in src/shared; notifications go through src/adapters/notify.ts;
// processes start only in src/beads/runCli.ts; and the "one way" conventions of ARCHITECTURE.md §3
// that a pattern can see. test/unit/project/lintRules.test.ts lints one probe per rule, so a rule
// that stops biting fails a test.
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

// One runCli (src/beads/runCli.ts) starts every process; processRegistry.ts beside it ends them
// (taskkill on Windows). Every way of reaching child_process or execa: a static import or
// re-export, import(), require(), with or without `node:`.
const processMessage = 'Run processes through runCli (src/beads/runCli.ts): argument arrays, timeouts, process groups killed whole.';
const processModules = ['child_process', 'node:child_process', 'execa'];
const processImportBan = { group: [...processModules, ...processModules.map((name) => `${name}/*`)], message: processMessage };
const processModulePattern = '/^(node:)?child_process(\\/.*)?$|^execa(\\/.*)?$/';
const processSyntaxBans = [
  { selector: `ImportExpression[source.value=${processModulePattern}]`, message: processMessage },
  { selector: `CallExpression[callee.name='require'][arguments.0.value=${processModulePattern}]`, message: processMessage },
];

// One short hash: fnv1a (src/core/hash.ts). contentChanges.ts computes git's own blob ids (SHA-1), which are not ours to choose.
const hashMessage = 'Use fnv1a (src/core/hash.ts), the one stable short hash of the house.';
const hashImportBans = ['crypto', 'node:crypto'].map((name) => ({ name, importNames: ['createHash', 'createHmac'], message: hashMessage }));

// One way to turn a thrown value into text: errorMessage (src/core/errors.ts).
const errorTextBan = {
  selector: "CallExpression[callee.name='String'][arguments.length=1][arguments.0.name=/^(e|err|error|reason|cause|caught|failure)$/]",
  message: 'Use errorMessage (src/core/errors.ts) for the text of a thrown value.',
};
// One code-unit comparison of strings: compareText (src/core/compare.ts).
const compareTextBan = {
  selector: "ConditionalExpression[test.operator='<'][consequent.operator='-'][consequent.argument.value=1][alternate.type='ConditionalExpression'][alternate.test.operator='>']",
  message: 'Use compareText (src/core/compare.ts) for a code-unit comparison.',
};
const oneWayBans = [errorTextBan, compareTextBan];

// One way to read a file: src/services/safeRead.ts (non-blocking open, regular files only, a size
// cap). fs's whole-file readers would block on a FIFO and read a device or a huge file to the end.
const readMessage = 'Read files through src/services/safeRead.ts (readTextFile, readLines): a FIFO, a device or a huge file would hang or flood the process.';
const fsModules = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
const readImportBans = fsModules.map((name) => ({ name, importNames: ['readFile', 'readFileSync', 'createReadStream'], message: readMessage }));
const readSyntaxBans = [
  { selector: 'MemberExpression[object.name=/^(fs|fsp|fsPromises|promises)$/][property.name=/^(readFile|readFileSync|createReadStream)$/]', message: readMessage },
];

const lowerLayersUp = { group: [...layer('adapters'), ...layer('extension')], message: 'src/beads, src/git and src/services never import the adapters: pass what they need in.' };

const notifyBans = [
  // vscode.window.showInformationMessage, window.showErrorMessage (a named or destructured `window`), an alias of either.
  { selector: 'MemberExpression[property.name=/^show\\w*Message$/]', message: notifyMessage },
  { selector: 'MemberExpression[computed=true][property.value=/^show\\w*Message$/]', message: notifyMessage },
  // const { showWarningMessage } = vscode.window
  { selector: 'ObjectPattern > Property[key.name=/^show\\w*Message$/]', message: notifyMessage },
  { selector: "ImportDeclaration[source.value='vscode'] > ImportSpecifier[imported.name='window']", message: `${notifyMessage} Reach the rest of the window API as vscode.window.` },
];

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
    files: ['src/**/*.ts'],
    ignores: ['src/core/**', 'src/adapters/**', 'src/extension.ts', 'src/beads/runCli.ts', 'src/beads/processRegistry.ts', 'src/services/safeRead.ts'],
    rules: { 'no-restricted-syntax': ['error', exportDefaultBan, ...processSyntaxBans, ...readSyntaxBans, ...oneWayBans] },
  },
  {
    // The process layer starts and ends processes; its registry reads its own 0700 folder and /proc synchronously.
    files: ['src/beads/runCli.ts', 'src/beads/processRegistry.ts'],
    rules: { 'no-restricted-syntax': ['error', exportDefaultBan, ...oneWayBans] },
  },
  {
    files: ['src/services/safeRead.ts'],
    rules: { 'no-restricted-syntax': ['error', exportDefaultBan, ...processSyntaxBans, ...oneWayBans] },
  },
  {
    // Typed linting, for the rules that need types: every TypeScript file the project compiles.
    files: ['src/**/*.ts', 'media/**/*.ts', 'test/unit/**/*.ts', 'test/integration/**/*.ts', 'test/agents/**/*.ts', 'test/faults/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parserOptions: {
        // scripts/bench/*.ts sit outside tsconfig.json (nothing compiles them); lint them with the default project.
        // callLog.ts is the exception: test/agents imports it, so the project already holds it.
        projectService: { allowDefaultProject: ['scripts/bench/!(callLog).ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits loses its rejection: await it, return it, or mark it `void` on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['src/adapters/**/*.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...hashImportBans, ...readImportBans], patterns: [processImportBan] }],
      'no-restricted-syntax': ['error', exportDefaultBan, ...processSyntaxBans, ...readSyntaxBans, ...oneWayBans, ...notifyBans],
    },
  },
  {
    files: ['src/adapters/notify.ts'],
    rules: { 'no-restricted-syntax': ['error', exportDefaultBan, ...processSyntaxBans, ...readSyntaxBans, ...oneWayBans] },
  },
  {
    files: ['src/bin/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [vscodeOnlyInAdapters, ...hashImportBans, ...readImportBans],
        patterns: [processImportBan, { group: [...layer('adapters'), ...layer('extension')], message: 'src/bin runs without VS Code: it never imports the adapters.' }],
      }],
    },
  },
  {
    files: ['src/beads/**/*.ts', 'src/git/**/*.ts', 'src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [vscodeOnlyInAdapters, ...hashImportBans, ...readImportBans],
        patterns: [processImportBan, lowerLayersUp],
      }],
    },
  },
  {
    // The process layer itself (its registry reads its own files synchronously), and the safe reader.
    files: ['src/beads/runCli.ts', 'src/beads/processRegistry.ts', 'src/services/safeRead.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscodeOnlyInAdapters, ...hashImportBans], patterns: [lowerLayersUp] }],
    },
  },
  {
    // Git's blob ids are SHA-1 by git's definition, not a hash of ours.
    files: ['src/services/contentChanges.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [vscodeOnlyInAdapters, ...readImportBans], patterns: [processImportBan, lowerLayersUp] }],
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
        // globalThis.Date.now(), new globalThis.Date(), globalThis.performance: the clock by another name.
        ...['globalThis', 'global', 'self', 'window'].map((name) => ({ name, message: `src/core is pure: no ${name} (the clock, the process and I/O hide behind it).` })),
      ],
      'no-restricted-syntax': ['error',
        exportDefaultBan,
        ...oneWayBans,
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: clockMessage },
        { selector: "CallExpression[callee.name='Date']", message: clockMessage },
        // import('node:fs') and any other module loaded at run time: core's imports are static, and checked.
        { selector: 'ImportExpression', message: 'src/core imports statically: no import(), which would reach past the import rules.' },
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
