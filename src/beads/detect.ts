import { constants } from 'node:fs';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Dialect } from '../core/model';
import { parseWhere, type WhereInfo } from '../core/parse';
import type { BeadsBackend } from './backend';
import { bdMigrationFor, describeMigration, localVersion, type BdMigration } from './bdMigration';
import { createCliBackend } from './cliBackend';
import { brJsonlIsCurrent, readingCurrentJsonl } from './currentJsonl';
import { CliError } from './errors';
import { createJsonlBackend } from './jsonlBackend';
import { runCliJson } from './runCli';
import { errorMessage } from '../core/errors';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

export interface DetectOptions {
  /** An executable named by the user. Honoured only when `trusted`. */
  cliPath?: string;
  preferred?: 'auto' | Dialect;
  /** Workspace Trust: an untrusted folder never gets a process started for it. */
  trusted: boolean;
  timeoutMs: number;
  /** The PATH to search; the process's own by default. */
  pathEnv?: string;
  /** Windows executable extensions; the process's PATHEXT by default. */
  pathExtEnv?: string;
  /** Added to the CLI's environment (tests use it for the stand-ins' switches). */
  env?: Record<string, string>;
  /** Remembers `where --json` per folder and executable, so that a new process need not ask again. */
  whereCache?: WhereCache;
  /**
   * Start no `where --json` when the store (walking up, following `redirect`) and the dialect (the
   * executable's name or the user's choice) are known without it: the first query validates the
   * CLI instead, and its failure is the caller's to handle (the command line's one-shot contexts).
   */
  skipWhere?: boolean;
  signal?: AbortSignal;
}

/** What identifies one `where` answer: the folder asked about and the executable, as it is on disk. */
export interface WhereKey {
  folder: string;
  command: string;
  /** The executable's modification time, size and inode: a reinstalled CLI is asked again. */
  stamp: string;
}

export interface CachedWhere {
  dialect: Dialect;
  where: WhereInfo;
}

export interface WhereCache {
  get(key: WhereKey): Promise<CachedWhere | undefined>;
  set(key: WhereKey, value: CachedWhere): Promise<void>;
}

export type ReadOnlyReason = 'cli-missing' | 'untrusted' | 'cli-failed' | 'cli-timeout' | 'migrating';

export type Detection =
  /** `where` is absent when `skipWhere` left it out. */
  | { kind: 'cli'; backend: BeadsBackend; cli: Dialect; beadsDir: string; where?: WhereInfo }
  /** `migration`: bd 1.3 is migrating the store (reason `migrating`); writes wait, reads come from the file. */
  | { kind: 'readonly'; backend: BeadsBackend; cli: Dialect; beadsDir: string; reason: ReadOnlyReason; message: string; migration?: BdMigration }
  | { kind: 'none' };

const INSTALL_HINT =
  'Install beads (bd: https://github.com/steveyegge/beads, br: https://github.com/Dicklesworthstone/beads_rust) ' +
  'or set the user setting beadsRecovery.cliPath to the executable.';

/**
 * Finds the beads project that contains `folder` and picks a backend for it, starting at most
 * one process (`where --json`, which also confirms the CLI really is a beads CLI; none with
 * `skipWhere`). A br project's reads come from its `issues.jsonl` while that is current.
 *
 * The dialect comes from the user's choice, else from which of `bd`/`br` is on PATH (looked up
 * in the file system, nothing is run), else — when both are — from the store's files.
 * Without a usable CLI the project is served read-only from `.beads/issues.jsonl`.
 */
