// What git shows of the work since a checkpoint, for checkpoints written outside VS Code (the
// command line, hooks, the MCP server), where no watcher recorded the edits as they happened.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CommitRef } from '../core/checkpoint';
import { trackedPathFilter } from '../core/ledger';
import { NotGitRepositoryError, runGit, type GitOptions } from '../git/runGit';
import { gitStatus } from '../git/status';

/**
 * Commits on HEAD since `since` (newest last) with the files they changed, plus uncommitted files
 * modified since then (by modification time; a deleted file has none and counts).
 */
export async function gitActivity(repositoryRoot: string, since: number, options: GitOptions): Promise<{ files: string[]; commits: CommitRef[] }> {
  const sinceArg = `--since=${new Date(since).toISOString()}`;
  let logText = '';
  try {
    ({ stdout: logText } = await runGit(repositoryRoot, ['log', sinceArg, '--reverse', '--no-show-signature', '--name-only', '--format=%x01%H%x00%ct%x00%s'], options));
  } catch (error) {
    if (error instanceof NotGitRepositoryError) return { files: [], commits: [] };
    // A repository without commits has no HEAD to log from; its uncommitted files still count.
    if (await hasHead(repositoryRoot, options)) throw error;
  }
  const isWork = trackedPathFilter([]);
  const files = new Set<string>();
  const commits: CommitRef[] = [];
  for (const record of logText.split('\u0001').slice(1)) {
    const [header = '', ...names] = record.split('\n');
    const [hash, committedAt, ...subject] = header.split('\0');
    // git's --since has whole seconds: a commit from the second of the last checkpoint but before it is left out here.
    if (!hash || Number(committedAt) * 1000 <= since) continue;
    commits.push({ hash, subject: subject.join('\0') });
    for (const name of names) if (name.trim() !== '' && isWork(name)) files.add(name);
  }
  for (const change of await gitStatus(repositoryRoot, options)) {
    if (!isWork(change.path)) continue;
    const modifiedAt = await stat(path.join(repositoryRoot, change.path)).then((info) => info.mtimeMs, () => undefined);
    if (modifiedAt === undefined || modifiedAt > since) files.add(change.path);
  }
  return { files: [...files], commits };
}

async function hasHead(repositoryRoot: string, options: GitOptions): Promise<boolean> {
  try {
    await runGit(repositoryRoot, ['rev-parse', '--verify', '--quiet', 'HEAD'], options);
    return true;
  } catch {
    return false;
  }
}

/** Commits of both lists, once each: the ledger keeps short or full hashes, git gives full ones. */
export function uniqueCommits(commits: readonly CommitRef[]): CommitRef[] {
  const seen = new Set<string>();
  const unique: CommitRef[] = [];
  for (const commit of commits) {
    const known = [...seen].some((hash) => hash.startsWith(commit.hash) || commit.hash.startsWith(hash));
    if (known) continue;
    seen.add(commit.hash);
    unique.push(commit);
  }
  return unique;
}
