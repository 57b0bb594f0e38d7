/** One entry of `git status`: `status` is porcelain v1's two-letter XY code, verbatim (`M `, ` M`, `??`, `R `…). */
export interface GitChange {
  path: string;
  status: string;
  /** The source path of a rename or copy. */
  from?: string;
}

/**
 * Parses `git status --porcelain=v1 -z`. Each entry is `XY path` followed by NUL; a rename or
 * copy (R or C in either column) is followed by one more NUL-terminated field, the source path.
 * With -z, paths are never quoted, so spaces, quotes and newlines arrive as they are.
 */
export function parsePorcelainZ(text: string): GitChange[] {
  const fields = text.split('\0');
  const changes: GitChange[] = [];
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as string;
    // The last split piece is the empty remainder after the final NUL.
    if (field.length < 4 || field[2] !== ' ') continue;
    const status = field.slice(0, 2);
    const path = field.slice(3);
    if (/[RC]/.test(status)) {
      const from = fields[index + 1];
      index++;
      changes.push(from ? { path, status, from } : { path, status });
    } else {
      changes.push({ path, status });
    }
  }
  return changes;
}
