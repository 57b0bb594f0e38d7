// docs/ARCHITECTURE.md §3 names one way to do each thing. Lint keeps the rows a syntax pattern can
// see (eslint.config.mjs, probed in lintRules.test.ts); this file keeps the one it cannot: where a
// project's store folder is. Detection finds it (findBeadsDir: `.beads` or br's `_beads`, walking
// up, following `redirect`), and everything after asks the backend (storeFolderOf). A path built
// by joining `.beads` to a folder elsewhere is a second way, wrong for `_beads` and redirects.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(__dirname, '../../..');
const WHERE_THE_STORE_IS_FOUND = new Set(['src/beads/detect.ts', 'src/beads/backend.ts']);

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** `join(root, '.beads')`, `path.join(dir, "_beads", …)`, `resolve(x, '.beads')`: a store folder built by hand. */
const STORE_PATH_BUILT_BY_HAND = /\b(?:join|resolve)\([^)]*['"`][._]beads['"`]/;

describe('one way to find the store folder', () => {
  it('recognises a store path built by hand', () => {
    expect(STORE_PATH_BUILT_BY_HAND.test("const beadsDir = path.join(root, '.beads');")).toBe(true);
    expect(STORE_PATH_BUILT_BY_HAND.test('watch(join(project.root, "_beads", "issues.jsonl"))')).toBe(true);
    expect(STORE_PATH_BUILT_BY_HAND.test('const beadsDir = storeFolderOf(project.backend);')).toBe(false);
  });

  it('builds it only where detection finds it', () => {
    const offenders = sources('src')
      .filter((file) => !WHERE_THE_STORE_IS_FOUND.has(file))
      .flatMap((file) =>
        fs
          .readFileSync(path.join(repoRoot, file), 'utf8')
          .split('\n')
          .map((line, index) => ({ line, at: `${file}:${index + 1}` }))
          .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && STORE_PATH_BUILT_BY_HAND.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(offenders, 'use findBeadsDir (detection) or storeFolderOf(backend)').toEqual([]);
  });
});

// One way to open a folder outside VS Code (issue 31, item 4): the command line, the hooks and the
// MCP server read the folder's settings from the environment in one place, services/folderSettings.ts,
// and detect the project through its detectFolder; a second reading drifts (a default, a clamp).
const WHERE_THE_ENVIRONMENT_IS_READ = new Set(['src/services/folderSettings.ts']);
/** `env.BEADS_RECOVERY_CLI`, `process.env?.BEADS_RECOVERY_TIMEOUT_MS`, `env['BEADS_RECOVERY_CLI_PATH']`: a read, not a mention in a help text. */
const FOLDER_SETTING_READ = /(?:\.|\[\s*['"`])BEADS_RECOVERY_(?:TIMEOUT_MS|CLI|CLI_PATH)\b/;
const DETECTED_BY_HAND = /\bdetectProject\(/;

describe('one way to open a folder', () => {
  it('recognises a setting read by hand', () => {
    expect(FOLDER_SETTING_READ.test('clampTimeoutMs(env.BEADS_RECOVERY_TIMEOUT_MS, 10_000)')).toBe(true);
    expect(FOLDER_SETTING_READ.test("const cli = io.env?.BEADS_RECOVERY_CLI ?? 'auto';")).toBe(true);
    expect(FOLDER_SETTING_READ.test("const cli = process.env['BEADS_RECOVERY_CLI_PATH'];")).toBe(true);
    expect(FOLDER_SETTING_READ.test('BEADS_RECOVERY_TIMEOUT_MS bounds each CLI call (default 10000).')).toBe(false);
    expect(FOLDER_SETTING_READ.test('folderSettings(io.env).timeoutMs')).toBe(false);
  });

  it('reads the environment and detects a folder only in folderSettings.ts', () => {
    const offenders = sources('src')
      .filter((file) => !WHERE_THE_ENVIRONMENT_IS_READ.has(file) && file !== 'src/beads/detect.ts' && !file.startsWith('src/adapters/'))
      .flatMap((file) =>
        fs
          .readFileSync(path.join(repoRoot, file), 'utf8')
          .split('\n')
          .map((line, index) => ({ line, at: `${file}:${index + 1}` }))
          .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && (FOLDER_SETTING_READ.test(line) || DETECTED_BY_HAND.test(line)))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(offenders, 'read the settings with folderSettings(env) and detect with detectFolder').toEqual([]);
  });
});
