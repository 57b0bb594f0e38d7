// Two agent sessions in one folder, through the built dist/cli.js as the hooks run it: each
// session's own claim (read from its Claude Code transcript, named by the hook's payload) gives
// it its own issue after a compaction, even when the other session's issue is newer; what a
// context handed a session stays its issue; a closed issue releases it. Both dialects.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-sessions-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Claude Code transcript lines, stamped just now (the session's work is after the claims). */
const transcript = {
  tool: (id: string, name: string, input: Record<string, unknown>) => ({
    type: 'assistant',
    timestamp: new Date().toISOString(),
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  }),
  result: (id: string, content: string, isError = false) => ({
    type: 'user',
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
  }),
};

function append(file: string, ...records: unknown[]): void {
  appendFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

describe.each(['bd', 'br'] as const)('two sessions in one %s folder', { timeout: 90_000 }, (dialect) => {
  const dir = path.join(scratch, dialect);
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: dialect };
  const beads = (...args: string[]) => execFileSync(dialect, args, { cwd: dir, env, encoding: 'utf8' });
  const ids: Record<'first' | 'second', string> = { first: '', second: '' };
  const transcripts = { first: path.join(scratch, `${dialect}-first.jsonl`), second: path.join(scratch, `${dialect}-second.jsonl`) };

  function hook(which: 'first' | 'second', event: string, extra: Record<string, unknown> = {}): string {
    const input = JSON.stringify({ hook_event_name: event, session_id: `${dialect}-${which}`, transcript_path: transcripts[which], cwd: dir, ...extra });
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', event], { cwd: dir, env, input, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    // PreCompact answers in plain text (what Claude Code adds to its compaction prompt); the rest in JSON.
    if (event === 'PreCompact') return result.stdout;
    return (JSON.parse(result.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  }

  /** A session claims its issue and edits its own file, as Claude Code records it. */
  function work(which: 'first' | 'second', file: string): void {
    const id = ids[which];
    append(transcripts[which], transcript.tool(`${which}-claim`, 'Bash', { command: `${dialect} update ${id} --claim --json` }));
    beads('update', '--claim', '--json', '--', id);
    append(transcripts[which], transcript.result(`${which}-claim`, `[{"id":"${id}","status":"in_progress"}]`));
    writeFileSync(path.join(dir, file), `${which}'s work\n`);
    append(transcripts[which], transcript.tool(`${which}-edit`, 'Write', { file_path: path.join(dir, file), content: `${which}'s work\n` }), transcript.result(`${which}-edit`, 'File created'));
  }

  beforeAll(async () => {
    makeWorkspace({ dir, dialect, data: 'empty' });
    for (const which of ['first', 'second'] as const) {
      const created = JSON.parse(beads('create', `The ${which} session's issue`, '--json')) as { id: string } | { id: string }[];
      ids[which] = Array.isArray(created) ? (created[0]?.id as string) : created.id;
      writeFileSync(transcripts[which], '');
    }
    expect(hook('first', 'SessionStart', { source: 'startup' })).not.toContain('## Resuming:');
    work('first', 'first.txt');
    // The second session starts while the first, still live, holds its claimed issue: that one is
    // listed as the first session's, never handed over (issue 30).
    const start = hook('second', 'SessionStart', { source: 'startup' });
    expect(start).not.toContain(`## Resuming: ${ids.first}`);
    expect(start).toMatch(new RegExp(`## In Progress in Other Live Sessions .*\n- ${ids.first} — The first session's issue — a live claude session's, since just now, last active just now`));
    expect(start).not.toMatch(new RegExp(`(?:comments add|close)\\b[^\`\\n]*${ids.first}`));
    // It claims its own, which is then the newest: bd stamps a claim to the second, so the second
    // claim is made in a later second than the first (in the same one the two tie).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    work('second', 'second.txt');
  });

  it("each session's PreCompact checkpoints its own issue, naming only its own file, and a file changed by hand apart", () => {
    // Changed in the folder by no session's tool call: neither session's work, named as such.
    writeFileSync(path.join(dir, 'by-hand.txt'), 'typed in an editor\n');
    for (const [which, own, other] of [['first', 'first.txt', 'second.txt'], ['second', 'second.txt', 'first.txt']] as const) {
      // What Claude Code's own summary is asked to keep names this session's issue, not the other's.
      const instructions = hook(which, 'PreCompact', { trigger: 'manual' });
      expect(instructions).toContain(ids[which]);
      expect(instructions).not.toContain(ids[which === 'first' ? 'second' : 'first']);
      const comments = JSON.parse(beads('comments', ids[which], '--json')) as { text: string }[];
      const checkpoint = comments.map((comment) => comment.text).find((text) => text.startsWith('Auto-checkpoint (pre-compaction)'));
      expect(checkpoint, `${which}: ${JSON.stringify(comments)}`).toMatch(new RegExp(`^- Files: ${own}$`, 'm'));
      // The other session's file is never this one's work: at most named apart, with the file changed by hand.
      const [attributed, apart] = (checkpoint as string).split(/\n(?=- Also changed here, by another session or by hand: )/);
      expect(attributed).not.toContain(other);
      expect(apart).toMatch(/^- Also changed here, by another session or by hand: .*by-hand\.txt/);
      expect(apart).not.toContain(own);
    }
  });

  it('after its compaction each session is handed its own issue, the older one too, without a rule line', () => {
    const first = hook('first', 'SessionStart', { source: 'compact' });
    expect(first).toContain(`## Resuming: ${ids.first} — The first session's issue`);
    expect(first).not.toContain('Why this issue');
    const second = hook('second', 'SessionStart', { source: 'compact' });
    expect(second).toContain(`## Resuming: ${ids.second} — The second session's issue`);
  });

  it('a new session nobody bound continues the work of a session that ended, never of one still live, and is told which rule chose', () => {
    const newChat = (name: string) => hook('first', 'SessionStart', { source: 'startup', session_id: `${dialect}-${name}`, transcript_path: path.join(scratch, 'none.jsonl') });
    // Both sessions live: both issues are theirs.
    expect(newChat('third')).not.toContain('## Resuming:');
    // The first session ends (Claude Code's SessionEnd): its issue is the new chat's to continue.
    expect(hook('first', 'SessionEnd', { reason: 'prompt_input_exit' })).toBe('');
    const after = newChat('fourth');
    expect(after).toContain(`## Resuming: ${ids.first}`);
    expect(after).toMatch(/Why this issue:\*\* (the most recently updated in-progress issue|assigned to)/);
    expect(after).toMatch(new RegExp(`- ${ids.second} — The second session's issue — a live claude session's`));
  });

  it('the bindings are kept in this work tree’s git folder', () => {
    const sessions = JSON.parse(readFileSync(path.join(dir, '.git', 'beads-recovery', 'sessions.json'), 'utf8')) as { sessions: Record<string, { claimed?: string; files: Record<string, number> }> };
    expect(sessions.sessions[`claude:${dialect}-first`]).toMatchObject({ claimed: ids.first, files: { 'first.txt': expect.any(Number) } });
    expect(sessions.sessions[`claude:${dialect}-second`]).toMatchObject({ claimed: ids.second, files: { 'second.txt': expect.any(Number) } });
  });

  it('closing the issue ends the binding: nothing stale carries over', () => {
    beads('close', '--json', '--', ids.first);
    append(transcripts.first, transcript.tool('first-close', 'Bash', { command: `${dialect} close ${ids.first}` }), transcript.result('first-close', 'closed'));
    const after = hook('first', 'SessionStart', { source: 'compact' });
    expect(after).not.toContain(`## Resuming: ${ids.first}`);
  });
});
