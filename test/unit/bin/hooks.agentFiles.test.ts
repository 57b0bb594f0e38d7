// No agent's own files count as work: `hooks install --agent all --mcp` (and `--shared`) writes
// every file of every agent into a real project, and the next checkpoint lists only the user's
// file. Real processes: the stand-in br over a JSONL store, in a real git repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkpointCommand } from '../../../src/bin/checkpoint';
import { hooksCommand } from '../../../src/bin/hooks';

const standInBin = path.resolve(__dirname, '../../fixtures/bin');

let work: string;
let home: string;

function git(args: string[], env: NodeJS.ProcessEnv = process.env): void {
  execFileSync('git', ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', ...args], { cwd: work, stdio: 'ignore', env });
}

beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'hooks-agent-files-'));
  // The install writes the per-user launcher into the home folder: a scratch one.
  home = mkdtempSync(path.join(tmpdir(), 'hooks-agent-files-home-'));
  vi.stubEnv('HOME', home);
  vi.stubEnv('USERPROFILE', home);
  mkdirSync(path.join(work, '.beads'));
  writeFileSync(path.join(work, '.beads', 'metadata.json'), JSON.stringify({ database: 'beads.db', jsonl_export: 'issues.jsonl' }));
  const claimed = new Date(Date.now() - 3_600_000).toISOString();
  writeFileSync(
    path.join(work, '.beads', 'issues.jsonl'),
    `${JSON.stringify({ id: 'demo-1', title: 'Issue demo-1', status: 'in_progress', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: claimed, compaction_level: 0 })}\n`,
  );
  git(['init', '-q']);
  writeFileSync(path.join(work, '.gitignore'), '.beads/\n');
  git(['add', '.']);
  // Before the claim of demo-1: not its work.
  const before = new Date(Date.now() - 3 * 3_600_000).toISOString();
  git(['commit', '-qm', 'initial'], { ...process.env, GIT_AUTHOR_DATE: before, GIT_COMMITTER_DATE: before });
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(work, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${standInBin}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_RECOVERY_TIMEOUT_MS: '5000' });

/** `hooks install` with `flags`; the files it says it wrote. */
async function install(flags: string[]): Promise<string[]> {
  const said: string[] = [];
  const code = await hooksCommand(['install', '--agent', 'all', '--dir', work, ...flags], (text) => said.push(text), () => undefined);
  expect(code).toBe(0);
  return [...said.join('').matchAll(/into (\S+)\.\n/g)].map((match) => match[1] as string);
}

/** Writes a checkpoint with `message`; the comment it wrote. */
async function checkpoint(message: string): Promise<string | undefined> {
  const lines: string[] = [];
  const code = await checkpointCommand(['--cwd', work, '--message', message], { out: (line) => lines.push(line), env: env(), readHook: async () => undefined });
  expect(lines.join('\n')).toMatch(/checkpoint written on demo-1/);
  expect(code).toBe(0);
  const issue = JSON.parse(readFileSync(path.join(work, '.beads', 'issues.jsonl'), 'utf8').trim()) as { comments?: { text: string }[] };
  return issue.comments?.at(-1)?.text;
}

describe('hooks install writes nothing that counts as work', () => {
  it('for any agent: after installing every agent, private, shared and with MCP, each checkpoint lists only the user file', async () => {
    // The hook files alone, as `hooks install --agent gemini` leaves them: shared with the team, so not kept out of git.
    const hookFiles = [...(await install([])), ...(await install(['--shared']))];
    expect(new Set(hookFiles)).toEqual(
      new Set(['.claude/settings.local.json', '.claude/settings.json', '.github/hooks/beads-recovery.json', '.codex/hooks.json', '.cursor/hooks.json', '.gemini/settings.json', '.opencode/plugins/beads-recovery.js']),
    );
    writeFileSync(path.join(work, 'work.ts'), 'export {}\n');
    expect(await checkpoint('hooks installed')).toBe('Checkpoint: hooks installed\n- Files: work.ts');

    // The MCP files name this machine's paths, so the install keeps them out of git as well; they are not work either way.
    const mcpFiles = await install(['--mcp']);
    expect(mcpFiles).toEqual(expect.arrayContaining(['.mcp.json', '.vscode/mcp.json', '.codex/config.toml', '.cursor/mcp.json', '.gemini/settings.json', 'opencode.json']));
    writeFileSync(path.join(work, 'more.ts'), 'export {}\n');
    expect(await checkpoint('mcp registered')).toBe('Checkpoint: mcp registered\n- Files: more.ts');
  });
});
