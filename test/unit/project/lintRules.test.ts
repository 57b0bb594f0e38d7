// The architecture's boundaries are kept by lint (eslint.config.mjs). Each probe below breaks one
// rule from inside the layer it guards and must be rejected by exactly that rule, so a rule that
// stops matching (a renamed folder, a pattern that only sees one path depth, typed linting
// switched off) fails here instead of rotting quietly. The clean probes show the rules are not
// simply rejecting everything.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(__dirname, '../../..');

/** Where the probes pretend to live; none of these files exists. */
const probeFiles = [
  'src/core/lint-probe.ts',
  'src/core/deep/lint-probe.ts',
  'src/services/lint-probe.ts',
  'src/io/lint-probe.ts',
  'src/beads/lint-probe.ts',
  'src/git/lint-probe.ts',
  'media/webview/lint-probe.ts',
  'src/adapters/lint-probe.ts',
  'src/bin/lint-probe.ts',
];

interface Probe {
  name: string;
  file: (typeof probeFiles)[number];
  code: string;
  /** The rule that must reject it; several when one line breaks more than one (each message's rule, in order). */
  rule: string | string[];
}

const rejected: Probe[] = [
  {
    name: 'an adapter showing a notification around notify.ts',
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nexport const probe = (title: string): Thenable<string | undefined> => vscode.window.showInformationMessage(title);\n",
    rule: 'no-restricted-syntax',
  },
  { name: 'core importing beads', file: 'src/core/lint-probe.ts', code: "import { runCli } from '../beads/runCli';\nexport const probe = runCli;\n", rule: 'no-restricted-imports' },
  { name: 'core importing beads through src/ from deeper down', file: 'src/core/deep/lint-probe.ts', code: "import { runCli } from '../../../src/beads/runCli';\nexport const probe = runCli;\n", rule: 'no-restricted-imports' },
  { name: 'core importing git', file: 'src/core/lint-probe.ts', code: "import { runGit } from '../git/runGit';\nexport const probe = runGit;\n", rule: 'no-restricted-imports' },
  { name: 'core importing services', file: 'src/core/lint-probe.ts', code: "import * as services from '../services/outbox';\nexport const probe = services;\n", rule: 'no-restricted-imports' },
  { name: 'core importing adapters', file: 'src/core/lint-probe.ts', code: "import * as config from '../adapters/config';\nexport const probe = config;\n", rule: 'no-restricted-imports' },
  { name: 'core importing bin', file: 'src/core/lint-probe.ts', code: "import * as cli from '../bin/cli';\nexport const probe = cli;\n", rule: 'no-restricted-imports' },
  { name: 'core importing node:fs', file: 'src/core/lint-probe.ts', code: "import { readFileSync } from 'node:fs';\nexport const probe = readFileSync;\n", rule: 'no-restricted-imports' },
  { name: 'core importing fs', file: 'src/core/lint-probe.ts', code: "import { readFileSync } from 'fs';\nexport const probe = readFileSync;\n", rule: 'no-restricted-imports' },
  { name: 'core importing fs/promises', file: 'src/core/lint-probe.ts', code: "import { readFile } from 'fs/promises';\nexport const probe = readFile;\n", rule: 'no-restricted-imports' },
  { name: 'core importing node:crypto', file: 'src/core/lint-probe.ts', code: "import { createHash } from 'node:crypto';\nexport const probe = createHash;\n", rule: 'no-restricted-imports' },
  { name: 'core importing vscode', file: 'src/core/lint-probe.ts', code: "import * as vscode from 'vscode';\nexport const probe = vscode;\n", rule: 'no-restricted-imports' },
  { name: 'core reading the clock with new Date()', file: 'src/core/lint-probe.ts', code: 'export const probe = (): Date => new Date();\n', rule: 'no-restricted-syntax' },
  { name: 'core reading the clock with Date.now', file: 'src/core/lint-probe.ts', code: 'export const probe = (): number => Date.now();\n', rule: 'no-restricted-syntax' },
  { name: 'core reading the clock with performance.now', file: 'src/core/lint-probe.ts', code: 'export const probe = (): number => performance.now();\n', rule: 'no-restricted-globals' },
  { name: 'services importing adapters', file: 'src/services/lint-probe.ts', code: "import * as config from '../adapters/config';\nexport const probe = config;\n", rule: 'no-restricted-imports' },
  { name: 'beads importing adapters', file: 'src/beads/lint-probe.ts', code: "import * as log from '../adapters/log';\nexport const probe = log;\n", rule: 'no-restricted-imports' },
  { name: 'git importing adapters', file: 'src/git/lint-probe.ts', code: "import * as log from '../adapters/log';\nexport const probe = log;\n", rule: 'no-restricted-imports' },
  { name: 'services importing vscode', file: 'src/services/lint-probe.ts', code: "import * as vscode from 'vscode';\nexport const probe = vscode;\n", rule: 'no-restricted-imports' },
  { name: 'the webview importing beads', file: 'media/webview/lint-probe.ts', code: "import { runCli } from '../../../src/beads/runCli';\nexport const probe = runCli;\n", rule: 'no-restricted-imports' },
  { name: 'the webview importing core', file: 'media/webview/lint-probe.ts', code: "import { oneLine } from '../../../src/core/markdown';\nexport const probe = oneLine;\n", rule: 'no-restricted-imports' },
  { name: 'the webview importing vscode', file: 'media/webview/lint-probe.ts', code: "import * as vscode from 'vscode';\nexport const probe = vscode;\n", rule: 'no-restricted-imports' },
  // Processes start in runCli only, however child_process, cross-spawn or execa is reached.
  { name: 'services importing node:child_process', file: 'src/services/lint-probe.ts', code: "import { execFile } from 'node:child_process';\nexport const probe = execFile;\n", rule: 'no-restricted-imports' },
  { name: 'git importing child_process', file: 'src/git/lint-probe.ts', code: "import { spawn } from 'child_process';\nexport const probe = spawn;\n", rule: 'no-restricted-imports' },
  { name: 'an adapter importing execa', file: 'src/adapters/lint-probe.ts', code: "import { execa } from 'execa';\nexport const probe = execa;\n", rule: 'no-restricted-imports' },
  { name: 'bin re-exporting child_process', file: 'src/bin/lint-probe.ts', code: "export { spawnSync as probe } from 'node:child_process';\n", rule: 'no-restricted-imports' },
  { name: 'services loading node:child_process with import()', file: 'src/services/lint-probe.ts', code: "export const probe = async (): Promise<unknown> => (await import('node:child_process')).execFileSync('ls');\n", rule: 'no-restricted-syntax' },
  { name: 'an adapter loading execa with import()', file: 'src/adapters/lint-probe.ts', code: "export const probe = (): Promise<unknown> => import('execa');\n", rule: 'no-restricted-syntax' },
  { name: 'git importing cross-spawn', file: 'src/git/lint-probe.ts', code: "import crossSpawn from 'cross-spawn';\nexport const probe = crossSpawn;\n", rule: 'no-restricted-imports' },
  { name: 'core importing cross-spawn', file: 'src/core/lint-probe.ts', code: "import crossSpawn from 'cross-spawn';\nexport const probe = crossSpawn;\n", rule: 'no-restricted-imports' },
  { name: 'services loading cross-spawn with import()', file: 'src/services/lint-probe.ts', code: "export const probe = (): Promise<unknown> => import('cross-spawn');\n", rule: 'no-restricted-syntax' },
  {
    name: 'beads requiring child_process',
    file: 'src/beads/lint-probe.ts',
    code: "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const probe: unknown = require('child_process');\n",
    // require itself (a loader lint cannot follow) and the process module it names.
    rule: ['no-restricted-globals', 'no-restricted-syntax'],
  },
  // Core: no clock or I/O under another name.
  { name: 'core reading the clock with globalThis.Date.now', file: 'src/core/lint-probe.ts', code: 'export const probe = (): number => globalThis.Date.now();\n', rule: 'no-restricted-globals' },
  { name: 'core reading the clock with new globalThis.Date()', file: 'src/core/lint-probe.ts', code: 'export const probe = (): Date => new globalThis.Date();\n', rule: 'no-restricted-globals' },
  { name: 'core reading the clock with globalThis.performance', file: 'src/core/lint-probe.ts', code: 'export const probe = (): number => globalThis.performance.now();\n', rule: 'no-restricted-globals' },
  { name: "core loading node:fs with import()", file: 'src/core/lint-probe.ts', code: "export const probe = async (): Promise<string> => (await import('node:fs')).readFileSync('x', 'utf8');\n", rule: 'no-restricted-syntax' },
  { name: 'bin importing adapters', file: 'src/bin/lint-probe.ts', code: "import * as config from '../adapters/config';\nexport const probe = config;\n", rule: 'no-restricted-imports' },
  // Notifications only through notify.ts.
  {
    name: 'an adapter showing a notification through a named window import',
    file: 'src/adapters/lint-probe.ts',
    code: "import { window } from 'vscode';\nexport const probe = (title: string): Thenable<string | undefined> => window.showWarningMessage(title);\n",
    rule: ['no-restricted-syntax', 'no-restricted-syntax'],
  },
  {
    name: 'an adapter taking showErrorMessage out of vscode.window',
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nconst { showErrorMessage } = vscode.window;\nexport const probe = (title: string): Thenable<string | undefined> => showErrorMessage(title);\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: "an adapter calling vscode.window['showInformationMessage']",
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nexport const probe = (title: string): Thenable<string | undefined> => vscode.window['showInformationMessage'](title);\n",
    rule: 'no-restricted-syntax',
  },
  // Rules that follow the module, not its spelling: each owned module refused however it is reached.
  {
    name: 'reading a file through the default import of node:fs (fs.promises.readFile)',
    file: 'src/services/lint-probe.ts',
    code: "import fs from 'node:fs';\nexport const probe = (file: string): Promise<string> => fs.promises.readFile(file, 'utf8');\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'reading a whole file through an open FileHandle',
    file: 'src/git/lint-probe.ts',
    code: "import { open } from 'node:fs/promises';\nexport const probe = async (file: string): Promise<Buffer> => (await open(file, 'r')).readFile();\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: "reading a file through Reflect.get(fs, 'readFileSync')",
    file: 'src/beads/lint-probe.ts',
    code: "import * as fs from 'node:fs';\nexport const probe = Reflect.get(fs, 'readFileSync') as unknown;\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a hash through the default import of node:crypto (crypto.createHash)',
    file: 'src/services/lint-probe.ts',
    code: "import crypto from 'node:crypto';\nexport const probe = (text: string): string => crypto.createHash('sha1').update(text).digest('hex');\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a hash taken out of node:crypto by destructuring',
    file: 'src/adapters/lint-probe.ts',
    code: "import * as crypto from 'node:crypto';\nconst { createHmac } = crypto;\nexport const probe = createHmac;\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'createRequire reaching child_process',
    file: 'src/services/lint-probe.ts',
    code: "import { createRequire } from 'node:module';\nconst load = createRequire(__filename);\nexport const probe: unknown = load('child_process');\n",
    rule: ['no-restricted-imports', 'no-restricted-syntax'],
  },
  {
    name: 'Module.createRequire through the default import of node:module',
    file: 'src/bin/lint-probe.ts',
    code: "import Module from 'module';\nexport const probe: unknown = Module.createRequire(__filename)('child_process');\n",
    rule: ['no-restricted-imports', 'no-restricted-syntax'],
  },
  {
    name: 'process.getBuiltinModule reaching child_process',
    file: 'src/git/lint-probe.ts',
    code: "export const probe: unknown = Reflect.apply(Reflect.get(process, 'getBuiltinModule') as (name: string) => unknown, process, ['child_process']);\n",
    rule: 'no-restricted-syntax',
  },
  { name: 'module.require reaching child_process', file: 'src/services/lint-probe.ts', code: "export const probe: unknown = module.require('child_process');\n", rule: 'no-restricted-globals' },
  { name: 'require kept as a value', file: 'src/adapters/lint-probe.ts', code: 'export const probe: unknown = require;\n', rule: 'no-restricted-globals' },
  { name: 'node:vm, which runs code lint never sees', file: 'src/beads/lint-probe.ts', code: "import { runInThisContext } from 'node:vm';\nexport const probe = runInThisContext;\n", rule: 'no-restricted-imports' },
  { name: 'import() of a computed name', file: 'src/services/lint-probe.ts', code: "export const probe = (name: string): Promise<unknown> => import(name);\n", rule: 'no-restricted-syntax' },
  { name: 'core keeping the clock as a value (const Clock = Date)', file: 'src/core/lint-probe.ts', code: 'const Clock = Date;\nexport const probe = (): Date => new Clock();\n', rule: 'no-restricted-syntax' },
  { name: 'core reading the clock with Date()', file: 'src/core/lint-probe.ts', code: 'export const probe = (): string => Date();\n', rule: 'no-restricted-syntax' },
  { name: 'core constructing the clock through Reflect', file: 'src/core/lint-probe.ts', code: 'export const probe = (): Date => Reflect.construct(Date, []);\n', rule: 'no-restricted-syntax' },
  {
    name: "an adapter reaching a notification through Reflect.get(vscode.window, 'showInformationMessage')",
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nexport const probe = Reflect.get(vscode.window, 'showInformationMessage') as unknown;\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'an adapter naming a notification in a template string',
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nexport const probe = (vscode.window as unknown as Record<string, unknown>)[`showErrorMessage`];\n",
    rule: 'no-restricted-syntax',
  },
  // No arrow runs back up: each floor imports only the floors below it (io, beads, git, services, bin, adapters).
  { name: 'services importing bin', file: 'src/services/lint-probe.ts', code: "import { checkpointCommand } from '../bin/checkpoint';\nexport const probe = checkpointCommand;\n", rule: 'no-restricted-imports' },
  { name: 'services loading bin with import()', file: 'src/services/lint-probe.ts', code: "export const probe = (): Promise<unknown> => import('../bin/mcp');\n", rule: 'no-restricted-syntax' },
  { name: 'beads importing services', file: 'src/beads/lint-probe.ts', code: "import { Outbox } from '../services/outbox';\nexport const probe = Outbox;\n", rule: 'no-restricted-imports' },
  { name: 'beads importing git', file: 'src/beads/lint-probe.ts', code: "import { runGit } from '../git/runGit';\nexport const probe = runGit;\n", rule: 'no-restricted-imports' },
  { name: 'git importing services', file: 'src/git/lint-probe.ts', code: "import { Outbox } from '../services/outbox';\nexport const probe = Outbox;\n", rule: 'no-restricted-imports' },
  { name: 'io importing beads', file: 'src/io/lint-probe.ts', code: "import { runCli } from '../beads/runCli';\nexport const probe = runCli;\n", rule: 'no-restricted-imports' },
  { name: 'bin importing the extension', file: 'src/bin/lint-probe.ts', code: "import { activate } from '../extension';\nexport const probe = activate;\n", rule: 'no-restricted-imports' },
  { name: 'core importing io', file: 'src/core/lint-probe.ts', code: "import { readTextFile } from '../io/safeRead';\nexport const probe = readTextFile;\n", rule: 'no-restricted-imports' },
  // One way to do each thing (docs/ARCHITECTURE.md §3).
  { name: 'String(error) instead of errorMessage', file: 'src/services/lint-probe.ts', code: 'export const probe = (error: unknown): string => `failed: ${String(error)}`;\n', rule: 'no-restricted-syntax' },
  { name: 'a hand-written code-unit comparison instead of compareText', file: 'src/core/lint-probe.ts', code: 'export const probe = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);\n', rule: 'no-restricted-syntax' },
  { name: 'a sha256 beside fnv1a', file: 'src/bin/lint-probe.ts', code: "import { createHash } from 'node:crypto';\nexport const probe = (text: string): string => createHash('sha256').update(text).digest('hex');\n", rule: 'no-restricted-syntax' },
  { name: 'reading a file around safeRead with readFile', file: 'src/services/lint-probe.ts', code: "import { readFile } from 'node:fs/promises';\nexport const probe = (file: string): Promise<string> => readFile(file, 'utf8');\n", rule: 'no-restricted-syntax' },
  {
    name: 'reading a file around safeRead through fs.promises',
    file: 'src/beads/lint-probe.ts',
    code: "import { promises as fs } from 'node:fs';\nexport const probe = (file: string): Promise<string> => fs.readFile(file, 'utf8');\n",
    rule: 'no-restricted-syntax',
  },
  // One way to write to beads: the outbox's drainer sends every claim, close and comment.
  {
    name: 'an adapter claiming through the backend around the outbox',
    file: 'src/adapters/lint-probe.ts',
    code: "import type { BeadsBackend } from '../beads/backend';\nexport const probe = (backend: BeadsBackend): Promise<void> => backend.claim('demo-1');\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a service commenting through the backend around the outbox',
    file: 'src/services/lint-probe.ts',
    code: "import type { BeadsBackend } from '../beads/backend';\nexport const probe = async (backend: BeadsBackend): Promise<void> => void (await backend.addComment('demo-1', 'note'));\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'bin closing through the backend around the outbox',
    file: 'src/bin/lint-probe.ts',
    code: "import type { BeadsBackend } from '../beads/backend';\nexport const probe = (backend: BeadsBackend): Promise<void> => backend.close('demo-1', 'done');\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: "a service reaching a write as backend['close']",
    file: 'src/services/lint-probe.ts',
    code: "import type { BeadsBackend } from '../beads/backend';\nexport const probe = (backend: BeadsBackend): unknown => backend['close'];\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a service destructuring the backend\'s claim',
    file: 'src/services/lint-probe.ts',
    code: "import type { BeadsBackend } from '../beads/backend';\nexport const probe = ({ claim }: BeadsBackend): unknown => claim;\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a floating promise',
    file: 'src/services/lint-probe.ts',
    code: 'async function write(): Promise<void> {}\nexport function probe(): void {\n  write();\n}\n',
    rule: '@typescript-eslint/no-floating-promises',
  },
];

