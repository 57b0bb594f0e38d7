// bd's memories reach the context when bd's own prime does not reach the agent, within a bound,
// and are not repeated when it does; br's agent_context (the issue's instructions for agents)
// reaches the context; br 0.5's search envelope is read.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recoveryContextFor } from '../../../src/bin/context';
import { buildRecoveryContext } from '../../../src/core/recovery';
import { parseIssueList, parseMemories } from '../../../src/core/parse';
import { runJson } from '../../fixtures/standin/harness';

const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'memories-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const at = '2026-02-01T10:00:00Z';
const inProgress = (fields: Record<string, unknown> = {}) => ({ id: 'k-1', title: 'The work', status: 'in_progress', priority: 1, issue_type: 'task', assignee: 'me', created_at: at, updated_at: at, ...fields });

function store(dialect: 'bd' | 'br', records: unknown[]): string {
  const root = join(base, `${dialect}-${++counter}`);
  mkdirSync(join(root, '.beads'), { recursive: true });
  writeFileSync(join(root, '.beads', 'issues.jsonl'), records.map((record) => JSON.stringify(record)).join('\n') + '\n');
  return root;
}

/** The context as the command line (and the hooks, with `forAgent`) produce it, with the stand-ins on PATH. */
async function contextOf(root: string, env: Record<string, string>, forAgent?: 'claude') {
  const saved = { ...process.env };
  Object.assign(process.env, env, { PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`, BEADS_STANDIN_LOG: join(root, 'calls.log') });
  try {
    const warnings: string[] = [];
    const result = await recoveryContextFor(root, { env: { ...process.env }, forAgent, budget: 8_000, warn: (line) => warnings.push(line) });
    const log = join(root, 'calls.log');
    const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { args: string[] }).args[0]) : [];
    return { markdown: result.markdown, warnings, calls };
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("bd's memories in the context", () => {
  it('reads `bd memories --json`: the map without bd\'s schema_version, sorted by key', () => {
    expect(parseMemories({ zeta: 'last', alpha: 'first', schema_version: 1 })).toEqual([
      { key: 'alpha', value: 'first' },
      { key: 'zeta', value: 'last' },
    ]);
    expect(parseMemories({ schema_version: 1, data: { one: 'x' } })).toEqual([{ key: 'one', value: 'x' }]);
    expect(parseMemories(['not', 'a', 'map'])).toEqual([]);
    expect(parseMemories({ n: 3, ok: 'yes' })).toEqual([{ key: 'ok', value: 'yes' }]);
  });

  it('shows them after the rules when bd prime does not reach the agent: at most eight, each cut, the rest counted', () => {
    const memories = Array.from({ length: 11 }, (_, index) => ({ key: `m-${String(index).padStart(2, '0')}`, value: `${'word '.repeat(index === 0 ? 200 : 3)}${index}` }));
    const input = {
      now: Date.parse('2026-02-02T00:00:00Z'),
      budget: 16_000,
      project: { cli: 'bd' as const, readOnly: false },
      inProgress: { ok: true as const, value: [] },
      details: { ok: true as const, value: [] },
      ready: { ok: true as const, value: [] },
      uncommitted: { ok: true as const, value: [] },
      memories,
    };
    const shown = buildRecoveryContext(input).markdown;
    expect(shown).toContain('## Memories');
    expect(shown).toContain('- `m-07`: word word word 7');
    expect(shown).not.toContain('m-08');
    expect(shown).toContain('- …and 3 more: `bd memories`');
    const first = shown.split('\n').find((line) => line.startsWith('- `m-00`')) ?? '';
    expect(Buffer.byteLength(first)).toBeLessThan(300);
    expect(buildRecoveryContext({ ...input, omitRules: true }).markdown).not.toContain('## Memories');
    // A tight budget drops them (last first) before the rules.
    const tight = buildRecoveryContext({ ...input, budget: 900 });
    expect(tight.dropped.join(' ')).toMatch(/memor/);
  });

  it('the command line gives them from the bd stand-in; a hook for an agent bd prime reaches leaves them out and asks no process for them', async () => {
    const root = store('bd', [inProgress()]);
    runJson('bd', ['remember', 'Always run the race detector before a commit', '--json'], { cwd: root });
    runJson('bd', ['remember', 'Staging deploys need the VPN', '--key', 'staging-vpn', '--json'], { cwd: root });
    const plain = await contextOf(root, { BEADS_RECOVERY_CLI: 'bd' });
    expect(plain.markdown).toContain('## Memories');
    expect(plain.markdown).toContain('- `staging-vpn`: Staging deploys need the VPN');
    expect(plain.markdown).toContain('Always run the race detector before a commit');
    expect(plain.calls).toContain('memories');

    mkdirSync(join(root, '.claude'), { recursive: true });
    writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ matcher: '', hooks: [{ type: 'command', command: 'bd prime --hook-json' }] }] } }));
    rmSync(join(root, 'calls.log'));
    const primed = await contextOf(root, { BEADS_RECOVERY_CLI: 'bd' }, 'claude');
    expect(primed.markdown).not.toContain('## Memories');
    expect(primed.markdown).not.toContain('Staging deploys');
    expect(primed.calls).not.toContain('memories');
  }, 30_000);
});

describe("br 0.5's agent_context and search envelope", () => {
  it("the focused issue's agent_context reaches the context as its instructions for agents", async () => {
    const root = store('br', [inProgress({ description: 'Make the parser tolerant.', agent_context: 'Run `make check` before closing; never edit generated/.' })]);
    writeFileSync(join(root, '.beads', 'metadata.json'), JSON.stringify({ database: 'beads.db', jsonl_export: 'issues.jsonl' }));
    const { markdown } = await contextOf(root, { BEADS_RECOVERY_CLI: 'br', BEADS_STANDIN_BR_VERSION: '0.5.7' });
    expect(markdown).toContain('### Instructions for Agents');
    expect(markdown).toContain('Run `make check` before closing; never edit generated/.');
    expect(markdown.indexOf('### Description')).toBeLessThan(markdown.indexOf('### Instructions for Agents'));
  }, 30_000);

  it('reads search answers in both shapes: 0.2.15 bare array, 0.5.7 {issues, hidden_closed_count}', () => {
    const root = store('br', [inProgress({ title: 'Find the parser' }), { ...inProgress({ id: 'k-2', title: 'Find the old parser', status: 'closed' }) }]);
    const bare = runJson('br', ['search', 'parser', '--json'], { cwd: root });
    const envelope = runJson('br', ['search', 'parser', '--json'], { cwd: root, env: { BEADS_STANDIN_BR_VERSION: '0.5.7' } });
    expect(envelope).toMatchObject({ hidden_closed_count: 1 });
    expect(parseIssueList(bare).map((issue) => issue.id)).toEqual(['k-1']);
    expect(parseIssueList(envelope).map((issue) => issue.id)).toEqual(['k-1']);
  }, 30_000);
});
