// Shared by the start block cache's tests (test/unit/bin/startBlockCache*.test.ts): a br project
// whose issues.jsonl is current beside an older database (the hook starts no br: the case the
// cache serves), and a start of a new session through the cache or as a full computation.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { recoveryContextFor, type ContextOptions } from '../../../src/bin/context';
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
