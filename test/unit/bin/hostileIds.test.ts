// Ids are data everywhere: an issue whose id is a name every plain object inherits (`constructor`,
// `toString`, `hasOwnProperty`) or the one that sets an object's prototype (`__proto__`) is an
// issue like any other in the context, a checkpoint, the hooks, the MCP server, a close, the
// ledger and the sidebar's model; and every command the context shows puts the id after `--`,
// so an id that looks like a flag (`--help`) is no flag when an agent copies the command.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyLedgerState, ledgerOf, markCheckpoint, mergeLedgerStates, normalizeLedgerState, recordFileChange, toLedgerSummary } from '../../../src/core/ledger';
import { recordMissedFiles } from '../../../src/core/missedFiles';
import { buildSidebarModel } from '../../../src/core/viewModel';
import { closeWithFiles } from '../../../src/services/closeFlow';
import { Outbox } from '../../../src/services/outbox';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';
import { FakeBackend } from '../support/fakeBackend';
import { issueDetails } from '../support/fakeIssues';

const HOSTILE_IDS = ['constructor', 'toString', '__proto__', 'hasOwnProperty'] as const;

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hostile-ids-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const baseEnv = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
const env = { ...baseEnv, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${baseEnv.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_RECOVERY_HOOK_DEADLINE_MS: '15000' };

/** The scenario (br) with its in-progress issue, demo-1, renamed to `id` everywhere it is named. */
function workspaceWith(id: string, name: string): string {
  const dir = makeWorkspace({ dir: path.join(scratch, name), dialect: 'br', data: 'scenario', git: true }).dir;
  const file = path.join(dir, '.beads', 'issues.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"demo-1"', JSON.stringify(id)));
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', 'commit', '-qam', 'Rename the issue in progress'], { cwd: dir });
  return dir;
}

function commentsOf(dir: string, id: string): string[] {
  const lines = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
  const issue = lines.map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === id);
  return (issue?.comments ?? []).map((comment) => comment.text);
}

function cli(dir: string, args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], { cwd: dir, env, input: input ?? '', encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => ensureCliBuilt(), 120_000);

