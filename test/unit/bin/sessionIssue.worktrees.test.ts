// Two git worktrees sharing one beads store through `.beads/redirect`, a session in each: each
// work tree keeps its own sessions (in its own git dir), each PreCompact checkpoints its own
// session's issue naming only its own file, and each context resumes its own issue.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-worktrees-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const line = (record: unknown) => `${JSON.stringify(record)}\n`;
const tool = (id: string, name: string, input: Record<string, unknown>) => line({ type: 'assistant', timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
const result = (id: string, content: string) => line({ type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: false }] } });

describe.each(['bd', 'br'] as const)('two %s worktrees sharing one store through .beads/redirect', { timeout: 90_000 }, (dialect) => {
  const main = path.join(scratch, `${dialect}-main`);
  const linked = path.join(scratch, `${dialect}-linked`);
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: dialect };
  const trees = { main: { dir: main, issue: '', file: 'main.txt' }, linked: { dir: linked, issue: '', file: 'linked.txt' } };
  const transcript = (which: 'main' | 'linked') => path.join(scratch, `${dialect}-${which}.jsonl`);

  function hook(which: 'main' | 'linked', event: string, extra: Record<string, unknown> = {}): string {
    const input = JSON.stringify({ hook_event_name: event, session_id: `${dialect}-${which}`, transcript_path: transcript(which), cwd: trees[which].dir, ...extra });
    const run = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', event], { cwd: trees[which].dir, env, input, encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    // PreCompact answers in plain text (what Claude Code adds to its compaction prompt); the rest in JSON.
    if (event === 'PreCompact') return run.stdout;
    return (JSON.parse(run.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  }

  beforeAll(() => {
    makeWorkspace({ dir: main, dialect, data: 'empty' });
    execFileSync('git', ['worktree', 'add', '-q', '-b', `${dialect}-linked`, linked], { cwd: main });
    // The linked worktree's store is the main checkout's.
    rmSync(path.join(linked, '.beads'), { recursive: true, force: true });
    mkdirSync(path.join(linked, '.beads'), { recursive: true });
    writeFileSync(path.join(linked, '.beads', 'redirect'), `${path.join(main, '.beads')}\n`);
    const beads = (cwd: string, ...args: string[]) => execFileSync(dialect, args, { cwd, env, encoding: 'utf8' });
    for (const which of ['main', 'linked'] as const) {
      const tree = trees[which];
      const created = JSON.parse(beads(tree.dir, 'create', `The ${which} worktree's issue`, '--json')) as { id: string } | { id: string }[];
      tree.issue = Array.isArray(created) ? (created[0]?.id as string) : created.id;
      beads(tree.dir, 'update', '--claim', '--json', '--', tree.issue);
      writeFileSync(path.join(tree.dir, tree.file), `${which}\n`);
      writeFileSync(transcript(which), '');
      appendFileSync(transcript(which), tool(`${which}-claim`, 'Bash', { command: `${dialect} update ${tree.issue} --claim` }) + result(`${which}-claim`, 'ok'));
      appendFileSync(transcript(which), tool(`${which}-edit`, 'Write', { file_path: path.join(tree.dir, tree.file), content: `${which}\n` }) + result(`${which}-edit`, 'File created'));
    }
  });

  it('each worktree keeps its own sessions; each PreCompact names only its own file on its own issue; each context resumes its own issue', () => {
    for (const which of ['main', 'linked'] as const) {
      const tree = trees[which];
      const other = trees[which === 'main' ? 'linked' : 'main'];
      expect(hook(which, 'PreCompact', { trigger: 'manual' })).toContain(tree.issue);
      const comments = JSON.parse(execFileSync(dialect, ['comments', tree.issue, '--json'], { cwd: main, env, encoding: 'utf8' })) as { text: string }[];
      const checkpoint = comments.map((comment) => comment.text).find((text) => text.startsWith('Auto-checkpoint (pre-compaction)'));
      expect(checkpoint, JSON.stringify(comments)).toContain(tree.file);
      expect(checkpoint).not.toContain(other.file);
      expect(hook(which, 'SessionStart', { source: 'compact' })).toContain(`## Resuming: ${tree.issue} — The ${which} worktree's issue`);
    }
    const gitDir = (dir: string) => path.resolve(dir, execFileSync('git', ['rev-parse', '--git-dir'], { cwd: dir, encoding: 'utf8' }).trim());
    const mainSessions = path.join(gitDir(main), 'beads-recovery', 'sessions.json');
    const linkedSessions = path.join(gitDir(linked), 'beads-recovery', 'sessions.json');
    expect(mainSessions).not.toBe(linkedSessions);
    expect(existsSync(mainSessions) && existsSync(linkedSessions)).toBe(true);
    expect(Object.keys((JSON.parse(readFileSync(mainSessions, 'utf8')) as { sessions: object }).sessions)).toEqual([`claude:${dialect}-main`]);
    expect(Object.keys((JSON.parse(readFileSync(linkedSessions, 'utf8')) as { sessions: object }).sessions)).toEqual([`claude:${dialect}-linked`]);
  });
});
