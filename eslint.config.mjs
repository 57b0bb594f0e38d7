// Lint keeps the architecture's boundaries (docs/ARCHITECTURE.md §2): only src/adapters and
// src/extension.ts may import `vscode`; src/core is pure (no I/O, no other layer, no clock); the
// other layers are floors (io, beads, git, services, bin, adapters), each importing only the ones
// below; the webview (media/) shares only the message protocol in src/shared; the modules with one
// owner (processes, module loading, whole-file reads, hashes, notifications: OWNED below) are
// refused elsewhere however they are reached; and the "one way" conventions of ARCHITECTURE.md §3
// that a pattern can see. test/unit/project/lintRules.test.ts lints one probe per rule, so a rule
// that stops biting fails a test.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Every Node built-in, bare and `node:`-prefixed, with its subpaths (`fs`, `node:fs/promises`).
const nodeBuiltins = [...new Set(builtinModules.map((name) => name.replace(/^node:/, '')))]
  .flatMap((name) => [name, `${name}/*`, `node:${name}`, `node:${name}/*`]);

// A layer named at any relative depth: `../beads/runCli`, `../../src/beads/runCli`, `./adapters`.
const pathsInto = (name) => [`**/${name}`, `**/${name}/**`, `${name}`, `${name}/**`];

const exportDefaultBan = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' };
const clockMessage = 'src/core takes time as a parameter: read the clock in src/services, src/bin or an adapter.';

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

// The layers, lowest floor first (docs/ARCHITECTURE.md §2): each imports only the floors below it
// and its own, so no arrow runs back up. src/core and src/shared, which import no I/O layer at
// all, have their own rules below. Every import in src is a relative path, so a folder's name in
// the path is the layer it reaches; a dynamic import() of a literal path is checked the same way,
// and import() of anything but a literal is refused (nothing could check it).
const FLOORS = ['io', 'beads', 'git', 'services', 'bin', 'adapters'];
const layerFolders = { adapters: ['adapters', 'extension'] };
const foldersOf = (layer) => layerFolders[layer] ?? [layer];
const above = (layer) => FLOORS.slice(FLOORS.indexOf(layer) + 1).flatMap(foldersOf);
const floorMessage = (layer) => `src/${layer} sits below ${above(layer).map((name) => `src/${name}`).join(', ')}: a lower floor never imports a higher one; pass what it needs in.`;

// Modules with one owner each (docs/ARCHITECTURE.md §3), refused elsewhere however they are
// reached. A ban names what it refuses in every form it can take: a static import or re-export
// (no-restricted-imports), import() and require() of the module, and, for a ban of some of a
// module's functions, the function's name reached through any object (`fs.promises.readFile`
// after `import fs from 'node:fs'`, `crypto.createHash`, `Reflect.get(x, 'readFile')`, a
// destructuring), since the object can be any alias of the module. ESLint's own
// no-restricted-imports and no-restricted-syntax say all of it, so no rule code is written.
const anyModule = (names) => `/^(node:)?(${names.join('|')})(\\/.*)?$/`;
const namesPattern = (names) => `/^(${names.join('|')})$/`;
/** import() and require() of a module whose literal name matches `pattern` (a static import is no-restricted-imports'). */
const loadBans = (pattern, message) => [
  { selector: `ImportExpression[source.value=${pattern}]`, message },
  { selector: `CallExpression[callee.name='require'][arguments.0.value=${pattern}]`, message },
];
/**
 * Every way of reaching a function of `modules` by its name: an import or re-export from them, and
 * through any object, a member (dotted or computed), a string (`Reflect.get`), a destructuring.
 */
const nameBans = (modules, names, message) => {
  const pattern = namesPattern(names);
  const from = `[source.value=${anyModule(modules)}]`;
  return [
    { selector: `ImportDeclaration${from} > ImportSpecifier[imported.name=${pattern}]`, message },
    { selector: `ExportNamedDeclaration${from} > ExportSpecifier[local.name=${pattern}]`, message },
    { selector: `MemberExpression[property.name=${pattern}]`, message },
    { selector: `Literal[value=${pattern}]`, message },
    { selector: `TemplateLiteral[expressions.length=0] > TemplateElement[value.cooked=${pattern}]`, message },
    { selector: `ObjectPattern > Property[key.name=${pattern}]`, message },
  ];
};

const processMessage = 'Run processes through runCli (src/beads/runCli.ts): argument arrays, timeouts, process groups killed whole.';
const processModules = ['child_process', 'node:child_process', 'execa', 'cross-spawn'];
const loaderMessage = 'Modules are imported statically, where the import rules see them: no require, createRequire, node:vm or import() of a computed name (src/bin/compileCache.ts loads the build, src/bin/launch.ts starts it).';
const loaderModules = ['module', 'vm'];
const readMessage = 'Read files through src/io/safeRead.ts (readTextFile, readLines): a FIFO, a device or a huge file would hang or flood the process.';
const hashMessage = 'Use fnv1a (src/core/hash.ts), the one stable short hash of the house.';
const writeMessage = 'Write to beads through the outbox (enqueue, or enqueueAndWait for an answer now): its one drainer (src/services/outboxDrainer.ts, sendWrite) is the only code that sends a claim, close or comment.';
const notifyMessage = 'Show notifications through src/adapters/notify.ts, which keeps issue data in a message from becoming a command link.';

