// Nothing secret leaves the machine (issue 29): every shape of the corpus, planted into a recorded
// transcript of every agent that has a reader (Claude Code, Codex, Gemini CLI, Copilot CLI,
// opencode: in its request, and also in a command, that command's output and a question) and
// into typed, MCP and close text, is absent from .beads/issues.jsonl and from every context. The
// checkpoints are written by the hooks as the agents run them (Claude Code's through the built
// dist/cli.js, the others in process through the same entry point), against the stand-in br.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryContextFor } from '../../../src/bin/context';
import { runCheckpoint } from '../../../src/services/checkpointFlow';
import { threadFactLines } from '../../../src/core/threadFacts';
import { checkpointCommand } from '../../../src/bin/checkpoint';
import { readSessionThread } from '../../../src/services/transcripts/sessionThread';
import { closeWithFiles } from '../../../src/services/closeFlow';
import { Outbox } from '../../../src/services/outbox';
import { createCliBackend } from '../../../src/beads/cliBackend';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { SECRET_CORPUS } from '../../fixtures/secrets/corpus.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-redaction-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeAll(() => ensureCliBuilt(), 120_000);
const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'transcripts');
const REQUEST = 'NESTED Make the parser accept nested keys';

/** Every planted secret found in `text`, or any 16 characters of one (a value cut short leaks too). */
function leaks(text: string): string[] {
  return SECRET_CORPUS.filter(({ secret }) => {
    if (secret.length <= 16) return text.includes(secret);
    for (let at = 0; at + 16 <= secret.length; at++) if (text.includes(secret.slice(at, at + 16))) return true;
    return false;
  }).map(({ label, secret }) => `${label}: ${secret}`);
}