describe.each(HOSTILE_IDS)('an issue whose id is %s', { timeout: 60_000 }, (id) => {
  let dir: string;
  beforeAll(() => {
    dir = workspaceWith(id, `cli-${id}`);
  });

  it('is resumed by `context`, and a checkpoint lands on it and shows in the next context', () => {
    const first = cli(dir, ['context']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`## Resuming: ${id} — Parse widget config`);
    // A file edited since, so the ledger and the checkpoint have something to say.
    writeFileSync(path.join(dir, 'notes.txt'), 'work\n');
    const checkpoint = cli(dir, ['checkpoint', '--message', `parser done for ${id}`]);
    expect(checkpoint.stderr).not.toMatch(/Cannot read|TypeError/);
    expect(checkpoint.status).toBe(0);
    expect(commentsOf(dir, id).some((text) => text.startsWith(`Checkpoint: parser done for ${id}\n`))).toBe(true);
    const again = cli(dir, ['context']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`Checkpoint: parser done for ${id}`);
  });

  it('gets the hooks\' context at a session start and a pre-compaction checkpoint', () => {
    const start = cli(dir, ['hook', 'claude', 'SessionStart'], JSON.stringify({ session_id: `start-${id}`, cwd: dir, source: 'startup', hook_event_name: 'SessionStart' }));
    expect(start.status).toBe(0);
    expect(start.stderr).not.toMatch(/Cannot read|TypeError|fallback failed/);
    const context = (JSON.parse(start.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    expect(context).toContain(`## Resuming: ${id} — Parse widget config`);
    writeFileSync(path.join(dir, 'more.txt'), 'more\n');
    const before = commentsOf(dir, id).length;
    const compact = cli(dir, ['hook', 'claude', 'PreCompact'], JSON.stringify({ session_id: `start-${id}`, cwd: dir, trigger: 'auto', hook_event_name: 'PreCompact' }));
    expect(compact.status).toBe(0);
    expect(compact.stderr).not.toMatch(/Cannot read|TypeError/);
    expect(commentsOf(dir, id).slice(before).some((text) => text.startsWith('Auto-checkpoint (pre-compaction)'))).toBe(true);
  });

  it('is served by the MCP server: its context, and a checkpoint written on it', async () => {
    const mcpDir = workspaceWith(id, `mcp-${id}`);
    const client = new Client({ name: 'hostile-ids', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_SCRIPT, 'mcp'], cwd: mcpDir, env, stderr: 'pipe' }));
    try {
      const context = await client.callTool({ name: 'get_recovery_context', arguments: {} });
      expect(JSON.stringify(context.content)).toContain(`## Resuming: ${id}`);
      const written = await client.callTool({ name: 'write_checkpoint', arguments: { summary: `mcp words for ${id}` } });
      expect(written.isError ?? false).toBe(false);
      expect(commentsOf(mcpDir, id).some((text) => text.startsWith(`Checkpoint: mcp words for ${id}`))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('keeps its own ledger, through merges and a round trip through JSON, and no other', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    let state = recordFileChange(emptyLedgerState(), id, 'src/a.ts', now);
    state = recordFileChange(state, 'demo-2', 'src/b.ts', now);
    state = recordMissedFiles(state, id, [{ path: 'src/c.ts', at: now + 1 }]);
    expect(ledgerOf(state, id)?.files).toEqual(['src/a.ts', 'src/c.ts']);
    const read = normalizeLedgerState(JSON.parse(JSON.stringify(state)));
    expect(ledgerOf(read, id)?.files).toEqual(['src/a.ts', 'src/c.ts']);
    expect(Object.getPrototypeOf(read.ledgers)).toBe(null);
    const merged = mergeLedgerStates(read, markCheckpoint(state, id, now + 10));
    expect(ledgerOf(merged, id)?.lastCheckpointAt).toBe(now + 10);
    expect(ledgerOf(merged, 'demo-2')?.files).toEqual(['src/b.ts']);
    // An id with no ledger has none, whatever a plain object would inherit under that name.
    const empty = emptyLedgerState();
    expect(ledgerOf(empty, id)).toBeUndefined();
    expect(ledgerOf({ ...empty, ledgers: {} }, id)).toBeUndefined();
    expect(toLedgerSummary(ledgerOf(state, id) ?? expect.fail('no ledger')).issueId).toBe(id);
  });

  it('is closed with its own files', async () => {
    const beads = new FakeBackend([], { root: '/project' });
    beads.add(issueDetails(id, { status: 'in_progress' }));
    beads.add(issueDetails('demo-2', { status: 'open' }));
    beads.block(id, 'demo-2');
    const outboxDir = mkdtempSync(path.join(scratch, 'close-'));
    const outbox = new Outbox({ file: path.join(outboxDir, 'outbox.json'), root: '/project', backend: beads, policy: { baseMs: 60_000, maxMs: 60_000, unexplainedMaxMs: 60_000 } });
    try {
      const state = recordFileChange(emptyLedgerState(), id, 'src/parser.ts', Date.parse('2026-03-01T11:00:00Z'));
      const outcome = await closeWithFiles({
        backend: beads,
        queue: outbox,
        issueId: id,
        reason: 'Verified: works',
        cli: 'br',
        ledgerFiles: ledgerOf(state, id)?.files ?? [],
        flushTimeoutMs: 1_000,
        now: Date.parse('2026-03-01T12:00:00Z'),
      });
      expect(outcome.state).toBe('closed');
      expect(outcome.closed.id).toBe(id);
      expect(outcome.unblocked.map((issue) => issue.id)).toEqual(['demo-2']);
      expect((await beads.show([id]))[0]?.comments.map((comment) => comment.text).join('\n')).toContain('src/parser.ts');
    } finally {
      outbox.dispose();
    }
  });

  it('is the sidebar\'s focus, with its activity', () => {
    const issue = issueDetails(id, { status: 'in_progress', title: 'Hostile id' });
    const model = buildSidebarModel({
      inProgress: { ok: true, value: [issue] },
      ready: { ok: true, value: [issueDetails('demo-2')] },
      details: { ok: true, value: [issue] },
      focusedId: id,
      activity: { issueId: id, files: ['src/a.ts'], commits: [], edits: 1 },
      now: Date.parse('2026-03-01T12:00:00Z'),
    });
    expect(model.focused?.issue.id).toBe(id);
    expect(model.activity?.files.items.map((file) => file.path)).toEqual(['src/a.ts']);
    expect(model.otherInProgress.items).toEqual([]);
  });
});

describe('the commands the context shows put ids after `--`', { timeout: 60_000 }, () => {
  it.each(['br', 'bd'] as const)('an id that looks like a flag (%s): the checkpoint the context shows lands on that issue', (dialect) => {
    const dir = makeWorkspace({ dir: path.join(scratch, `flag-${dialect}`), dialect, data: 'scenario', git: true }).dir;
    const file = path.join(dir, '.beads', 'issues.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"demo-1"', '"--help"'));
    const context = cli(dir, ['context', '--budget', '8192']);
    expect(context.status).toBe(0);
    const shown = [...context.stdout.matchAll(/`([^`]*--help[^`]*)`/g)].map((match) => match[1] as string);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    for (const command of shown) expect(command).toMatch(/ -- --help\b/);
    const checkpoint = shown.find((command) => command.includes('comments add') && command.includes('Done'));
    expect(checkpoint).toBeDefined();
    const ran = spawnSync('sh', ['-c', checkpoint as string], { cwd: dir, env: { ...env, BEADS_RECOVERY_CLI: dialect }, encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    expect(commentsOf(dir, '--help')).toContain('Done: …; Next: …');
  });
});