export async function detectProject(folder: string, options: DetectOptions): Promise<Detection> {
  const found = await findBeadsDir(folder);
  if (!found) return { kind: 'none' };
  const { root, beadsDir } = found;
  const storeDialect = await dialectFromStore(beadsDir);
  const preferred = options.preferred === 'bd' || options.preferred === 'br' ? options.preferred : undefined;

  const readOnly = (cli: Dialect, reason: ReadOnlyReason, why: string): Promise<Detection> => readOnlyDetection({ root, beadsDir }, cli, reason, why);

  if (!options.trusted) {
    // Which CLI to name in the rules: the store's own, else the one installed (looked up, never run).
    const installed = (storeDialect ?? preferred) ? undefined : await chooseCli({ ...options, cliPath: undefined }, undefined, undefined);
    return readOnly(preferred ?? storeDialect ?? installed?.dialect ?? 'br', 'untrusted', 'This workspace is not trusted, so no beads CLI is run for it.');
  }

  const choice = await chooseCli(options, preferred, storeDialect);
  if (!choice) {
    const missing = preferred ? `'${preferred}' was not found on PATH.` : 'Neither bd nor br was found on PATH.';
    return readOnly(preferred ?? storeDialect ?? 'br', 'cli-missing', `${missing} ${INSTALL_HINT}`);
  }

  // bd 1.3's first run migrates the store and must not be stopped: it runs on its own, and the
  // project is read from its file until it is done (src/beads/bdMigration.ts).
  if (choice.dialect === 'bd') {
    const migration = await bdMigrationFor(choice.command, { root, beadsDir, timeoutMs: options.timeoutMs, env: options.env, signal: options.signal });
    if (migration) {
      const detection = await readOnly('bd', 'migrating', describeMigration(migration, Date.now()));
      return detection.kind === 'readonly' ? { ...detection, migration } : detection;
    }
  }

  const redirectedByEnvironment = STORE_VARIABLES.some((name) => (options.env?.[name] ?? process.env[name]) !== undefined);
  const cliBackend = async (dialect: Dialect, activeDir: string): Promise<BeadsBackend> => {
    const lastUsedVersion = dialect === 'bd' ? await localVersion(activeDir) : undefined;
    const backend = createCliBackend({ dialect, command: choice.command, root: dirname(activeDir), beadsDir: activeDir, timeoutMs: options.timeoutMs, env: options.env, lastUsedVersion });
    // br keeps issues.jsonl current after every write: read it while it is, and spare the processes.
    if (dialect !== 'br' || redirectedByEnvironment) return backend;
    const jsonlPath = await jsonlPathOf(activeDir);
    const jsonl = createJsonlBackend({ root: dirname(activeDir), beadsDir: activeDir, jsonlPath, dialect });
    return readingCurrentJsonl(backend, jsonl, () => brJsonlIsCurrent(activeDir, jsonlPath));
  };
  // The store and the dialect are known, and nothing in the environment points the CLI elsewhere.
  if (options.skipWhere && choice.certain && !redirectedByEnvironment) {
    return { kind: 'cli', backend: await cliBackend(choice.dialect, beadsDir), cli: choice.dialect, beadsDir };
  }

  const stamp = options.whereCache ? await executableStamp(choice.command) : undefined;
  const key: WhereKey | undefined = stamp ? { folder: resolve(folder), command: choice.command, stamp } : undefined;
  // A remembered answer stands while the executable is unchanged and the store is still there.
  const cached = key ? await options.whereCache?.get(key).catch(() => undefined) : undefined;
  const remembered = cached && (await holdsProject(resolve(folder, cached.where.path))) ? cached : undefined;

  let answer = remembered;
  if (!answer) {
    let where: WhereInfo | undefined;
    let whereJson: unknown;
    try {
      whereJson = await runCliJson(choice.command, ['where', '--json'], {
        cwd: folder,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        env: options.env,
      });
      where = parseWhere(whereJson);
    } catch (error) {
      if (error instanceof CliError && error.kind === 'canceled') throw error;
      if (error instanceof CliError && error.kind === 'notFound') {
        return readOnly(choice.dialect, 'cli-missing', `${error.message}. ${INSTALL_HINT}`);
      }
      // A hang is not a wrong path: the user needs Retry or a longer timeout, not the path setting.
      if (error instanceof CliError && error.kind === 'timeout') {
        return readOnly(choice.dialect, 'cli-timeout', `${error.message} (beadsRecovery.cliTimeoutMs).`);
      }
      return readOnly(choice.dialect, 'cli-failed', `${errorMessage(error)}.`);
    }
    if (!where) {
      return readOnly(choice.dialect, 'cli-failed', `'${basename(choice.command)} where --json' did not report a beads project.`);
    }
    answer = { dialect: choice.certain ? choice.dialect : sniffDialect(where, whereJson, storeDialect), where };
    if (key) await options.whereCache?.set(key, answer).catch(() => undefined);
  }
  const { dialect, where } = answer;
  const reported = isAbsolute(where.path) ? where.path : resolve(folder, where.path);
  // Both CLIs print the canonical path (C10): the folder as the user opened it is kept when it is
  // the same one, so that paths compare equal everywhere (a symlinked or macOS /tmp workspace).
  const activeDir = (await samePath(reported, beadsDir)) ? beadsDir : reported;
  return { kind: 'cli', backend: await cliBackend(dialect, activeDir), cli: dialect, beadsDir: activeDir, where };
}

