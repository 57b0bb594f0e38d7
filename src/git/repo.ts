import { lstat, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { CliError } from '../beads/errors';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';
import { gitRefused, NotGitRepositoryError, runGit, type GitOptions } from './runGit';

/** The git directories of the work tree that holds a folder. */
export interface GitRepository {
  /** The top of the work tree. */
  root: string;
  /** This work tree's own git dir: `.git`, or `<common>/worktrees/<name>` for a linked worktree. */
  gitDir: string;
  /** The directory shared by every worktree of the repository. */
  commonDir: string;
}

/**
 * Finds the repository around `folder`, or undefined when the folder is not in a work tree (or git
 * is missing): the caller then tracks files without linking commits. Where the files say it plainly
 * (repositoryFromFiles) no process runs; anything unusual is asked of git.
 */
export async function findRepository(folder: string, options: GitOptions): Promise<GitRepository | undefined> {
  if (gitRefused()) return undefined;
  const found = await repositoryFromFiles(folder).catch(() => 'ask-git' as const);
  return found === 'ask-git' ? findRepositoryWithGit(folder, options) : found;
}

/** Environment variables that change where git looks for a repository: with any of them set, git is asked. */
const DISCOVERY_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT'];

/**
 * What `git rev-parse --show-toplevel --absolute-git-dir --git-common-dir` answers, read from the
 * files as git's own discovery reads them (a `.git` folder, or a `.git` file naming the worktree's
 * git dir and its `commondir`), with no process: undefined outside any work tree, 'ask-git' where
 * git's answer could differ from a plain reading. That is: a discovery variable in the environment,
 * Windows (git prints its own path spelling there), a folder inside a git dir or a bare repository,
 * a walk that crosses a file system, a git dir another user owns (git's safe.directory check), and
 * a config that sets core.worktree, core.bare or includes other files.
 */
export async function repositoryFromFiles(folder: string, env: NodeJS.ProcessEnv = process.env): Promise<GitRepository | undefined | 'ask-git'> {
  if (process.platform === 'win32' || DISCOVERY_ENV.some((name) => env[name] !== undefined)) return 'ask-git';
  const start = await realpath(folder);
  if (start.split(path.sep).includes('.git')) return 'ask-git';
  const device = (await stat(start)).dev;
  for (let dir = start; ; dir = path.dirname(dir)) {
    const info = await stat(dir);
    if (info.dev !== device) return 'ask-git';
    const dotGit = await lstat(path.join(dir, '.git')).catch(() => undefined);
    if (dotGit?.isDirectory()) return repositoryAt(dir, path.join(dir, '.git'));
    if (dotGit?.isFile()) {
      const named = /^gitdir: (.+)$/m.exec((await readSmall(path.join(dir, '.git'))) ?? '')?.[1]?.trim();
      return named ? repositoryAt(dir, path.resolve(dir, named)) : 'ask-git';
    }
    // A folder that is itself a git dir (a bare repository): git's answer, not ours.
    if (dotGit !== undefined || (await stat(path.join(dir, 'HEAD')).then(() => true, () => false))) return 'ask-git';
    if (path.dirname(dir) === dir) return undefined;
  }
}

async function repositoryAt(root: string, namedGitDir: string): Promise<GitRepository | 'ask-git'> {
  const gitDir = await realpath(namedGitDir);
  const common = (await readSmall(path.join(gitDir, 'commondir')).catch(() => undefined))?.trim();
  const commonDir = common ? await realpath(path.resolve(gitDir, common)) : gitDir;
  const [head, objects, owner, config] = await Promise.all([
    stat(path.join(gitDir, 'HEAD')).catch(() => undefined),
    stat(path.join(commonDir, 'objects')).catch(() => undefined),
    stat(gitDir),
    readSmall(path.join(commonDir, 'config')).then((text) => text ?? '', () => ''),
  ]);
  if (!head?.isFile() || !objects?.isDirectory()) return 'ask-git';
  if (typeof process.getuid === 'function' && owner.uid !== process.getuid()) return 'ask-git';
  if (/^\s*(worktree\s*=|bare\s*=\s*true)|^\s*\[include/im.test(config)) return 'ask-git';
  // A linked worktree may carry its own config (extensions.worktreeConfig): read by git, so asked of it.
  if (gitDir !== commonDir && (await stat(path.join(gitDir, 'config.worktree')).then(() => true, () => false))) return 'ask-git';
  return { root, gitDir, commonDir };
}

function readSmall(file: string): Promise<string | undefined> {
  return readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES });
}

/** findRepository by one git process. */
async function findRepositoryWithGit(folder: string, options: GitOptions): Promise<GitRepository | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await runGit(folder, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], options));
  } catch (error) {
    if (error instanceof NotGitRepositoryError) return undefined;
    if (error instanceof CliError && (error.kind === 'notFound' || error.kind === 'exit')) return undefined;
    throw error;
  }
  const [root, gitDir, commonDir] = stdout.split(/\r?\n/);
  // A bare repository has no work tree: rev-parse prints no top level and there is nothing to track.
  if (!root || !gitDir || !commonDir) return undefined;
  return { root, gitDir, commonDir: path.resolve(folder, commonDir) };
}

/** The HEAD reflog of a work tree: git appends a line to it for every move of HEAD. */
export function headReflogPath(repository: GitRepository): string {
  return path.join(repository.gitDir, 'logs', 'HEAD');
}

export interface CommitDescription {
  subject: string;
}

/**
 * The subject of each commit, with one git process for all of them (`git log --no-walk
 * --format=%H%x00%s`; its short hash is src/core/commitHash.ts's, one length everywhere, not
 * git's abbreviation, which grows with the repository). Rejects when any of them is unknown.
 */
export async function describeCommits(repositoryRoot: string, hashes: readonly string[], options: GitOptions): Promise<Map<string, CommitDescription>> {
  const described = new Map<string, CommitDescription>();
  if (hashes.length === 0) return described;
  const { stdout } = await runGit(repositoryRoot, ['log', '--no-walk=unsorted', '--no-show-signature', '--format=%H%x00%s', ...hashes, '--'], options);
  for (const line of stdout.split('\n')) {
    const [hash, subject] = line.split('\0');
    if (hash && subject !== undefined) described.set(hash, { subject });
  }
  return described;
}
