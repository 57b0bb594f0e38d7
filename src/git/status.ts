import { isBeadsFile } from '../core/beadsFiles';
import { parsePorcelainZ, type GitChange } from '../core/porcelain';
import { runGit, type GitOptions } from './runGit';

/**
 * Uncommitted changes of the work tree that contains `cwd`, untracked files listed one by one,
 * less beads' own files (core/beadsFiles.ts: in and beside `.beads/`), which are nobody's work.
 * Rejects with `NotGitRepositoryError` outside a repository, `CliError` otherwise.
 */
export async function gitStatus(cwd: string, options: GitOptions): Promise<GitChange[]> {
  const { stdout } = await runGit(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], options);
  return parsePorcelainZ(stdout).filter((change) => !isBeadsFile(change.path));
}