/** Both CLIs read these to find their store instead of walking up from the working folder (§1 "Discovery rule"). */
const STORE_VARIABLES = ['BEADS_DIR', 'BEADS_DB', 'BEADS_JSONL'];

/** The project served read-only from its `.beads/issues.jsonl`, saying why. */
export async function readOnlyDetection(store: { root: string; beadsDir: string }, cli: Dialect, reason: ReadOnlyReason, why: string): Promise<Detection> {
  const jsonlPath = await jsonlPathOf(store.beadsDir);
  const backend = createJsonlBackend({ root: store.root, beadsDir: store.beadsDir, jsonlPath, dialect: cli, reason: readOnlyReasonText(reason) });
  return { kind: 'readonly', backend, cli, beadsDir: store.beadsDir, reason, message: `${why} Showing ${jsonlPath} read-only.` };
}

interface CliChoice {
  dialect: Dialect;
  command: string;
  /** False when the user named an executable whose name does not say which CLI it is. */
  certain: boolean;
}

async function chooseCli(options: DetectOptions, preferred: Dialect | undefined, storeDialect: Dialect | undefined): Promise<CliChoice | undefined> {
  if (options.cliPath) {
    const named = dialectFromName(options.cliPath);
    const dialect = preferred ?? named ?? storeDialect ?? 'bd';
    return { dialect, command: options.cliPath, certain: preferred !== undefined || named !== undefined };
  }
  const search = (name: Dialect) => findOnPath(name, options.pathEnv ?? process.env.PATH ?? '', options.pathExtEnv ?? process.env.PATHEXT);
  if (preferred) {
    const command = await search(preferred);
    return command ? { dialect: preferred, command, certain: true } : undefined;
  }
  const [bd, br] = await Promise.all([search('bd'), search('br')]);
  if (bd && br) {
    const dialect = storeDialect ?? 'bd';
    return { dialect, command: dialect === 'bd' ? bd : br, certain: true };
  }
  if (bd) return { dialect: 'bd', command: bd, certain: true };
  if (br) return { dialect: 'br', command: br, certain: true };
  return undefined;
}

function dialectFromName(path: string): Dialect | undefined {
  const name = basename(path).toLowerCase().replace(/\.(exe|cmd|bat)$/, '');
  return name === 'bd' || name === 'br' ? name : undefined;
}