/** Each owned module: who owns it, and its bans for everyone else. */
const OWNED = {
  // One runCli starts every process; processRegistry.ts beside it ends them (taskkill on Windows).
  process: {
    owners: ['src/beads/runCli.ts', 'src/beads/processRegistry.ts'],
    patterns: [{ group: [...processModules, ...processModules.map((name) => `${name}/*`)], message: processMessage }],
    syntax: loadBans(anyModule(['child_process', 'execa', 'cross-spawn']), processMessage),
  },
  // Everything that loads code by a name lint cannot see: node:module (createRequire), node:vm,
  // require, process.getBuiltinModule, and import() of anything but a literal.
  loader: {
    owners: ['src/bin/compileCache.ts', 'src/bin/launch.ts'],
    patterns: [{ group: loaderModules.flatMap((name) => [name, `node:${name}`]), message: loaderMessage }],
    syntax: [
      ...loadBans(anyModule(loaderModules), loaderMessage),
      ...nameBans(loaderModules, ['createRequire', 'getBuiltinModule', 'mainModule'], loaderMessage),
      { selector: "ImportExpression:not([source.type='Literal'])", message: loaderMessage },
    ],
    globals: ['require', 'module'].map((name) => ({ name, message: loaderMessage })),
  },
  // One way to read a file: src/io/safeRead.ts (non-blocking open, regular files only, a size
  // cap). fs's whole-file readers would block on a FIFO and read a device or a huge file to the
  // end. processRegistry.ts reads its own 0700 folder and /proc synchronously.
  read: {
    owners: ['src/io/safeRead.ts', 'src/beads/processRegistry.ts'],
    syntax: nameBans(['fs'], ['readFile', 'readFileSync', 'createReadStream'], readMessage),
  },
  // One short hash: fnv1a (src/core/hash.ts). contentChanges.ts computes git's own blob ids
  // (SHA-1) and hookGemini.ts Gemini CLI's project hash (SHA-256), which are not ours to choose.
  hash: {
    owners: ['src/services/contentChanges.ts', 'src/bin/hookGemini.ts'],
    syntax: nameBans(['crypto'], ['createHash', 'createHmac'], hashMessage),
  },
  // One way to write to beads (docs/ARCHITECTURE.md §4): the outbox's drainer sends every claim,
  // close and comment; the beads layer defines them. Called, dotted or computed, passed as a value
  // or destructured (`Commands.claim`, a command id, is not the backend's), and a close with a reason.
  beadsWrite: {
    owners: ['src/services/outboxDrainer.ts'],
    syntax: [
      { selector: "MemberExpression[property.name=/^(claim|addComment)$/]:not([object.name='Commands'])", message: writeMessage },
      { selector: 'MemberExpression[computed=true][property.value=/^(claim|addComment|close)$/]', message: writeMessage },
      { selector: "CallExpression[arguments.length>=2] > MemberExpression.callee[property.name='close']", message: writeMessage },
      { selector: 'ObjectPattern > Property[key.name=/^(claim|addComment)$/]', message: writeMessage },
    ],
  },
  // Notifications go through src/adapters/notify.ts: vscode.window.showInformationMessage,
  // window.showErrorMessage, `Reflect.get(vscode.window, 'showWarningMessage')`, a destructuring.
  notify: {
    owners: ['src/adapters/notify.ts'],
    syntax: [
      ...nameBans(['vscode'], ['show\\w*Message'], notifyMessage),
      { selector: "ImportDeclaration[source.value='vscode'] > ImportSpecifier[imported.name='window']", message: `${notifyMessage} Reach the rest of the window API as vscode.window.` },
    ],
  },
};
const ownerFiles = [...new Set(Object.values(OWNED).flatMap((owned) => owned.owners))];

