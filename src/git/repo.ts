import * as path from 'node:path';
import { CliError } from '../beads/errors';
import { NotGitRepositoryError, runGit, type GitOptions } from './runGit';

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
 * Finds the repository around `folder` with one git process, or undefined when the folder is not
 * in a work tree (or git is missing): the caller then tracks files without linking commits.
 */
export async function findRepository(folder: string, options: GitOptions): Promise<GitRepository | undefined> {
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
  shortHash: string;
  subject: string;
}

/**
 * The abbreviated hash and subject of each commit, with one git process for all of them
 * (`git log --no-walk --format=%H%x00%h%x00%s`). Rejects when any of them is unknown.
 */
export async function describeCommits(repositoryRoot: string, hashes: readonly string[], options: GitOptions): Promise<Map<string, CommitDescription>> {
  const described = new Map<string, CommitDescription>();
  if (hashes.length === 0) return described;
  const { stdout } = await runGit(repositoryRoot, ['log', '--no-walk=unsorted', '--no-show-signature', '--format=%H%x00%h%x00%s', ...hashes, '--'], options);
  for (const line of stdout.split('\n')) {
    const [hash, shortHash, subject] = line.split('\0');
    if (hash && shortHash !== undefined && subject !== undefined) described.set(hash, { shortHash, subject });
  }
  return described;
}
