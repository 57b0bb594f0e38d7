// Installed files that name paths of this machine (the MCP registrations, the opencode plugin)
// must not reach a teammate through git: an untracked one goes into `.git/info/exclude` (local,
// never committed), and one git already tracks is named so the user can keep it out of commits.
// Claude Code's `.claude/settings.local.json` is private by design and kept out the same way.
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { registeredLauncher } from '../core/mcpConfig';
import { readOpencodePlugin } from '../core/opencodePlugin';
import { runGit } from '../git/runGit';
import type { FileChange } from './agentSetup';
import { readIfPresent } from './files';

const GIT_TIMEOUT_MS = 5000;

/** Whether the file as planned names paths of this machine, so it is the user's alone. */
export function namesMachinePaths(change: Pick<FileChange, 'agent' | 'after'>): boolean {
  return registeredLauncher(change.after, change.agent) !== undefined || readOpencodePlugin(change.after) !== undefined;
}

export interface LocalFileNote {
  /** What the user is told. */
  message: string;
  /** Keeps the file out of git (adds it to `.git/info/exclude`); nothing when it is already ignored or tracked. */
  apply: () => Promise<void>;
}

/** How a file that must stay local is kept out of git; undefined outside git or when it is ignored already. */
export async function keepLocal(root: string, relative: string): Promise<LocalFileNote | undefined> {
  try {
    const ignored = await runGit(root, ['check-ignore', '-q', '--', relative], { timeoutMs: GIT_TIMEOUT_MS, okExitCodes: [0, 1] });
    if (ignored.exitCode === 0) return undefined;
    const tracked = await runGit(root, ['ls-files', '--error-unmatch', '--', relative], { timeoutMs: GIT_TIMEOUT_MS, okExitCodes: [0, 1] });
    if (tracked.exitCode === 0) {
      return {
        message: `${relative} is tracked by git and now holds paths of this machine: keep this change out of your commits (teammates get their own by installing).`,
        apply: () => Promise.resolve(),
      };
    }
    const exclude = path.resolve(root, (await runGit(root, ['rev-parse', '--git-path', 'info/exclude'], { timeoutMs: GIT_TIMEOUT_MS })).stdout.trim());
    const entry = `/${relative.split(path.sep).join('/')}`;
    return {
      message: `${relative} holds paths of this machine, so it stays local: ${entry} is added to .git/info/exclude (never committed).`,
      apply: async () => {
        await mkdir(path.dirname(exclude), { recursive: true });
        const current = (await readIfPresent(exclude)) ?? '';
        if (current.split(/\r?\n/).includes(entry)) return;
        await appendFile(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${entry}\n`, 'utf8');
      },
    };
  } catch {
    return undefined;
  }
}
