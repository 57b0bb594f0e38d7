// How a commit is named wherever a person reads it (the view, the status bar's tooltip, checkpoint
// text, the recovery context): one length everywhere, git's classic short hash. Pure.

export const COMMIT_HASH_CHARS = 7;

export function shortCommitHash(hash: string): string {
  return hash.slice(0, COMMIT_HASH_CHARS);
}
