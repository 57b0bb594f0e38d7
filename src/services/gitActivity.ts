// What git shows of the work since a checkpoint, for checkpoints written outside VS Code (the
// command line, hooks, the MCP server), where no watcher recorded the edits as they happened.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitRecords } from '../core/checkpointDecision';
import { trackedPathFilter } from '../core/ledger';
import { NotGitRepositoryError, runGit, type GitOptions } from '../git/runGit';
import { gitStatus } from '../git/status';

/**
 * Commits on HEAD since `since` (oldest first) with the files they changed and their commit time,
 * plus uncommitted files with their modification time. The decision (src/core/checkpointDecision.ts
 * `gitWorkSince`) takes what falls in the chosen issue's window: git is read once, from the
 * earliest window the decision may need.
 */
export async function gitRecords(repositoryRoot: string, since: number, options: GitOptions): Promise<GitRecords> {
  const sinceArg = `--since=${new Date(since).toISOString()}`;
  let logText = '';
  try {
    ({ stdout: logText } = await runGit(repositoryRoot, ['log', sinceArg, '--reverse', '--no-show-signature', '--name-only', '--format=%x01%H%x00%ct%x00%s'], options));
  } catch (error) {
    if (error instanceof NotGitRepositoryError) return { commits: [], changed: [] };
    // A repository without commits has no HEAD to log from; its uncommitted files still count.
    if (await hasHead(repositoryRoot, options)) throw error;
  }
  const isWork = trackedPathFilter([]);
  const commits: { hash: string; subject: string; committedAt: number; files: string[] }[] = [];
  for (const record of logText.split('\u0001').slice(1)) {
    const [header = '', ...names] = record.split('\n');
    const [hash, committedAt, ...subject] = header.split('\0');
    if (!hash) continue;
    commits.push({ hash, subject: subject.join('\0'), committedAt: Number(committedAt) * 1000, files: names.filter((name) => name.trim() !== '' && isWork(name)) });
  }
  const changed: { path: string; modifiedAt?: number }[] = [];
  for (const change of await gitStatus(repositoryRoot, options)) {
    if (!isWork(change.path)) continue;
    const modifiedAt = await stat(path.join(repositoryRoot, change.path)).then((info) => info.mtimeMs, () => undefined);
    changed.push({ path: change.path, ...(modifiedAt === undefined ? {} : { modifiedAt }) });
  }
  return { commits, changed };
}

async function hasHead(repositoryRoot: string, options: GitOptions): Promise<boolean> {
  try {
    await runGit(repositoryRoot, ['rev-parse', '--verify', '--quiet', 'HEAD'], options);
    return true;
  } catch {
    return false;
  }
}
