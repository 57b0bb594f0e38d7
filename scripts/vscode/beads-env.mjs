// The beads side of a run: a workspace made by the test fixtures, and the PATH that decides which
// beads CLI the extension finds (the stand-ins under test/fixtures/bin, or none at all).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, standInBinDir } from './runtime.mjs';

/** `now` (ms) moves the scenario's times into the day before it; tests keep the fixed times. */
export async function makeBeadsWorkspace(dir, { dialect = 'br', data = 'scenario', now } = {}) {
  const fixtures = pathToFileURL(path.join(repoRoot, 'test/fixtures/make-workspace.mjs')).href;
  const { makeWorkspace } = await import(fixtures);
  await makeWorkspace({ dir, dialect, data, git: true, now });
  return dir;
}

/** A folder with no `.beads`: the extension must stay silent there. */
export function makePlainWorkspace(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README.md'), 'A project that does not use beads.\n');
  return dir;
}

/** The scenario's workspace: a beads project made by the fixtures, or a plain folder. */
export async function makeScenarioWorkspace(dir, scenario) {
  return scenario.beads === false ? makePlainWorkspace(dir) : makeBeadsWorkspace(dir, { dialect: scenario.dialect });
}

export function pathWithStandIns() {
  return [standInBinDir, ...pathEntries()].join(path.delimiter);
}

// Drops every directory holding a `bd` or `br`, so no beads CLI can be found at all.
export function pathWithoutBeadsCli() {
  const hasBeadsCli = (dir) => ['bd', 'br'].some((name) => fs.existsSync(path.join(dir, name)));
  return pathEntries().filter((dir) => !hasBeadsCli(dir)).join(path.delimiter);
}

function pathEntries() {
  return (process.env.PATH ?? '').split(path.delimiter)
    .filter((dir) => dir && path.resolve(dir) !== standInBinDir);
}

/** Environment for the stand-in CLIs: a fault file the tests may write, and a log of every call. */
export function standInEnv(dir) {
  return {
    BEADS_STANDIN_FAULT_FILE: path.join(dir, 'standin-fault'),
    BEADS_STANDIN_LOG: path.join(dir, 'standin-calls.jsonl'),
  };
}