const clean: Probe[] = [
  {
    name: 'an adapter notifying through notify.ts and using the rest of vscode.window',
    file: 'src/adapters/lint-probe.ts',
    code: "import * as vscode from 'vscode';\nimport { showInformationMessage } from './notify';\nexport const probe = async (title: string): Promise<unknown> => [await showInformationMessage(title), await vscode.window.showQuickPick([title])];\n",
    rule: '',
  },
  {
    name: 'bin using services, core and the safe reader',
    file: 'src/bin/lint-probe.ts',
    code: "import { errorMessage } from '../core/errors';\nimport { compareText } from '../core/compare';\nimport { readTextFile } from '../io/safeRead';\nexport const probe = [errorMessage, compareText, readTextFile];\n",
    rule: '',
  },
  {
    name: 'core using core, the shared protocol and a given time',
    file: 'src/core/lint-probe.ts',
    code: "import { oneLine } from './markdown';\nimport type { ViewState } from '../../src/shared/protocol';\nexport const probe = (state: ViewState, nowMs: number): string => oneLine(`${new Date(nowMs).toISOString()} ${typeof state}`);\n",
    rule: '',
  },
  {
    name: 'core using a given time: new Date(time), Date.parse, Date.UTC, instanceof Date and the Date type',
    file: 'src/core/lint-probe.ts',
    code: 'export const probe = (value: unknown, text: string, nowMs: number): Date | number => (value instanceof Date ? value : Date.parse(text) || Date.UTC(2026, 0) || new Date(nowMs));\n',
    rule: '',
  },
  {
    name: 'beads reading through io and services using git, beads and io',
    file: 'src/beads/lint-probe.ts',
    code: "import { readTextFile } from '../io/safeRead';\nimport { oneLine } from '../core/markdown';\nexport const probe = [readTextFile, oneLine];\n",
    rule: '',
  },
  {
    name: 'services writing files and making ids through the default imports of node:fs and node:crypto',
    file: 'src/services/lint-probe.ts',
    code: "import fs from 'node:fs';\nimport crypto from 'node:crypto';\nimport { runGit } from '../git/runGit';\nimport { readTextFile } from '../io/safeRead';\nexport const probe = (file: string): Promise<unknown[]> => Promise.all([fs.promises.writeFile(file, crypto.randomUUID()), runGit, readTextFile]);\n",
    rule: '',
  },
  {
    name: 'an adapter claiming through the outbox and naming the claim command',
    file: 'src/adapters/lint-probe.ts',
    code: "import { Commands } from './commandIds';\nimport type { Outbox } from '../services/outbox';\nexport const probe = (outbox: Outbox): unknown => [Commands.claim, outbox.enqueueAndWait({ key: 'claim:demo-1', kind: 'claim', issueId: 'demo-1' })];\n",
    rule: '',
  },
  {
    name: 'bin loading its own module with import()',
    file: 'src/bin/lint-probe.ts',
    code: "export const probe = async (): Promise<unknown> => (await import('./mcp')).serveMcp;\n",
    rule: '',
  },
  {
    name: 'services using core and beads, awaiting its promise',
    file: 'src/services/lint-probe.ts',
    code: "import { runCli } from '../beads/runCli';\nimport { oneLine } from '../core/markdown';\nexport async function probe(): Promise<string> {\n  await Promise.resolve(runCli);\n  return oneLine('x');\n}\n",
    rule: '',
  },
  {
    name: 'the webview using the shared protocol',
    file: 'media/webview/lint-probe.ts',
    code: "import type { ViewState } from '../../../src/shared/protocol';\nimport { el } from './dom';\nexport const probe = (state: ViewState): unknown => [el, state];\n",
    rule: '',
  },
];

