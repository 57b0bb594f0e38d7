import { describe, expect, it } from 'vitest';
import { globToRegExp, trackedPathFilter } from '../../../src/core/ledger';

// VS Code's default `files.watcherExclude`.
const DEFAULT_EXCLUDES = ['**/.git/objects/**', '**/.git/subtree-cache/**', '**/node_modules/*/**', '**/.hg/store/**'];

describe('trackedPathFilter', () => {
  const tracked = trackedPathFilter(DEFAULT_EXCLUDES);

  it('tracks ordinary files at any depth', () => {
    expect(tracked('README.md')).toBe(true);
    expect(tracked('src/parser.ts')).toBe(true);
    expect(tracked('a/b/c/d.txt')).toBe(true);
    expect(tracked('.github/workflows/ci.yml')).toBe(true);
    expect(tracked('my.git/file')).toBe(true);
    expect(tracked('.gitignore')).toBe(true);
  });

  it('never tracks the repository, the tracker or dependencies, at any depth', () => {
    for (const path of ['.git', '.git/logs/HEAD', '.git/index', '.beads/issues.jsonl', '.beads', 'node_modules/x/index.js', 'packages/a/node_modules/b.js', 'sub/.git/HEAD']) {
      expect(tracked(path), path).toBe(false);
    }
    expect(tracked('')).toBe(false);
  });

  it('never counts agent hook or MCP settings (the extension installs them), but does count other files beside them', () => {
    for (const path of ['.mcp.json', '.claude/settings.local.json', '.claude/settings.json', '.github/hooks/beads-recovery.json', '.codex/hooks.json', '.codex/config.toml', '.cursor/hooks.json', '.cursor/mcp.json', '.vscode/mcp.json']) {
      expect(tracked(path), path).toBe(false);
    }
    for (const path of ['.claude/commands/review.md', '.github/hooks/README.md', '.cursor/rules/style.mdc', '.vscode/settings.json', 'sub/.claude/settings.json', 'AGENTS.md']) {
      expect(tracked(path), path).toBe(true);
    }
  });

  it('honours the user\'s watcher excludes', () => {
    const custom = trackedPathFilter(['**/dist/**', 'coverage/**', '**/*.{log,tmp}', 'build', 'out?/x']);
    expect(custom('dist/extension.js')).toBe(false);
    expect(custom('packages/a/dist/index.js')).toBe(false);
    expect(custom('coverage/lcov.info')).toBe(false);
    expect(custom('sub/coverage/lcov.info')).toBe(true);
    expect(custom('logs/run.log')).toBe(false);
    expect(custom('notes.tmp')).toBe(false);
    expect(custom('build')).toBe(false);
    expect(custom('build.ts')).toBe(true);
    expect(custom('out1/x')).toBe(false);
    expect(custom('src/index.ts')).toBe(true);
  });
});

describe('globToRegExp', () => {
  it('matches the way VS Code globs do', () => {
    expect(globToRegExp('**/*.ts').test('a/b.ts')).toBe(true);
    expect(globToRegExp('**/*.ts').test('b.ts')).toBe(true);
    expect(globToRegExp('*.ts').test('a/b.ts')).toBe(false);
    expect(globToRegExp('src/[ab].ts').test('src/a.ts')).toBe(true);
    expect(globToRegExp('src/[!ab].ts').test('src/a.ts')).toBe(false);
    expect(globToRegExp('a.b').test('aXb')).toBe(false);
    expect(globToRegExp('(x)+').test('(x)+')).toBe(true);
  });
});