/** The corpus's sentences in groups that fit the start of a request the thread keeps (400 characters). */
function chunks(limit = 330): string[] {
  const out: string[] = [];
  let current = '';
  for (const { text } of SECRET_CORPUS) {
    if (current && current.length + text.length + 3 > limit) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} | ${text}` : text;
  }
  if (current) out.push(current);
  return out;
}

/** The recorded sessions' own ids: a hook reads only its own session's transcript. */
const SESSIONS = {
  claude: '9b6e54c6-81b3-4370-a287-524b3aa700c6',
  codex: '01a21833-c839-72b3-ba17-09bfe8f5f8cf',
  copilot: 'e0ee66aa-806b-406e-aae0-710e5e2ccb08',
  gemini: '7a13d68b-e81c-418f-ad6d-80ee4644557f',
  opencode: 'ses_ddf090a5cffe3a83ZcG3AH5wjK',
} as const;

/** The planted request as each recorded session's thread names it: the last request (after the compaction), or for opencode, whose last request is "COMPACT-NOW", an earlier one. */
const NAMED_REQUEST: Record<keyof typeof SESSIONS, RegExp> = {
  claude: /- Request: RESUME .* go on/,
  codex: /- Request: RESUME .* go on/,
  copilot: /- Request: RESUME .* go on/,
  gemini: /- Request: RESUME .* go on/,
  opencode: /- Earlier requests \(newest first\): .*NESTED .*\[redacted: /,
};

/**
 * opencode's recording, planted beyond its request: into the command the session ran, that
 * command's error output (the line the thread keeps) and the question the agent asked.
 */
const OPENCODE_PLACES: readonly [recorded: string, planted: (escaped: string) => string][] = [
  ['"command":"python3 test_parser.py"', (escaped) => `"command":"python3 test_parser.py --note '${escaped}'"`],
  [String.raw`KeyError: 'a'\n`, (escaped) => String.raw`KeyError: 'a' ${escaped}\n`],
  ['Should deeper keys like a.b.c.d be rejected or flattened?', (escaped) => `Should deeper keys like a.b.c.d be rejected or flattened? ${escaped}`],
];

/**
 * The recorded transcript with `planted` at the start of the session's request, JSON-escaped where
 * it lands, and its folder (`/project` as recorded) this workspace: the session's own transcript.
 */
function planted(agent: string, text: string, folder: string): string {
  const recorded = readFileSync(path.join(FIXTURES, agent, 'nested-keys.jsonl'), 'utf8');
  const escaped = JSON.stringify(text).slice(1, -1);
  const beyondRequest = agent === 'opencode' ? OPENCODE_PLACES.reduce((file, [place, plant]) => file.split(place).join(plant(escaped)), recorded) : recorded;
  // The first request, and the last one (after the compaction), which the thread names as the request.
  return beyondRequest
    .split(REQUEST)
    .join(`NESTED ${escaped} Make the parser accept nested keys`)
    .split('RESUME go on')
    .join(`RESUME ${escaped} go on`)
    .split('/project')
    .join(JSON.stringify(folder).slice(1, -1));
}

function store(dir: string): string {
  return readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8');
}

function commentsOf(dir: string): string[] {
  const record = store(dir)
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] })
    .find((issue) => issue.id === SCENARIO.inProgress);
  return (record?.comments ?? []).map((comment) => comment.text);
}

describe.skipIf(process.platform === 'win32')('no planted secret reaches beads or a context', { timeout: 600_000 }, () => {
  const groups = chunks();

  it('the corpus is planted whole: every secret is in some group, and each group fits the request', () => {
    expect(groups.join(' | ')).toBe(SECRET_CORPUS.map((entry) => entry.text).join(' | '));
    expect(Math.max(...groups.map((group) => group.length))).toBeLessThan(390);
  });

  it.each(['claude', 'codex', 'copilot', 'gemini', 'opencode'] as const)("%s: no pre-compaction checkpoint and no context after it holds one; the request's words and the failing test survive", async (agent) => {
    const dir = makeWorkspace({ dir: path.join(scratch, agent), dialect: 'br', data: 'scenario', git: true }).dir;
    const notes: string[] = [];
    const session = SESSIONS[agent];
    for (const [index, group] of groups.entries()) {
      const transcript = path.join(scratch, `${agent}-${index}.jsonl`);
      writeFileSync(transcript, planted(agent, group, dir));
      if (agent === 'claude' && index === 0) {
        // The built command line, as Claude Code runs its PreCompact hook.
        const input = { session_id: session, transcript_path: transcript, cwd: dir, hook_event_name: 'PreCompact', trigger: 'auto' };
        const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'claude', 'PreCompact'], { cwd: dir, env, input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
        expect(result.status, result.stderr).toBe(0);
        notes.push(result.stderr);
        expect(leaks(result.stdout)).toEqual([]);
        continue;
      }
      // What the PreCompact hook does (src/bin/hook.ts): the agent's reader, the thread's lines, the one flow.
      const thread = await readSessionThread({ transcript, agent, conversation: session, session, folder: dir, project: dir });
      expect(thread, `${agent} read no thread`).toBeDefined();
      const result = await runCheckpoint(
        { ask: { trigger: 'pre-compaction', thread: threadFactLines(thread!) }, session: { agent, sessionId: session, transcript }, place: { kind: 'folder', cwd: dir, env, note: (line) => notes.push(line) } },
        { deadline: Date.now() + 30_000 },
      );
      expect(result.outcome, result.reason).toBe('written');
      if (index === groups.length - 1) {
        // The context after the compaction, with the thread as the start hook shows it.
        const context = await recoveryContextFor(dir, { env, thread, budget: 16_000, warn: (line) => notes.push(line) });
        expect(context.markdown).toContain("This Session's Thread");
        expect(leaks(context.markdown)).toEqual([]);
      }
    }
    const written = commentsOf(dir).filter((text) => text.startsWith('Auto-checkpoint (pre-compaction)'));
    expect(written.length).toBe(groups.length);
    expect(leaks(store(dir))).toEqual([]);
    for (const text of written) expect(text, text).toContain('[redacted: ');
    for (const text of written) expect(text).toMatch(NAMED_REQUEST[agent]);
    // Said in counts and kinds, never a value.
    expect(notes.join('\n')).toMatch(/masked \d+ secrets? \(/);
    expect(leaks(notes.join('\n'))).toEqual([]);
  });

  it('typed text: `checkpoint -m` through the built command line, and the MCP and language-model path (the flow as a function)', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'typed'), dialect: 'br', data: 'scenario', git: true }).dir;
    const before = commentsOf(dir).length;
    const all = SECRET_CORPUS.map((entry) => entry.text).join(' | ');
    const typed = spawnSync(process.execPath, [CLI_SCRIPT, 'checkpoint', '--cwd', dir, '-m', `tests pass; ${all}`], { env, encoding: 'utf8', timeout: 60_000 });
    expect(typed.status, typed.stderr).toBe(0);
    expect(typed.stderr).toMatch(/masked \d+ secrets/);
    expect(leaks(typed.stdout + typed.stderr)).toEqual([]);
    const lines: string[] = [];
    await checkpointCommand(['--cwd', dir, '--message', `second: ${all}`], { out: (line) => lines.push(line), env, readHook: async () => undefined });
    expect(leaks(lines.join('\n'))).toEqual([]);
    expect(leaks(store(dir))).toEqual([]);
    expect(commentsOf(dir).length - before).toBe(2);
    expect(commentsOf(dir).some((text) => text.startsWith('Checkpoint: tests pass; I pasted my token [redacted: GitHub token] for the push'))).toBe(true);
  });

  it("a close's reason, and a comment someone wrote by hand shown in a context", async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'close'), dialect: 'br', data: 'scenario', git: true }).dir;
    const all = SECRET_CORPUS.map((entry) => entry.text).join(' | ');
    // A comment written around us (`br comments add` at a terminal): the context masks it all the same.
    const byHand = spawnSync('br', ['comments', 'add', '--json', '--', SCENARIO.inProgress, `note by hand: ${all}`], { cwd: dir, env, encoding: 'utf8' });
    expect(byHand.status, byHand.stderr).toBe(0);
    const context = await recoveryContextFor(dir, { env, budget: 64_000 });
    expect(context.markdown).toContain('note by hand');
    expect(leaks(context.markdown)).toEqual([]);
    expect(context.masked).toBeDefined();

    const backend = createCliBackend({ dialect: 'br', command: path.join(STANDIN_BIN_DIR, 'br'), root: dir, timeoutMs: 20_000 });
    const queueDir = mkdtempSync(path.join(tmpdir(), 'redaction-outbox-'));
    const queue = new Outbox({ file: path.join(queueDir, 'outbox.json'), root: dir, backend });
    const closed = await closeWithFiles({ backend, queue, issueId: SCENARIO.inProgress, reason: `done; ${all}`, cli: 'br', ledgerFiles: [], flushTimeoutMs: 1000, now: Date.now(), force: true }).finally(() => {
      queue.dispose();
      rmSync(queueDir, { recursive: true, force: true });
    });
    expect(closed.state).toBe('closed');
    expect(closed.masked).toBeDefined();
    const record = store(dir)
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { id: string; close_reason?: string; comments?: { text: string }[] })
      .find((issue) => issue.id === SCENARIO.inProgress);
    expect(record?.close_reason).toContain('[redacted: GitHub token]');
    expect(leaks(JSON.stringify({ reason: record?.close_reason, comments: record?.comments?.filter((comment) => !comment.text.startsWith('note by hand')) }))).toEqual([]);
  });
});
