// The start block computed ahead (issue 28): a hook's recovery context at an agent's start, kept
// with stamps of every input it was made from, so that the next start whose inputs are the same
// answers with it instead of computing it again. A block from a stale cache is a false block, so
// anything that could make the next block differ is stamped, and any doubt is a miss (the full
// computation, which writes the entry anew).
//
// What is stamped (checked in this order, cheapest first):
// - the key: the folder, the budget, the agent, whether the CLI is trusted, the `--actor` given,
//   and every environment variable the computation or the CLI it runs may read (envStamp);
// - a clock bound: the block is the same until the first relative age or threshold it renders
//   would change (recovery.ts sameBlockUntil), and until the first deferral in the store ends
//   (the ready list changes then);
// - files, by `lstat` (size, modification time, inode, mode; or absent): the `.beads` and `_beads`
//   names from the folder up to the project, the store's whole tree (its JSONL, database and
//   sidecars, config, metadata, redirect), the ledger, the last close, the outbox, the threads kept
//   on this machine, the files bd's prime detection reads, and `bd`/`br` in every PATH folder and
//   BEADS_RECOVERY_CLI_PATH (which CLI is found); the project cache by its content;
// - the agent sessions (sessions.json) by what the block reads of them, computed again at the
//   check: this session's own bindings, the other live sessions and what they hold, and the
//   thread's destination. A start records its own session (it was handed an issue, which holds
//   nothing for another session), so the next new session's block is unchanged by it;
// - git by the working tree's status itself (`git status`, what the block lists): the index's
//   stamp would miss an edit of a tracked file, which changes no file of git's.
//
// It lives inside the repository's git dir, beside the ledger (`.git/beads-recovery/
// start-block.json`), so it is never committed and goes with the clone.
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { compareText } from '../core/compare';
import { fnv1a } from '../core/hash';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';
import { storeFolderCandidates } from '../beads/detect';
import { LEDGER_DIR } from './ledgerStore';
import type { SessionRecoveryResult } from './recovery';

export const START_BLOCK_FILE = 'start-block.json';

/** A store tree with more entries than this is not stamped (a miss every time): stamping it would cost what it saves. */
const TREE_ENTRY_LIMIT = 400;
/** Entries kept: one per key (agent, budget, folder, environment). */
const ENTRY_LIMIT = 16;
const FORMAT = 1;

/** What the block depends on that is not a file: computed again at every check. */
export interface StartView {
  /** `git status` as the block read it. */
  uncommitted: string;
  /** What the block reads of the agent sessions. */
  sessions: string;
}

export interface StartStamps {
  files: Record<string, string>;
  /** The project cache's content (a run writes it back, unchanged when it learnt nothing new). */
  projectCache: string;
}

export interface StartEntry {
  key: string;
  writtenAt: number;
  validUntil: number;
  stamps: StartStamps;
  view: StartView;
  /** What was said on stderr when it was computed, said again at a hit. */
  notes: string[];
  result: SessionRecoveryResult;
  /** The in-progress ids the block was made from (the session's bindings to others end). */
  inProgressIds?: string[];
}

interface CacheFile {
  format: number;
  entries: StartEntry[];
}

/** The names of the environment that reach the block: ours, beads', git's, the home and PATH the CLIs and files are found by. */
const ENV_PREFIXES = ['BEADS_', 'BD_', 'BR_', 'GIT_', 'XDG_'];
const ENV_NAMES = new Set(['PATH', 'PATHEXT', 'HOME', 'USERPROFILE', 'USER', 'USERNAME', 'LOGNAME', 'APPDATA', 'LOCALAPPDATA', 'CODEX_HOME', 'COPILOT_HOME', 'CLAUDE_CONFIG_DIR', 'CLAUDE_PROJECT_DIR', 'CURSOR_PROJECT_DIR', 'GEMINI_CLI_HOME']);

export function envStamp(env: NodeJS.ProcessEnv): string {
  const kept = Object.entries(env)
    .filter(([name, value]) => value !== undefined && (ENV_NAMES.has(name) || ENV_PREFIXES.some((prefix) => name.startsWith(prefix))))
    .sort(([a], [b]) => compareText(a, b));
  return JSON.stringify([homedir(), kept]);
}

export interface StartKeyFacts {
  cwd: string;
  budget: number | undefined;
  agent: string | undefined;
  trusted: boolean;
  actor: string | undefined;
  env: NodeJS.ProcessEnv;
}

export function startKey(facts: StartKeyFacts): string {
  return fnv1a(JSON.stringify([FORMAT, path.resolve(facts.cwd), facts.budget ?? null, facts.agent ?? null, facts.trusted, facts.actor ?? null, envStamp(facts.env)]));
}

/** The paths stamped for a start in `cwd`: plain files (or absent), and trees whose every entry is stamped. */
export interface StampPlaces {
  files: string[];
  trees: string[];
}

/**
 * The places of a start's inputs: the beads folders from `cwd` up to the project (`holder`), the
 * store (`beadsDir`, after a redirect), the state beside the ledger in `gitDir`, the prime
 * detection's files, and the CLIs on PATH.
 */
