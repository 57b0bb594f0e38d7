// Shared by the start block cache's tests (test/unit/bin/startBlockCache*.test.ts): a br project
// whose issues.jsonl is current beside an older database (the hook starts no br: the case the
// cache serves), and a start of a new session through the cache or as a full computation.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { recoveryContextFor, type ContextOptions } from '../../../src/bin/context';
import { runHook } from '../../../src/bin/hook';
import { answerStartFromCache } from '../../../src/bin/hookStart';
import { parseHookInput, type HookInput } from '../../../src/core/hookProtocol';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';

export interface StartProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  gitDir: string;
  jsonl: string;
  home: string;
  /** Where this project's sessions keep their transcripts. */
  scratch: string;
}

export function startProject(scratch: string, name: string, now?: number): StartProject {
  const dir = path.join(scratch, name);
  makeWorkspace({ dir, dialect: 'br', data: 'scenario', git: true, ...(now === undefined ? {} : { now }) });
  const jsonl = path.join(dir, '.beads', 'issues.jsonl');
  const db = path.join(dir, '.beads', 'beads.db');
  writeFileSync(db, '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(db, old, old);
  const home = path.join(scratch, `${name}-home`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
    BEADS_RECOVERY_CLI: 'br',
    HOME: home,
    BEADS_STANDIN_LOG: path.join(scratch, `${name}.log`),
  };
  return { dir, env, gitDir: path.join(dir, '.git'), jsonl, home, scratch };
}

let sessions = 0;

/** A start of a new Claude Code session: through the cache, or a full computation. */
export async function startBlock(project: Pick<StartProject, 'dir' | 'scratch'>, env: NodeJS.ProcessEnv, cached: boolean, extra: Partial<ContextOptions> = {}): Promise<string> {
  const sessionId = `session-${++sessions}`;
  const result = await recoveryContextFor(project.dir, {
    env,
    budget: 8192,
    forAgent: 'claude',
    session: { agent: 'claude', sessionId, transcript: path.join(project.scratch, `${sessionId}.jsonl`) },
    startCache: cached,
    ...extra,
  });
  return result.markdown;
}

/** The hook input of a new Claude Code session's start in the project (`fields` change or add to it). */
export function startInput(project: Pick<StartProject, 'dir' | 'scratch'>, fields: Record<string, unknown> = {}): HookInput {
  const sessionId = `hook-session-${++sessions}`;
  const input = parseHookInput(JSON.stringify({ session_id: sessionId, transcript_path: path.join(project.scratch, `${sessionId}.jsonl`), cwd: project.dir, hook_event_name: 'SessionStart', source: 'startup', ...fields }));
  if (!input) throw new Error('hook input not parsed');
  return input;
}

/**
 * A new session's start as the built hook answers it (dist/hook.js): from the start block's cache
 * when it holds the block (hookStart.ts), else the whole hook, under the same run id.
 */
export async function hookStart(project: Pick<StartProject, 'dir' | 'scratch'>, env: NodeJS.ProcessEnv): Promise<{ answer: string; fromCache: boolean }> {
  const input = startInput(project);
  const runId = `run-${sessions}`;
  const cached = await answerStartFromCache('claude', 'SessionStart', input, { env, note: () => undefined, runId, signal: new AbortController().signal });
  if (cached !== undefined) return { answer: cached, fromCache: true };
  return { answer: await runHook('claude', 'SessionStart', { env, readInput: () => Promise.resolve(input), note: () => undefined, runId }), fromCache: false };
}

/** What the whole hook answers a new session's start, computed (never from the cache). */
export function computedHookStart(project: Pick<StartProject, 'dir' | 'scratch'>, env: NodeJS.ProcessEnv): Promise<string> {
  const input = startInput(project);
  return runHook('claude', 'SessionStart', { env: { ...env, BEADS_RECOVERY_START_CACHE: 'off' }, readInput: () => Promise.resolve(input), note: () => undefined });
}

/** Claude Code transcript lines of a session that claimed `issueId` just now. */
export function claimTranscript(cli: string, issueId: string): string {
  const at = new Date().toISOString();
  return [
    { type: 'assistant', timestamp: at, message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: `${cli} update ${issueId} --claim --json` } }] } },
    { type: 'user', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: `[{"id":"${issueId}","status":"in_progress"}]` }] } },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');
}
