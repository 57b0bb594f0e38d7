// Issue 31, "Gather, decide, write": traced from the pre-compaction entry (Claude Code's PreCompact
// hook, run in this process), a checkpoint reads every fact — beads, git, the ledger, the
// transcripts, the agent sessions — before it decides once, and after the decision it only writes:
// the sessions' file (what the transcript showed, the binding that ended), the outbox, beads and
// the ledger. Recorded at each layer's boundary by wrapping the real modules: nothing is faked.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';

/** Each crossing of a layer boundary, in the order it happened. */
const trace: string[] = [];
const note = (step: string) => trace.push(step);

vi.mock('../../../src/beads/runCli', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/beads/runCli')>();
  // The beads CLI's writes; every other command of it (where, version, list, show) reads.
  const writes = new Set(['comments', 'comment', 'update', 'close', 'create']);
  const crossing = (command: string, args: readonly string[]) => {
    const name = path.basename(command).replace(/\.(?:exe|cmd)$/i, '');
    if (name === 'git') return 'git:read';
    return writes.has(args.find((arg) => !arg.startsWith('-')) ?? '') ? 'beads:write' : 'beads:read';
  };
  return {
    ...real,
    runCli: (command: string, args: readonly string[], options: Parameters<typeof real.runCli>[2]) => (note(crossing(command, args)), real.runCli(command, args, options)),
    runCliJson: (command: string, args: readonly string[], options: Parameters<typeof real.runCliJson>[2]) => (note(crossing(command, args)), real.runCliJson(command, args, options)),
  };
});
vi.mock('../../../src/services/transcripts/readTranscript', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/services/transcripts/readTranscript')>();
  return { ...real, readTranscript: (...args: Parameters<typeof real.readTranscript>) => (note('transcript:read'), real.readTranscript(...args)) };
});
vi.mock('../../../src/core/checkpointDecision', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/core/checkpointDecision')>();
  return { ...real, decideCheckpoint: (...args: Parameters<typeof real.decideCheckpoint>) => (note('decide'), real.decideCheckpoint(...args)) };
});

const { runHook } = await import('../../../src/bin/hook');
const { parseHookInput } = await import('../../../src/core/hookProtocol');
const { AgentSessionsStore } = await import('../../../src/services/agentSessions');
const { LedgerStore } = await import('../../../src/services/ledgerStore');
const { Outbox } = await import('../../../src/services/outbox');

const crossing = <T extends object>(prototype: T, method: keyof T & string, step: string) => {
  const original = prototype[method] as (...args: unknown[]) => unknown;
  vi.spyOn(prototype, method as never).mockImplementation(function (this: unknown, ...args: unknown[]) {
    note(step);
    return original.apply(this, args);
  } as never);
};
crossing(AgentSessionsStore.prototype, 'read', 'sessions:read');
crossing(AgentSessionsStore.prototype, 'update', 'sessions:write');
crossing(LedgerStore.prototype, 'load', 'ledger:read');
crossing(LedgerStore.prototype, 'markCheckpoint', 'ledger:write');
crossing(Outbox.prototype, 'enqueue', 'outbox:write');

const READS = new Set(['beads:read', 'git:read', 'transcript:read', 'sessions:read', 'ledger:read']);
const scratch = mkdtempSync(path.join(tmpdir(), 'precompact-order-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Claude Code's transcript lines: a tool call and its result, stamped now. */
function toolCall(file: string, id: string, name: string, input: Record<string, unknown>, result: string): void {
  const at = new Date().toISOString();
  appendFileSync(
    file,
    `${JSON.stringify({ type: 'assistant', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } })}\n` +
      `${JSON.stringify({ type: 'user', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] } })}\n`,
  );
}

describe.skipIf(process.platform === 'win32')('the pre-compaction checkpoint gathers, decides and writes, in that order', { timeout: 120_000 }, () => {
  it('reads everything before it decides once, and after that only writes', async () => {
    const { dir } = makeWorkspace({ dir: path.join(scratch, 'project'), dialect: 'br', data: 'scenario', git: true });
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
    const transcript = path.join(scratch, 'session.jsonl');
    writeFileSync(transcript, `${JSON.stringify({ type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: 'Please fix the date parser in work.txt' } })}\n`);
    // The session once claimed an issue that is closed now (its binding ends), then edited a file.
    toolCall(transcript, 'claim', 'Bash', { command: `br update ${SCENARIO.closedBlocker} --claim --json` }, `[{"id":"${SCENARIO.closedBlocker}","status":"in_progress"}]`);
    writeFileSync(path.join(dir, 'work.txt'), 'the session’s work\n');
    toolCall(transcript, 'edit', 'Write', { file_path: path.join(dir, 'work.txt'), content: 'the session’s work\n' }, 'File created');
    const input = parseHookInput(JSON.stringify({ hook_event_name: 'PreCompact', session_id: 'order', transcript_path: transcript, cwd: dir, trigger: 'manual' }));
    const notes: string[] = [];

    trace.length = 0;
    const answer = await runHook('claude', 'PreCompact', { readInput: async () => input, env, note: (line) => notes.push(line) });

    const path_ = trace.join(' → ');
    // The flow opens the folder (its ledger) before any fact is read: the hook reads none of its own first, not even the thread.
    expect(trace[0], path_).toBe('ledger:read');
    // Nothing is written while facts are still being read.
    const lastRead = Math.max(...[...READS].map((read) => trace.lastIndexOf(read)));
    const firstWrite = trace.findIndex((step) => step !== 'decide' && !READS.has(step));
    expect(firstWrite, path_).toBeGreaterThan(lastRead);
    const decisions = trace.flatMap((step, index) => (step === 'decide' ? [index] : []));
    expect(decisions, path_).toHaveLength(1);
    const decided = decisions[0] as number;
    const before = trace.slice(0, decided);
    const after = trace.slice(decided + 1);
    // Gather: every layer's facts are read, and nothing is written before the decision (no write
    // was queued by an earlier run, so the step that sends those has nothing to send).
    for (const read of READS) expect(before, `${read} before the decision: ${path_}`).toContain(read);
    expect(before.filter((step) => !READS.has(step)), path_).toEqual([]);
    // Write: no return to any reading layer, and each write once, in the write step's order.
    expect(after.filter((step) => READS.has(step)), path_).toEqual([]);
    expect(after, path_).toEqual(['sessions:write', 'outbox:write', 'beads:write', 'ledger:write']);

    expect(notes.join('\n')).toMatch(new RegExp(`checkpoint written on ${SCENARIO.inProgress}`));
    expect(answer).toContain(SCENARIO.inProgress);
    // What the write step wrote: the session's binding to the closed issue ended, its own file named.
    const sessions = JSON.parse(readFileSync(path.join(dir, '.git', 'beads-recovery', 'sessions.json'), 'utf8')) as { sessions: Record<string, { claimed?: string; files?: unknown }> };
    expect(sessions.sessions['claude:order']?.claimed).toBeUndefined();
    const store = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8');
    expect(store).toMatch(/Auto-checkpoint \(pre-compaction\)[^"]*work\.txt/);
    // The thread, read in the gather, is in the comment.
    expect(store).toMatch(/Auto-checkpoint \(pre-compaction\)[^"]*fix the date parser/);
  });
});
