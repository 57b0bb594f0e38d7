// How every process outside VS Code (the command line, the agent hooks, the MCP server) reads its
// settings and finds the beads project of a folder: the environment is read here and nowhere else
// (BEADS_RECOVERY_CLI, BEADS_RECOVERY_CLI_PATH, BEADS_RECOVERY_TIMEOUT_MS), and the one detection
// call follows from it. The checkpoint flow's openFolder and the recovery context both start here.
import path from 'node:path';
import { detectProject, type Detection, type WhereCache } from '../beads/detect';
import { clampTimeoutMs } from '../core/time';

/** A beads CLI call's bound when BEADS_RECOVERY_TIMEOUT_MS does not say. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** The settings a folder is opened with, as the environment gives them. */
export interface FolderSettings {
  /** Each CLI call's bound (BEADS_RECOVERY_TIMEOUT_MS, clamped). */
  timeoutMs: number;
  /** BEADS_RECOVERY_CLI: `bd` or `br`, else whichever the store and PATH say. */
  preferred: 'bd' | 'br' | 'auto';
  /** BEADS_RECOVERY_CLI_PATH: the executable to run. */
  cliPath: string | undefined;
  /** The environment the CLI runs with: the one given, else the process's own. */
  env: NodeJS.ProcessEnv;
  /** Whether the environment was given (a hook's, a test's) rather than the process's own. */
  given: boolean;
}

/** The one reading of the environment for opening a folder. */
export function folderSettings(env?: NodeJS.ProcessEnv): FolderSettings {
  const read = env ?? process.env;
  return {
    timeoutMs: clampTimeoutMs(read.BEADS_RECOVERY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    preferred: read.BEADS_RECOVERY_CLI === 'bd' || read.BEADS_RECOVERY_CLI === 'br' ? read.BEADS_RECOVERY_CLI : 'auto',
    cliPath: read.BEADS_RECOVERY_CLI_PATH || undefined,
    env: read,
    given: env !== undefined,
  };
}

export interface DetectFolderOptions {
  /** False: run no CLI, read the store's own file (a hook's fallback when the CLI hangs). */
  trusted?: boolean;
  signal?: AbortSignal;
  /** What the last run on this repository learnt of the CLI's `where`. */
  whereCache?: WhereCache;
}

/**
 * The beads project that contains `cwd`, detected with the folder's settings. No `where` when the
 * store and the executable's name say which CLI this is: the first read shows whether it can serve
 * (the callers fall back to the store's file when it cannot), so `where` would only add a step.
 */
export function detectFolder(cwd: string, settings: FolderSettings, options: DetectFolderOptions = {}): Promise<Detection> {
  return detectProject(path.resolve(cwd), {
    preferred: settings.preferred,
    cliPath: settings.cliPath,
    trusted: options.trusted ?? true,
    timeoutMs: settings.timeoutMs,
    pathEnv: settings.env.PATH,
    env: settings.given ? definedOnly(settings.env) : undefined,
    signal: options.signal,
    ...(options.whereCache ? { whereCache: options.whereCache } : {}),
    skipWhere: true,
  });
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