/** The executable `name` in a PATH entry, without starting anything. */
export async function findOnPath(name: string, pathEnv: string, pathExtEnv?: string): Promise<string | undefined> {
  const extensions = process.platform === 'win32' ? (pathExtEnv ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : [''];
  for (const entry of pathEnv.split(delimiter)) {
    if (!entry) continue;
    for (const extension of extensions) {
      const candidate = join(entry, name + extension.toLowerCase());
      if (await isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The executable's identity on disk, or undefined when it is not a file this process can see. */
async function executableStamp(command: string): Promise<string | undefined> {
  try {
    const info = await stat(command);
    return info.isFile() ? `${info.mtimeMs}:${info.size}:${info.ino}` : undefined;
  } catch {
    return undefined;
  }
}

async function isExecutableFile(path: string): Promise<boolean> {
  return (await notExecutableBecause(path)) === undefined;
}

/**
 * Why `path` cannot be run as the beads CLI, or undefined when it can: it must be an absolute
 * path (nothing resolves it against a working folder or PATH) to a file that is executable (on
 * Windows, which has no execute bit, any file). Checked on the machine the extension runs on, which
 * in a remote window is the remote machine, where the CLI runs.
 */
export async function executableProblem(path: string): Promise<string | undefined> {
  if (!isAbsolute(path)) return 'Give the full path of the executable.';
  return notExecutableBecause(path);
}

async function notExecutableBecause(path: string): Promise<string | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return `${path} does not exist.`;
  }
  if (!info.isFile()) return `${path} is not a file.`;
  if (process.platform === 'win32') return undefined;
  try {
    await access(path, constants.X_OK);
    return undefined;
  } catch {
    return `${path} is not executable (chmod +x).`;
  }
}

/**
 * Walks up from `folder` to the first `.beads` (or br's `_beads`) that holds a project,
 * following a one-level `redirect` file the way bd does: the first non-comment line, relative
 * to the folder that holds `.beads`, ignored when it does not name a folder.
 */
/** The store folders findBeadsDir looks for in `folder`, in its order (what the start block's cache stamps). */
export function storeFolderCandidates(folder: string): string[] {
  return ['.beads', '_beads'].map((name) => join(folder, name));
}

/** A beads store found from a folder: its project root, the store folder (after a redirect), and the folder the walk found it in. */
export interface StoreFolder {
  root: string;
  beadsDir: string;
  holder: string;
}

export async function findBeadsDir(folder: string): Promise<StoreFolder | undefined> {
  let current = resolve(folder);
  for (;;) {
    for (const candidate of storeFolderCandidates(current)) {
      if (!(await isDirectory(candidate))) continue;
      const active = await followRedirect(candidate);
      // `holder`: the folder the walk found it in, which a redirect does not move.
      if (await holdsProject(active)) return { root: dirname(active), beadsDir: active, holder: current };
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

async function followRedirect(beadsDir: string): Promise<string> {
  let content: string | undefined;
  try {
    content = await readTextFile(join(beadsDir, 'redirect'), { maxBytes: SMALL_FILE_MAX_BYTES });
  } catch {
    return beadsDir;
  }
  if (content === undefined) return beadsDir;
  const target = content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line.length > 0 && !line.startsWith('#'));
  if (!target) return beadsDir;
  const resolved = isAbsolute(target) ? target : resolve(dirname(beadsDir), target);
  return (await isDirectory(resolved)) ? resolved : beadsDir;
}

/** A `.beads` with project files, not a leftover registry such as `~/.beads/registry.json`. */
async function holdsProject(beadsDir: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(beadsDir);
  } catch {
    return false;
  }
  const markers = ['metadata.json', 'config.yaml', 'issues.jsonl', 'dolt', 'embeddeddolt'];
  return entries.some((entry) => markers.includes(entry) || (entry.endsWith('.db') && entry !== 'vc.db'));
}

/** Which CLI's store this is, from its files (docs/BEADS_CONTRACT.md §0, §3): br keeps SQLite, bd v1 Dolt. */
export async function dialectFromStore(beadsDir: string): Promise<Dialect | undefined> {
  let entries: string[];
  try {
    entries = await readdir(beadsDir);
  } catch {
    return undefined;
  }
  if (entries.includes('embeddeddolt') || entries.includes('dolt')) return 'bd';
  const metadata = await readMetadata(beadsDir);
  if (metadata?.backend === 'dolt' || typeof metadata?.dolt_mode === 'string') return 'bd';
  if (entries.includes('beads.db')) return 'br';
  if (typeof metadata?.jsonl_export === 'string') return 'br';
  return undefined;
}

/** The JSONL file of a store: br may name its own in metadata.json. */
export async function jsonlPathOf(beadsDir: string): Promise<string> {
  const metadata = await readMetadata(beadsDir);
  const exported = metadata?.jsonl_export;
  // br names its export in metadata.json; only a plain file name inside .beads is accepted.
  if (typeof exported === 'string' && exported.length > 0 && basename(exported) === exported) return join(beadsDir, exported);
  return join(beadsDir, 'issues.jsonl');
}

async function readMetadata(beadsDir: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse((await readTextFile(join(beadsDir, 'metadata.json'), { maxBytes: SMALL_FILE_MAX_BYTES })) ?? 'null');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Which CLI a user-named executable is, from its `where` answer (C14): br always names its JSONL
 * (`jsonl_path`), bd never does; bd ≥ 1.0.3 adds `schema_version`; a bd ≤ 1.0.2 prints neither,
 * so then the store's files decide, bd when they do not say.
 */
function sniffDialect(where: WhereInfo, whereJson: unknown, storeDialect: Dialect | undefined): Dialect {
  if (where.jsonlPath) return 'br';
  if (typeof whereJson === 'object' && whereJson !== null && 'schema_version' in whereJson) return 'bd';
  return storeDialect ?? 'bd';
}

/** Whether two paths name the same file once links are resolved on both sides (C10). */
export async function samePath(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([canonical(a), canonical(b)]);
  return process.platform === 'win32' || process.platform === 'darwin' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

function readOnlyReasonText(reason: ReadOnlyReason): string {
  switch (reason) {
    case 'untrusted':
      return 'the workspace is not trusted';
    case 'cli-missing':
      return 'no beads CLI was found';
    case 'cli-failed':
      return 'the beads CLI failed when the project was opened';
    case 'cli-timeout':
      return 'the beads CLI did not answer in time when the project was opened';
    case 'migrating':
      return 'bd is migrating the store; writes wait until it is done';
  }
}
