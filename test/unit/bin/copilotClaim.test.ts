// Copilot CLI names its session log (`session-state/<id>/events.jsonl`) only in its PreCompact
// hook's input; its SessionStart and PostToolUse inputs carry the session id alone. A session that
// claimed its issue with `br update --claim` (exit 0) was then told "no claim by this session is
// recorded" and handed the newest issue (issue 30). Through the built dist/cli.js, with a log in
// the shape Copilot CLI 1.0.102 writes it (test/fixtures/transcripts/copilot/nested-keys.jsonl).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-copilot-claim-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a Copilot CLI session that claimed its issue', { timeout: 90_000 }, () => {
  const dir = path.join(scratch, 'project');
  const copilotHome = path.join(scratch, 'copilot-home');
  const session = 'e0ee66aa-806b-406e-aae0-710e5e2ccb08';
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: scratch, USERPROFILE: scratch, COPILOT_HOME: copilotHome };
  const br = (...args: string[]) => execFileSync('br', args, { cwd: dir, env, encoding: 'utf8' });
  const ids = { own: '', newer: '' };
  const idOf = (json: string) => {
    const created = JSON.parse(json) as { id: string } | { id: string }[];
    return Array.isArray(created) ? (created[0]?.id as string) : created.id;
  };

  /** One line of Copilot CLI's session log. */
  const line = (type: string, data: object, at: Date) => `${JSON.stringify({ type, data, id: `${type}-${at.getTime()}`, timestamp: at.toISOString(), parentId: null })}\n`;

  beforeAll(async () => {
    makeWorkspace({ dir, dialect: 'br', data: 'empty' });
    ids.own = idOf(br('create', "The Copilot session's issue", '--json'));
    ids.newer = idOf(br('create', 'Someone else’s issue, updated later', '--json'));
    br('update', '--status', 'in_progress', '--json', '--', ids.newer);
    const claimedAt = new Date();
    br('update', '--claim', '--json', '--', ids.own);
    // The other issue changes after the claim, so "the most recently updated" would name it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    br('update', '--priority', '1', '--json', '--', ids.newer);
    const log = path.join(copilotHome, 'session-state', session, 'events.jsonl');
    mkdirSync(path.dirname(log), { recursive: true });
    const started = new Date(claimedAt.getTime() - 2_000);
    writeFileSync(
      log,
      line('session.start', { sessionId: session, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', startTime: started.toISOString(), context: { cwd: dir, gitRoot: dir, branch: 'main' } }, started) +
        line('user.message', { content: 'Claim the parser issue and fix it' }, new Date(claimedAt.getTime() - 1_000)) +
        line('tool.execution_start', { toolCallId: 'toolu_1', toolName: 'bash', arguments: { command: `br update --claim -- ${ids.own}`, description: 'Claim the issue' }, turnId: '0' }, claimedAt) +
        line('tool.execution_complete', { toolCallId: 'toolu_1', turnId: '0', shellExecution: { exitCode: 0 }, success: true, result: { content: `Updated ${ids.own}\n<shellId: 0 completed with exit code 0>` } }, new Date(claimedAt.getTime() + 300)),
    );
  });

  function hook(event: string, input: object): string {
    // Copilot CLI's own hook input: camelCase, a stamp, the session id, no transcript path.
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'copilot', event], { cwd: dir, env, input: JSON.stringify({ sessionId: session, timestamp: Date.now(), cwd: dir, ...input }), encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { additionalContext?: string; hookSpecificOutput?: { additionalContext?: string } };
    return answer.additionalContext ?? answer.hookSpecificOutput?.additionalContext ?? '';
  }

  it('resumes its own issue at a start whose input names no log, with no false "no claim" reason', () => {
    const start = hook('SessionStart', { source: 'resume', initialPrompt: 'go on' });
    expect(start).toContain(`## Resuming: ${ids.own} — The Copilot session's issue`);
    expect(start).not.toContain('no claim by this session is recorded');
    expect(start).not.toMatch(new RegExp(`(?:comments add|close)\\b[^\`\\n]*${ids.newer}`));
  });
});

// The real Copilot CLI 1.0.102 may run a new session's first hooks before its session log is on
// disk. That session was recorded without its log, so no later hook of another session read its
// claim: a second session started beside it was handed the issue it had claimed.
describe('a Copilot CLI session whose log is written after its first hook', { timeout: 90_000 }, () => {
  const dir = path.join(scratch, 'late-log');
  const copilotHome = path.join(scratch, 'late-log-copilot-home');
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: scratch, USERPROFILE: scratch, COPILOT_HOME: copilotHome };
  const br = (...args: string[]) => execFileSync('br', args, { cwd: dir, env, encoding: 'utf8' });
  const line = (type: string, data: object, at: Date) => `${JSON.stringify({ type, data, id: `${type}-${at.getTime()}`, timestamp: at.toISOString(), parentId: null })}\n`;
  const hook = (session: string, event: string, input: object) => {
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'hook', 'copilot', event], { cwd: dir, env, input: JSON.stringify({ sessionId: session, timestamp: Date.now(), cwd: dir, ...input }), encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout || '{}') as { additionalContext?: string; hookSpecificOutput?: { additionalContext?: string } };
    return answer.additionalContext ?? answer.hookSpecificOutput?.additionalContext ?? '';
  };

  it('is read for its claims once the log is there: a session started beside it is not handed its issue', () => {
    makeWorkspace({ dir, dialect: 'br', data: 'empty' });
    const idOf = (json: string) => {
      const created = JSON.parse(json) as { id: string } | { id: string }[];
      return Array.isArray(created) ? (created[0]?.id as string) : created.id;
    };
    const older = idOf(br('create', 'In progress from before', '--json'));
    br('update', '--status', 'in_progress', '--json', '--', older);
    const claimed = idOf(br('create', "The first session's issue", '--json'));
    const first = '0a1b2c3d-0000-4000-8000-000000000001';
    // Its start: no log yet.
    hook(first, 'SessionStart', { source: 'new', initialPrompt: 'claim your issue' });
    // Then it claims, and Copilot CLI writes its log.
    const claimedAt = new Date();
    br('update', '--claim', '--json', '--', claimed);
    const log = path.join(copilotHome, 'session-state', first, 'events.jsonl');
    mkdirSync(path.dirname(log), { recursive: true });
    writeFileSync(
      log,
      line('session.start', { sessionId: first, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', startTime: new Date(claimedAt.getTime() - 2_000).toISOString(), context: { cwd: dir, gitRoot: dir, branch: 'main' } }, new Date(claimedAt.getTime() - 2_000)) +
        line('user.message', { content: 'claim your issue' }, new Date(claimedAt.getTime() - 1_000)) +
        line('tool.execution_start', { toolCallId: 'toolu_1', toolName: 'bash', arguments: { command: `br update --claim -- ${claimed}`, description: 'Claim the issue' }, turnId: '0' }, claimedAt) +
        line('tool.execution_complete', { toolCallId: 'toolu_1', turnId: '0', shellExecution: { exitCode: 0 }, success: true, result: { content: `Updated ${claimed}\n<shellId: 0 completed with exit code 0>` } }, new Date(claimedAt.getTime() + 300)),
    );
    const second = hook('0a1b2c3d-0000-4000-8000-000000000002', 'SessionStart', { source: 'new', initialPrompt: 'go' });
    expect(second).not.toContain(`## Resuming: ${claimed}`);
    expect(second).not.toMatch(new RegExp(`(?:comments add|close)\\b[^\`\\n]*${claimed}`));
  });
});
