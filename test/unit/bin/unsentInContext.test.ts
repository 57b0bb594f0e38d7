// A checkpoint beads refused, or one still queued, is in no trail: every context says so, with its
// words (README "Activity tracking and checkpoints"; issue 32, item 5), so an agent resumed after
// a compaction knows what it said and that it is not in beads — the command line's `context`, the
// hooks' context and the MCP server's, against the stand-in br. Another issue's waiting comments
// are counted, never worded: they may be another session's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRecoveryContext, type RecoveryInput } from '../../../src/core/recovery';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-unsent-context-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const baseEnv = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
const faultFile = path.join(scratch, 'fault');
const env = { ...baseEnv, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${baseEnv.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_RECOVERY_HOOK_DEADLINE_MS: '15000', BEADS_STANDIN_FAULT_FILE: faultFile };

function cli(dir: string, args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], { cwd: dir, env, input: input ?? '', encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What each surface must say: both checkpoints, what happened to each, and their words. */
function expectBothTold(context: string): void {
  expect(context).toMatch(/\*\*Refused by beads\*\* \([^)]*\): beads said: [^\n]*`beads-recovery retry --parked` sends it again\. Its words:\n\n +Checkpoint: the refused words/);
  expect(context).toMatch(/\*\*Queued, not in beads yet\*\* \(since [^)]*\): the beads CLI failed[^\n]*do not write it again\. Its words:\n\n +Checkpoint: the queued words/);
  expect(context).not.toMatch(/none yet: checkpoint with/);
}

describe('a refused and a queued checkpoint, in every context', { timeout: 90_000 }, () => {
  let dir: string;
  beforeAll(() => {
    ensureCliBuilt();
    dir = makeWorkspace({ dir: path.join(scratch, 'project'), dialect: 'br', data: 'scenario', git: true }).dir;
    writeFileSync(path.join(dir, 'parser.ts'), 'export {}\n');
    // br refuses the first (exit 4: validation), then fails the second without saying why (exit 1).
    writeFileSync(faultFile, 'exit:4 write\n');
    const refused = cli(dir, ['checkpoint', '--issue', 'demo-1', '--message', 'the refused words']);
    expect(refused.status, refused.stdout + refused.stderr).toBe(1);
    writeFileSync(faultFile, 'exit:1 write\n');
    const queued = cli(dir, ['checkpoint', '--issue', 'demo-1', '--message', 'the queued words']);
    expect(queued.status, queued.stdout + queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/queued/);
  }, 120_000);

  it('`context` says so, with the words', () => {
    const context = cli(dir, ['context']);
    expect(context.status).toBe(0);
    expect(context.stdout).toContain('## Resuming: demo-1');
    expectBothTold(context.stdout);
  });

  it("the hooks' context says so, with the words", () => {
    const start = cli(dir, ['hook', 'claude', 'SessionStart'], JSON.stringify({ session_id: 'unsent-1', cwd: dir, source: 'compact', hook_event_name: 'SessionStart' }));
    expect(start.status).toBe(0);
    const context = (JSON.parse(start.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    expectBothTold(context);
  });

  it("the MCP server's context says so, with the words", async () => {
    const client = new Client({ name: 'unsent-context', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_SCRIPT, 'mcp'], cwd: dir, env, stderr: 'pipe' }));
    try {
      const answer = await client.callTool({ name: 'get_recovery_context', arguments: {} });
      const text = (answer.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('\n');
      expectBothTold(text);
    } finally {
      await client.close();
    }
  });
});

describe('the context of waiting comments (core)', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const input = (budget: number): RecoveryInput => ({
    now,
    budget,
    project: { cli: 'br', readOnly: false },
    focusedId: 'demo-1',
    inProgress: { ok: true, value: [{ id: 'demo-1', title: 'Parse widget config', status: 'in_progress', priority: 2, issueType: 'task', createdAt: '2026-02-01T10:00:00Z', updatedAt: '2026-03-01T10:00:00Z', labels: [] }] },
    details: { ok: true, value: [] },
    ready: { ok: true, value: [] },
    uncommitted: { ok: true, value: [] },
    unsent: [
      { issueId: 'demo-2', state: 'refused', text: 'Checkpoint: words of another session', at: now - 60_000, why: 'beads said: blocked' },
      { issueId: 'demo-1', state: 'queued', text: 'Checkpoint: mine, still queued', at: now - 5 * 60_000, why: 'the beads database is locked' },
    ],
  });

  it("words the resumed issue's waiting comment and only counts another issue's", () => {
    const { markdown } = buildRecoveryContext(input(4096));
    expect(markdown).toContain('**Queued, not in beads yet** (since 5m ago): the beads database is locked.');
    expect(markdown).toContain('Checkpoint: mine, still queued');
    expect(markdown).toContain('- **Comments not in beads on other issues:** 1 refused by beads (`demo-2`); `beads-recovery retry --parked` sends them.');
    expect(markdown).not.toContain('words of another session');
  });

  it('keeps the waiting words when the budget drops the rest', () => {
    const { markdown, bytes, dropped } = buildRecoveryContext(input(600));
    expect(bytes).toBeLessThanOrEqual(600);
    expect(dropped).toContain('core rules');
    expect(markdown).toContain('Checkpoint: mine, still queued');
  });
});