describe('lint rules bite', () => {
  let eslint: ESLint;
  beforeAll(async () => {
    // The repository's own config and rules. The one addition: typed linting only knows files on
    // disk, so the probes, which exist only as text, are typed against tsconfig.json's options.
    eslint = new ESLint({
      cwd: repoRoot,
      overrideConfig: {
        languageOptions: {
          parserOptions: { projectService: { allowDefaultProject: probeFiles, defaultProject: 'tsconfig.json', maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: probeFiles.length } },
        },
      },
    });
    // The first lint builds the TypeScript program for typed rules, which takes many seconds on a
    // loaded machine: it is paid here, under its own time limit, not by whichever probe runs first.
    await eslint.lintText('export {};\n', { filePath: path.join(repoRoot, 'src/core/lint-probe.ts') });
  }, 120_000);

  async function lint(probe: Probe): Promise<ESLint.LintResult> {
    const [result] = await eslint.lintText(probe.code, { filePath: path.join(repoRoot, probe.file) });
    const fatal = result.messages.filter((message) => message.fatal);
    expect(fatal, `${probe.file} must parse`).toEqual([]);
    return result;
  }

  it.each(rejected.map((probe) => [probe.name, probe] as const))('rejects %s', async (_name, probe) => {
    const result = await lint(probe);
    expect(result.messages.map((message) => message.ruleId)).toEqual(typeof probe.rule === 'string' ? [probe.rule] : probe.rule);
  });

  it.each(clean.map((probe) => [probe.name, probe] as const))('accepts %s', async (_name, probe) => {
    const result = await lint(probe);
    expect(result.messages).toEqual([]);
  });
});
