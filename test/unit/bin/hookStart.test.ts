// A new session's start answered from the start block's cache without the whole hook
// (src/bin/hookStart.ts, dist/hookStart.js; issue 28): it must answer exactly what the whole hook
// answers, leave the same records (the session's handed issue, the delivery it claimed, the block
// the conversation holds), take only the starts the cache may serve, and leave every other run,
// a miss included, to the whole hook untouched.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHook } from '../../../src/bin/hook';
import { sessionRecordFile } from '../../../src/bin/hookDelivery';
import { answerStartFromCache } from '../../../src/bin/hookStart';
import { bindingsOf, handedRuleOf, sessionKey, type AgentSessionsState } from '../../../src/core/agentSessions';
import type { HookInput } from '../../../src/core/hookProtocol';
import { REPO, ensureCliBuilt } from '../support/builtCli';
import { startInput, startProject, type StartProject } from '../support/startBlock';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hook-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The whole hook's answer to `input` (BEADS_RECOVERY_START_CACHE=off: computed, never from the cache). */
function wholeHook(project: StartProject, input: HookInput, extra: { env?: NodeJS.ProcessEnv; runId?: string; notes?: string[] } = {}): Promise<string> {
  return runHook('claude', 'SessionStart', { env: { ...project.env, ...extra.env }, readInput: () => Promise.resolve(input), note: (line) => extra.notes?.push(line), ...(extra.runId ? { runId: extra.runId } : {}) });
}

function fromCache(project: StartProject, input: HookInput | undefined, extra: { env?: NodeJS.ProcessEnv; runId?: string; notes?: string[]; event?: string } = {}): Promise<string | undefined> {
  return answerStartFromCache('claude', extra.event ?? 'SessionStart', input, {
    env: { ...project.env, ...extra.env },
    note: (line) => extra.notes?.push(line),
    runId: extra.runId ?? `run-${Math.random()}`,
    signal: new AbortController().signal,
  });
}

function sessionsState(project: StartProject): AgentSessionsState {
  return JSON.parse(readFileSync(path.join(project.gitDir, 'beads-recovery', 'sessions.json'), 'utf8')) as AgentSessionsState;
}

/**
 * Two starts computed by the whole hook: the project's first run learns what it caches of the
 * project (which a kept block is stamped by), so it is the second that keeps the block.
 */
async function primeCache(project: StartProject): Promise<void> {
  for (let run = 0; run < 2; run++) await runHook('claude', 'SessionStart', { env: project.env, readInput: () => Promise.resolve(startInput(project)), note: () => undefined });
}

/** What a start recorded of a session: the issues it is bound to, each with the rule that handed it. */
function recordOf(project: StartProject, input: HookInput): [string, string | undefined][] {
  const own = sessionsState(project).sessions[sessionKey({ agent: 'claude', sessionId: input.session ?? '' })];
  return bindingsOf(own).map((issueId) => [issueId, handedRuleOf(own, issueId)]);
}

