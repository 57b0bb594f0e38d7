// A session that started with one issue's block and then claimed its own, resumed without a
// compaction (issue 30, item 1): through the built dist/cli.js as Claude Code's hooks run it, the
// resume gets a short correction naming the session's own issue, and only once; a resume whose
// block still names the session's issue gets nothing. Both dialects.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-resume-correction-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function append(file: string, ...records: unknown[]): void {
  appendFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

/** The id of an issue `create --json` made. */
function idOf(json: string): string {
  const created = JSON.parse(json) as { id: string } | { id: string }[];
  return Array.isArray(created) ? (created[0]?.id as string) : created.id;
}

/** What Claude Code records of a hook's context in its transcript. */
const delivered = (context: string, hookName: string) => ({ type: 'attachment', attachment: { type: 'hook_additional_context', content: [context], hookName } });

describe.each(['bd', 'br'] as const)('a resume after the session claimed its own issue (%s)', { timeout: 90_000 }, (dialect) => {
  const dir = path.join(scratch, dialect);
  const home = path.join(scratch, `${dialect}-home`);
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: dialect, HOME: home, USERPROFILE: home };
  const beads = (...args: string[]) => execFileSync(dialect, args, { cwd: dir, env, encoding: 'utf8' });
  const transcript = path.join(scratch, `${dialect}-session.jsonl`);
  const ids = { epic: '', own: '' };

  let notes = '';
  let resumes = 0;
  function hook(event: string, extra: Record<string, unknown>): string {
    // Each resume is a start of its own. Claude Code stamps none, and two starts of one session
    // within the minute are taken for one start's two hook files (hook.ts, deliveryFor): the
    // stamp a VS Code-format input carries keeps these quick resumes apart.
    const stamp = extra.source === 'resume' ? { timestamp: Date.now() + ++resumes } : {};
    const input = JSON.stringify({ hook_event_name: event, session_id: `${dialect}-resumed`, transcript_path: transcript, cwd: dir, ...stamp, ...extra });
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', event], { cwd: dir, env, input, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    notes = result.stderr;
    return (JSON.parse(result.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  }

  beforeAll(() => {
    makeWorkspace({ dir, dialect, data: 'empty' });
    ids.epic = idOf(beads('create', 'The epic everyone works under', '-t', 'epic', '--json'));
    beads('update', '--status', 'in_progress', '--json', '--', ids.epic);
    ids.own = idOf(beads('create', "The session's own issue", '--json'));
    writeFileSync(transcript, '');
  });

  it('starts with the epic, and a resume before any claim gets nothing more', () => {
    const start = hook('SessionStart', { source: 'startup' });
    expect(start).toContain(`## Resuming: ${ids.epic} — The epic everyone works under`);
    append(transcript, delivered(start, 'SessionStart:startup'), { type: 'user', message: { role: 'user', content: 'go on' } });
    expect(hook('SessionStart', { source: 'resume' })).toBe('');
    expect(notes).toContain('already holds the recovery context; not twice');
  });

  it("corrects a resume after the session claimed its own issue: that issue, why, its commands, and nothing of the epic's", () => {
    const claim = { type: 'assistant', timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'tool_use', id: 'claim-1', name: 'Bash', input: { command: `${dialect} update ${ids.own} --claim --json` } }] } };
    beads('update', '--claim', '--json', '--', ids.own);
    const result = { type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'claim-1', content: `[{"id":"${ids.own}","status":"in_progress"}]`, is_error: false }] } };
    append(transcript, claim, result);

    const correction = hook('SessionStart', { source: 'resume' });
    expect(correction).toMatch(new RegExp(`^## Correction: this session's issue is now ${ids.own} — The session's own issue\n`));
    expect(correction).toContain(`named \`${ids.epic}\`; checkpoints and the close now go to \`${ids.own}\`, not \`${ids.epic}\`.`);
    expect(correction).toContain("**Why this issue:** this session's own claim or comment names it");
    expect(correction).toContain(`\`${dialect} comments add -- ${ids.own} "Done: …; Next: …"\``);
    expect(correction).toContain(`\`${dialect} close --reason "Verified: …" -- ${ids.own}\``);
    expect(correction).not.toContain('## Resuming:');
    expect(correction).not.toMatch(new RegExp(`(?:comments add|close)\\b[^\`\\n]*${ids.epic}`));
    expect(correction).toMatch(/\n\nbeads-recovery block [0-9a-f]{8}$/);

    // Held now, the correction is enough: the next resume gets nothing.
    append(transcript, delivered(correction, 'SessionStart:resume'));
    expect(hook('SessionStart', { source: 'resume' })).toBe('');
    expect(notes).toContain('already holds the recovery context; not twice');
  });

  it('tells a resume that its issue is no longer its own once the session closed it', () => {
    beads('close', '--reason', 'done', '--json', '--', ids.own);
    append(
      transcript,
      { type: 'assistant', timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'tool_use', id: 'close-1', name: 'Bash', input: { command: `${dialect} close ${ids.own}` } }] } },
      { type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'close-1', content: 'closed', is_error: false }] } },
    );
    const correction = hook('SessionStart', { source: 'resume' });
    // The epic is still in progress and nobody else holds it: that is what the session is handed next.
    expect(correction).toMatch(new RegExp(`^## Correction: this session's issue is now ${ids.epic}`));
    expect(correction).toContain(`not \`${ids.own}\``);
    expect(correction).toContain('**Why this issue:** the most recently updated in-progress issue; no claim by this session is recorded');
  });
});

