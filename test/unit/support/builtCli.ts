// The built command line (dist/cli.js), as agent hooks and the process tests run it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const REPO = path.resolve(__dirname, '../../..');
export const CLI_SCRIPT = path.join(REPO, 'dist', 'cli.js');

/** Builds dist/cli.js when it is missing or older than any source file, so tests run what the sources say. */
export function ensureCliBuilt(): void {
  const newestSource = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs;
      }),
    );
  if (existsSync(CLI_SCRIPT) && statSync(CLI_SCRIPT).mtimeMs >= newestSource(path.join(REPO, 'src'))) return;
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'pipe' });
}