describe("a new session's start from the start block's cache", () => {
  let project: StartProject;
  beforeAll(async () => {
    project = startProject(scratch, 'answers');
    await primeCache(project);
  });

  it("answers what the whole hook answers, and records the session and its delivery as the whole hook does", async () => {
    const cached = startInput(project);
    const answer = await fromCache(project, cached);
    const computed = startInput(project);
    const whole = await wholeHook(project, computed, { env: { BEADS_RECOVERY_START_CACHE: 'off' } });
    expect(answer).toBeDefined();
    expect(answer).toBe(whole);
    expect(JSON.parse(answer ?? '{}').hookSpecificOutput.additionalContext).toContain('# Beads Workflow Context');
    // The issue it was handed binds the session, by the same rule as the whole hook's.
    expect(recordOf(project, cached).length).toBeGreaterThan(0);
    expect(recordOf(project, cached)).toEqual(recordOf(project, computed));
    // What the conversation holds now, for a later resume to compare with.
    const record = (input: HookInput) => JSON.parse(readFileSync(sessionRecordFile({ root: project.dir, input, note: () => undefined, runId: '' }) ?? '', 'utf8')) as unknown;
    expect(record(cached)).toEqual(record(computed));
  });

  it('gives a second run of the same start (another hook file) nothing', async () => {
    const input = startInput(project);
    expect(await fromCache(project, input)).toMatch(/additionalContext/);
    // The session is recorded now (the issue it was handed): the cache's block is no longer its
    // block, and the whole hook of that run finds the delivery claimed.
    const notes: string[] = [];
    const runId = `run-${Math.random()}`;
    expect((await fromCache(project, input, { notes, runId })) ?? (await wholeHook(project, input, { notes, runId }))).toBe('{}');
    expect(notes.join('\n')).toMatch(/not twice/);
  });

  it("leaves its delivery to the whole hook of the same run when it gives up after claiming it", async () => {
    const input = startInput(project);
    const runId = `run-${Math.random()}`;
    expect(await fromCache(project, input, { runId })).toMatch(/additionalContext/);
    // The whole hook of that very run (the start from the cache ran past its share of the deadline) still answers.
    expect(await wholeHook(project, input, { runId })).toMatch(/additionalContext/);
    // Another run's does not.
    expect(await wholeHook(project, input)).toBe('{}');
  });

  it("records what another live session's transcript showed since it was last read, with its own record", async () => {
    const other = startInput(project);
    writeFileSync(other.transcript ?? '', '');
    await wholeHook(project, other);
    const readUpTo = () => sessionsState(project).sessions[sessionKey({ agent: 'claude', sessionId: other.session ?? '' })]?.readUpTo ?? 0;
    const before = readUpTo();
    // The other session works on (no claim: the block stays the same), writing its transcript after its last hook.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const at = new Date().toISOString();
    writeFileSync(other.transcript ?? '', `${JSON.stringify({ type: 'assistant', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] } })}\n`);
    expect(await fromCache(project, startInput(project))).toMatch(/additionalContext/);
    expect(readUpTo()).toBeGreaterThan(before);
  });

  it('takes no start the cache may not serve: a resume, a compaction, no session, the cache off, another event', async () => {
    expect(await fromCache(project, startInput(project, { source: 'resume' }))).toBeUndefined();
    expect(await fromCache(project, startInput(project, { source: 'compact' }))).toBeUndefined();
    expect(await fromCache(project, startInput(project, { session_id: undefined, transcript_path: undefined }))).toBeUndefined();
    expect(await fromCache(project, undefined)).toBeUndefined();
    expect(await fromCache(project, startInput(project), { env: { BEADS_RECOVERY_START_CACHE: 'off' } })).toBeUndefined();
    expect(await fromCache(project, startInput(project, { hook_event_name: 'PreCompact' }), { event: 'PreCompact' })).toBeUndefined();
  });

  it('claims and records nothing at a miss, so the whole hook answers that start as if it had not run', async () => {
    const own = startProject(scratch, 'miss');
    await primeCache(own);
    writeFileSync(own.jsonl, readFileSync(own.jsonl, 'utf8').replace(/("id":"demo-1","title":")([^"]*)/, '$1A new title'));
    const input = startInput(own);
    expect(await fromCache(own, input)).toBeUndefined();
    expect(() => sessionsState(own).sessions[sessionKey({ agent: 'claude', sessionId: input.session ?? '' })]).not.toThrow();
    expect(sessionsState(own).sessions[sessionKey({ agent: 'claude', sessionId: input.session ?? '' })]).toBeUndefined();
    const answer = await wholeHook(own, input);
    expect(answer).toContain('A new title');
  });
});