/** The boundary rules of one layer; for an owner `file`, without the bans of what it owns. */
function layerRules(layer, file) {
  const bans = Object.entries(OWNED)
    .filter(([name, owned]) => !owned.owners.includes(file) && (name !== 'notify' || layer === 'adapters') && (name !== 'beadsWrite' || layer !== 'beads'))
    .map(([, owned]) => owned);
  const globals = bans.flatMap((owned) => owned.globals ?? []);
  const vscodeBan = layer === 'adapters' ? [] : [{ name: 'vscode', message: 'Only src/adapters and src/extension.ts may import vscode.' }];
  const higher = above(layer);
  const floorPattern = higher.length === 0 ? [] : [{ group: higher.flatMap(pathsInto), message: floorMessage(layer) }];
  const floorSyntax = higher.length === 0 ? [] : loadBans(`/(^|\\/)(${higher.join('|')})(\\/|\\.|$)/`, floorMessage(layer));
  return {
    'no-restricted-imports': ['error', { paths: vscodeBan, patterns: [...floorPattern, ...bans.flatMap((owned) => owned.patterns ?? [])] }],
    'no-restricted-syntax': ['error', exportDefaultBan, ...oneWayBans, ...floorSyntax, ...bans.flatMap((owned) => owned.syntax ?? [])],
    // A rule given without options keeps the options of an earlier block (flat config): an owner turns it off instead.
    'no-restricted-globals': globals.length === 0 ? 'off' : ['error', ...globals],
  };
}

const filesOf = (layer) => (layer === 'adapters' ? ['src/adapters/**/*.ts', 'src/extension.ts'] : [`src/${layer}/**/*.ts`]);
const layerOf = (file) => (file === 'src/extension.ts' ? 'adapters' : file.split('/')[1]);
const layerConfigs = [
  ...FLOORS.map((layer) => ({ files: filesOf(layer), rules: layerRules(layer) })),
  // An owner keeps every rule of its layer but the ban of what it owns.
  ...ownerFiles.map((file) => ({ files: [file], rules: layerRules(layerOf(file), file) })),
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
    // Typed linting, for the rules that need types: every TypeScript file the project compiles.
    files: ['src/**/*.ts', 'media/**/*.ts', 'test/unit/**/*.ts', 'test/integration/**/*.ts', 'test/agents/**/*.ts', 'test/faults/**/*.ts', 'test/windows/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parserOptions: {
        // scripts/bench/*.ts sit outside tsconfig.json (nothing compiles them); lint them with the default project.
        // callLog.ts and realTranscripts.ts are the exceptions: tests import them, so the project already holds them.
        projectService: { allowDefaultProject: ['scripts/bench/!(callLog|realTranscripts).ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits loses its rejection: await it, return it, or mark it `void` on purpose.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  ...layerConfigs,
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core is pure: no vscode.' }],
        patterns: [
          { group: nodeBuiltins, message: 'src/core is pure: pass data in, do the I/O in src/beads, src/git, src/services or an adapter.' },
          { group: ['io', 'beads', 'git', 'services', 'adapters', 'bin', 'extension'].flatMap(pathsInto), message: 'src/core imports no other layer (only ./core and ../shared): the other layers call core, never the reverse.' },
          { group: ['execa', 'execa/**', 'cross-spawn', 'cross-spawn/**'], message: 'src/core runs no process.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'src/core is pure: pass what you need in.' },
        { name: 'fetch', message: 'src/core is pure: no network.' },
        { name: 'require', message: 'src/core is pure.' },
        { name: 'module', message: 'src/core is pure.' },
        { name: 'performance', message: clockMessage },
        // globalThis.Date.now(), new globalThis.Date(), globalThis.performance: the clock by another name.
        ...['globalThis', 'global', 'self', 'window'].map((name) => ({ name, message: `src/core is pure: no ${name} (the clock, the process and I/O hide behind it).` })),
      ],
      'no-restricted-syntax': ['error',
        exportDefaultBan,
        ...oneWayBans,
        // The clock as a value, not a spelling: `Date` only as a type, `new Date(time)` of a given
        // time, `Date.parse`, `Date.UTC` and `instanceof Date`. So `Date.now()`, `new Date()`,
        // `Date()`, `const Clock = Date` and `Reflect.construct(Date, [])` are all refused.
        {
          selector: "Identifier[name='Date']:not(TSTypeReference > .typeName, NewExpression[arguments.length>0] > .callee, MemberExpression[computed=false][property.name=/^(parse|UTC)$/] > .object, MemberExpression[computed=false] > .property, BinaryExpression[operator='instanceof'] > .right, Property[computed=false] > .key, TSPropertySignature > .key)",
          message: clockMessage,
        },
        // import('node:fs') and any other module loaded at run time: core's imports are static, and checked.
        { selector: 'ImportExpression', message: 'src/core imports statically: no import(), which would reach past the import rules.' },
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
          { group: ['core', 'io', 'beads', 'git', 'services', 'adapters', 'bin', 'extension'].flatMap((name) => [`../${name}`, `../${name}/**`]), message: 'src/shared is the protocol only: it imports no layer.' },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'The webview runs in the browser.' }, { name: 'require', message: 'The webview runs in the browser.' }],
    },
  },
  {
    // The agents' plugins: programs the agents load as they are (src/plugins/opencode.js runs in
    // opencode, and starts our command line), written to the agent's plugin folder by an install.
    files: ['src/plugins/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
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