export function stampPlaces(facts: { cwd: string; holder: string; beadsDir: string; gitDir: string; prime: { files: string[]; folders: string[] }; env: NodeJS.ProcessEnv; cliPath: string | undefined }): StampPlaces {
  const files: string[] = [];
  for (let dir = path.resolve(facts.cwd); ; dir = path.dirname(dir)) {
    files.push(...storeFolderCandidates(dir));
    if (dir === facts.holder || path.dirname(dir) === dir) break;
  }
  const state = path.join(facts.gitDir, LEDGER_DIR);
  files.push(...['ledger.json', 'last-close.json', 'outbox.json', 'threads.json'].map((name) => path.join(state, name)));
  files.push(...facts.prime.files);
  const executables = process.platform === 'win32' ? ['', ...(facts.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')].flatMap((ext) => [`bd${ext}`, `br${ext}`]) : ['bd', 'br'];
  for (const dir of (facts.env.PATH ?? '').split(path.delimiter).filter(Boolean)) for (const name of executables) files.push(path.join(dir, name));
  if (facts.cliPath) files.push(facts.cliPath);
  const trees = [...new Set([...storeFolderCandidates(facts.holder), facts.beadsDir])];
  return { files: [...new Set(files)], trees: [...trees, ...facts.prime.folders] };
}

/**
 * Every place's stamp; undefined when a tree is too large to stamp. Synchronous on purpose: only
 * hook processes stamp, where nothing else waits on the event loop, and some forty `lstat`s each
 * sent through the thread pool cost a start about 5 ms more CPU than the same calls made inline.
 */
export function stampFiles(places: StampPlaces): Record<string, string> | undefined {
  const stamps: Record<string, string> = {};
  for (const file of places.files) stamps[file] = stampOf(file);
  for (const tree of places.trees) {
    const entries = treeEntries(tree);
    if (entries === undefined) return undefined;
    for (const file of entries) stamps[file] = stampOf(file);
    // The listing itself: an entry created or removed.
    stamps[`${tree}${path.sep}`] = entries.join('\0');
  }
  return stamps;
}

function stampOf(file: string): string {
  let info: Stats | undefined;
  try {
    info = lstatSync(file, { throwIfNoEntry: false });
  } catch {
    // Unreadable (a path through a file, a folder closed to us): as absent, and the same next time.
  }
  return info ? `${info.size}:${info.mtimeMs}:${info.ino}:${info.mode}` : '-';
}

/** Every path in `tree` (depth first, sorted), or undefined past the limit; [] when it is no folder. */
function treeEntries(tree: string): string[] | undefined {
  const found: string[] = [];
  const walk = (dir: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries.sort((a, b) => compareText(a.name, b.name))) {
      const full = path.join(dir, entry.name);
      found.push(full);
      if (found.length > TREE_ENTRY_LIMIT) return false;
      if (entry.isDirectory() && !walk(full)) return false;
    }
    return true;
  };
  return walk(tree) ? found : undefined;
}

export async function projectCacheStamp(gitDir: string): Promise<string> {
  const text = await readTextFile(path.join(gitDir, LEDGER_DIR, 'project-cache.json'), { maxBytes: SMALL_FILE_MAX_BYTES }).catch(() => undefined);
  return text === undefined ? '-' : fnv1a(text);
}

export function sameStamps(a: StartStamps, b: StartStamps): boolean {
  if (a.projectCache !== b.projectCache) return false;
  const keys = Object.keys(a.files);
  return keys.length === Object.keys(b.files).length && keys.every((key) => a.files[key] === b.files[key]);
}

/** The cache file of a repository's git dir. Unreadable or damaged is as if empty; a write that fails costs the next start a miss. */
export class StartBlockCache {
  readonly file: string;

  constructor(gitDir: string) {
    this.file = path.join(gitDir, LEDGER_DIR, START_BLOCK_FILE);
  }

  async entry(key: string): Promise<StartEntry | undefined> {
    return (await this.read()).entries.find((entry) => entry.key === key);
  }

  async save(entry: StartEntry): Promise<void> {
    const kept = (await this.read()).entries.filter((other) => other.key !== entry.key);
    const entries = [entry, ...kept.sort((a, b) => b.writtenAt - a.writtenAt)].slice(0, ENTRY_LIMIT);
    // Whole or not at all: another hook may read it at this moment.
    const partial = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await writeFile(partial, JSON.stringify({ format: FORMAT, entries } satisfies CacheFile), { mode: 0o600 });
      await rename(partial, this.file);
    } catch {
      await rm(partial, { force: true }).catch(() => undefined);
    }
  }

  private async read(): Promise<CacheFile> {
    try {
      const parsed = JSON.parse((await readTextFile(this.file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '') as Partial<CacheFile>;
      if (parsed.format === FORMAT && Array.isArray(parsed.entries)) return { format: FORMAT, entries: parsed.entries };
    } catch {
      // Missing or damaged: nothing cached.
    }
    return { format: FORMAT, entries: [] };
  }
}