describe("a session's end", () => {
  /** The SessionEnd hook of the session that `started` began. */
  function endOf(project: StartProject, started: HookInput, env: NodeJS.ProcessEnv = {}): Promise<string> {
    const input = startInput(project, { session_id: started.session, transcript_path: started.transcript, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit', source: undefined });
    return runHook('claude', 'SessionEnd', { env: { ...project.env, ...env }, readInput: () => Promise.resolve(input), note: () => undefined });
  }

  function retitle(project: StartProject, title: string): void {
    writeFileSync(project.jsonl, readFileSync(project.jsonl, 'utf8').replace(/("id":"demo-1","title":")([^"]*)/, `$1${title}`));
  }

  /** A session that retitles an issue (the block kept at its start is stale then) and ends; `before` lists the sessions recorded before its end. */
  async function sessionThatRetitles(name: string, title: string, env: NodeJS.ProcessEnv = {}): Promise<{ project: StartProject; before: string[]; answer: string }> {
    const project = startProject(scratch, name);
    await primeCache(project);
    const working = startInput(project);
    await wholeHook(project, working);
    retitle(project, title);
    const before = Object.keys(sessionsState(project).sessions).sort();
    return { project, before, answer: await endOf(project, working, env) };
  }

  it("keeps the block the next new session's start is given, and records no session for it", async () => {
    const { project, before, answer } = await sessionThatRetitles('end', 'Retitled during the session');
    expect(answer).toBe('{}');
    expect(Object.keys(sessionsState(project).sessions).sort()).toEqual(before);

    const cached = await fromCache(project, startInput(project));
    expect(cached).toContain('Retitled during the session');
    expect(cached).toBe(await wholeHook(project, startInput(project), { env: { BEADS_RECOVERY_START_CACHE: 'off' } }));
  });

  it('keeps nothing with the start cache off: the next start computes its block', async () => {
    const { project } = await sessionThatRetitles('end-off', 'Retitled with the cache off', { BEADS_RECOVERY_START_CACHE: 'off' });
    expect(await fromCache(project, startInput(project))).toBeUndefined();
  });
});

/** A copy of the built command line holding only `files` of dist/. */
function partialDist(name: string, files: string[]): string {
  ensureCliBuilt();
  const partial = path.join(scratch, name);
  mkdirSync(partial, { recursive: true });
  for (const file of files) copyFileSync(path.join(REPO, 'dist', file), path.join(partial, file));
  return path.join(partial, 'cli.js');
}

/** A new session's start in `project`, as an agent runs the built hook `cli`. */
function builtStart(cli: string, project: StartProject): { stdout: string; stderr: string; status: number | null } {
  const input = startInput(project);
  const result = spawnSync(process.execPath, [cli, 'hook', 'claude', 'SessionStart'], { cwd: project.dir, env: { ...process.env, ...project.env }, input: JSON.stringify({ session_id: input.session, transcript_path: input.transcript, cwd: project.dir, hook_event_name: 'SessionStart', source: 'startup' }), encoding: 'utf8' });
  return { stdout: result.stdout.trim(), stderr: result.stderr, status: result.status };
}

describe('the built hook', () => {
  it("answers a start from the cache without loading the whole hook, and needs it at a miss", () => {
    const project = startProject(scratch, 'built');
    // The built command line without dist/hookWork.js: only a start from the cache can answer.
    const withoutWork = partialDist('dist-without-work', ['cli.js', 'hook.js', 'hookStart.js']);
    const whole = partialDist('dist-whole', ['cli.js', 'hook.js', 'hookStart.js', 'hookWork.js']);
    // The whole hook computes the block and keeps it (the first run learns the project); the next start takes it from the cache alone.
    builtStart(whole, project);
    const computed = builtStart(whole, project);
    expect(computed.stdout).toMatch(/additionalContext/);
    const cached = builtStart(withoutWork, project);
    expect(cached.status).toBe(0);
    expect(cached.stdout).toBe(computed.stdout);
    // A miss needs the whole hook, which is not there.
    writeFileSync(project.jsonl, readFileSync(project.jsonl, 'utf8').replace(/("id":"demo-1","title":")([^"]*)/, '$1Retitled'));
    const missed = builtStart(withoutWork, project);
    expect(missed.stdout).toBe('');
    expect(missed.stderr).toMatch(/hookWork\.js/);
  });

  it('answers every start with the whole hook when its start bundle is missing', () => {
    const project = startProject(scratch, 'no-start-bundle');
    const withoutStart = partialDist('dist-without-start', ['cli.js', 'hook.js', 'hookWork.js']);
    for (let run = 0; run < 3; run++) {
      const result = builtStart(withoutStart, project);
      expect(result.stdout).toMatch(/additionalContext/);
      expect(result.stderr).toMatch(/start block's cache was not used: .*hookStart\.js/);
    }
  });
});