// Gemini CLI has no resume event of its own that can carry a block (a resume drops what SessionStart
// gave): its BeforeAgent, which every prompt and so every resumed run starts with, hands the block
// over when the chat file's history holds none, and corrects the one it holds when the session's
// issue moved since (hook.ts, handOverIfMissing). Records as Gemini CLI 0.61 writes them
// (test/unit/core/geminiHistory.test.ts has the shapes).
describe('Gemini CLI: a prompt after the session claimed its own issue', { timeout: 90_000 }, () => {
  const dir = path.join(scratch, 'gemini');
  const home = path.join(scratch, 'gemini-home');
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home };
  const beads = (...args: string[]) => execFileSync('br', args, { cwd: dir, env, encoding: 'utf8' });
  const session = 'a1b2c3d4-gemini-resumed';
  const chat = path.join(scratch, `session-2026-11-28T13-00-${session.slice(0, 8)}.jsonl`);
  const ids = { epic: '', own: '' };
  let turns = 0;
  let notes = '';

  function beforeAgent(prompt: string): string {
    const input = JSON.stringify({ hook_event_name: 'BeforeAgent', session_id: session, transcript_path: chat, cwd: dir, timestamp: new Date().toISOString(), prompt });
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'gemini', 'BeforeAgent'], { cwd: dir, env, input, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    notes = result.stderr;
    const context = (JSON.parse(result.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    // Gemini CLI appends the context to the prompt, which its chat file then holds.
    append(chat, { id: `u${++turns}`, timestamp: new Date().toISOString(), type: 'user', content: [{ text: prompt }, ...(context ? [{ text: `<hook_context>${context}</hook_context>` }] : [])] });
    return context;
  }

  beforeAll(() => {
    makeWorkspace({ dir, dialect: 'br', data: 'empty' });
    ids.epic = idOf(beads('create', 'The epic everyone works under', '-t', 'epic', '--json'));
    beads('update', '--status', 'in_progress', '--json', '--', ids.epic);
    ids.own = idOf(beads('create', "The session's own issue", '--json'));
    append(chat, { sessionId: session, projectHash: 'p', startTime: new Date().toISOString(), lastUpdated: new Date().toISOString(), kind: 'main' }, { $set: { messages: [] } });
  });

  it("starts with the epic; a prompt after the session's claim gets a correction naming its own issue, once; a resumed run's prompt, nothing more", () => {
    expect(beforeAgent('STEP1 claim your issue')).toContain(`## Resuming: ${ids.epic} — The epic everyone works under`);
    expect(beforeAgent('STEP2 before any claim')).toBe('');

    beads('update', '--claim', '--json', '--', ids.own);
    const at = new Date().toISOString();
    append(chat, {
      id: `m${++turns}`,
      timestamp: at,
      type: 'gemini',
      content: '',
      toolCalls: [{ id: 'claim-1', name: 'run_shell_command', args: { command: `br update ${ids.own} --claim --json` }, status: 'success', timestamp: at, result: [{ functionResponse: { id: 'claim-1', name: 'run_shell_command', response: { output: `[{"id":"${ids.own}","status":"in_progress"}]` } } }] }],
    });

    const correction = beforeAgent('STEP3 go on');
    expect(correction).toMatch(new RegExp(`^## Correction: this session's issue is now ${ids.own} — The session's own issue\n`));
    expect(correction).toContain(`\`br comments add -- ${ids.own} "Done: …; Next: …"\``);
    expect(correction).not.toMatch(new RegExp(`(?:comments add|close)\\b[^\`\\n]*${ids.epic}`));
    expect(notes).toContain(`holds a block naming ${ids.epic}; the session's issue is now ${ids.own}`);

    // A resume writes the same history again (Gemini CLI's `$set` of the messages): the correction it holds is enough.
    const messages = readFileSync(chat, 'utf8').split('\n').filter((line) => line.startsWith('{"id"')).map((line) => JSON.parse(line) as unknown);
    append(chat, { sessionId: session, projectHash: 'p', startTime: new Date().toISOString(), kind: 'main' }, { $set: { messages } });
    expect(beforeAgent('STEP4 resumed')).toBe('');
  });
});
