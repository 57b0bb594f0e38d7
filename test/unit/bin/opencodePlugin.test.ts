// The opencode plugin as opencode loads it: the written module imported, its server started with
// a stand-in client, and its hooks called the way opencode 1.18 calls them, running the built CLI
// on a beads project (stand-in br).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-opencode-'));
const savedEnv = { ...process.env };

interface Plugin {
  'chat.message': (input: { sessionID: string }, output: { message: object; parts: { type: string; text?: string }[] }) => Promise<void>;
  'experimental.session.compacting': (input: { sessionID: string }, output: { context: string[]; prompt?: string }) => Promise<void>;
  'experimental.compaction.autocontinue': (input: { sessionID: string; overflow: boolean }, output: { enabled: boolean }) => Promise<void>;
}

describe('the opencode plugin, loaded as opencode loads it', { timeout: 90_000 }, () => {
  let dir: string;
  let plugin: Plugin;
  const prompts: { path: { id: string }; body: { noReply: boolean; parts: { text: string }[] } }[] = [];

  beforeAll(async () => {
    ensureCliBuilt();
    dir = makeWorkspace({ dir: path.join(scratch, 'ws'), dialect: 'br', data: 'scenario', git: true }).dir;
    const home = path.join(scratch, 'home');
    mkdirSync(home);
    Object.assign(process.env, { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home });
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, [CLI_SCRIPT, 'hooks', 'install', '--agent', 'opencode', '--dir', dir]);
    const file = path.join(dir, '.opencode', 'plugins', 'beads-recovery.js');
    // opencode imports the file as an ES module; so does the test (a copy with .mjs, as no package.json says "module" here).
    writeFileSync(`${file}.mjs`, readFileSync(file, 'utf8'));
    const module = (await import(pathToFileURL(`${file}.mjs`).href)) as { default: { id: string; server: (input: object) => Promise<Plugin> } };
    expect(module.default.id).toBe('beads-recovery');
    plugin = await module.default.server({ directory: dir, client: { session: { prompt: (request: (typeof prompts)[number]) => (prompts.push(request), Promise.resolve({})) } } });
  }, 60_000);

  afterAll(() => {
    process.env = savedEnv;
    rmSync(scratch, { recursive: true, force: true });
  });

  it('adds the block to the first message of a session, once', async () => {
    const first = { message: {}, parts: [{ type: 'text', text: 'go on' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, first);
    expect(first.parts[0]!.text).toMatch(new RegExp(`^go on\\n\\n[\\s\\S]*## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    const second = { message: {}, parts: [{ type: 'text', text: 'and then?' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, second);
    expect(second.parts[0]!.text).toBe('and then?');
  });

  const checkpoints = () =>
    (readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === SCENARIO.inProgress)?.comments ?? [])
      .map((comment) => comment.text)
      .filter((text) => text.startsWith('Auto-checkpoint (pre-compaction): '));
  const compacting = async (sessionID: string, work: string) => {
    writeFileSync(path.join(dir, work), `export const ${work.replace(/\W/g, '_')} = true;\n`);
    const before = checkpoints().length;
    const output = { context: [] as string[] };
    await plugin['experimental.session.compacting']({ sessionID }, output);
    // The summary request gets nothing of ours: the block goes in after the compaction, once.
    expect(output).toEqual({ context: [] });
    expect(checkpoints().slice(before)).toEqual([expect.stringContaining(work)]);
  };

  it('an automatic compaction: one checkpoint, then the block as a message of its own before opencode continues, once', async () => {
    await compacting('ses_1', 'opencode-work.ts');
    const output = { enabled: true };
    await plugin['experimental.compaction.autocontinue']({ sessionID: 'ses_1', overflow: false }, output);
    // opencode goes on with its own "Continue…" message, after ours.
    expect(output).toEqual({ enabled: true });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ path: { id: 'ses_1' }, body: { noReply: true } });
    expect(prompts[0]!.body.parts[0]!.text).toMatch(new RegExp(`^## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    // Given: neither a second continue nor the user's next message brings it again.
    await plugin['experimental.compaction.autocontinue']({ sessionID: 'ses_1', overflow: false }, { enabled: true });
    const next = { message: {}, parts: [{ type: 'text', text: 'next' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, next);
    expect(next.parts[0]!.text).toBe('next');
    expect(prompts).toHaveLength(1);
  });

  it('a manual compaction (no continue): the next message of the session carries the block, once; a second compaction gets its own', async () => {
    await compacting('ses_1', 'manual-work.ts');
    const next = { message: {}, parts: [{ type: 'text', text: 'carry on' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, next);
    expect(next.parts[0]!.text).toMatch(new RegExp(`^carry on\\n\\n[\\s\\S]*## Resuming: ${SCENARIO.inProgress} — `, 'm'));
    const later = { message: {}, parts: [{ type: 'text', text: 'later' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, later);
    expect(later.parts[0]!.text).toBe('later');
    await compacting('ses_1', 'second-work.ts');
    const again = { message: {}, parts: [{ type: 'text', text: 'again' }] };
    await plugin['chat.message']({ sessionID: 'ses_1' }, again);
    expect(again.parts[0]!.text).toMatch(/^## Resuming: /m);
    expect(prompts).toHaveLength(1);
  });

  it('a compaction of one session owes nothing to another', async () => {
    const other = { message: {}, parts: [{ type: 'text', text: 'first' }] };
    await plugin['chat.message']({ sessionID: 'ses_2' }, other);
    expect(other.parts[0]!.text).toMatch(/^## Resuming: /m);
    await compacting('ses_1', 'third-work.ts');
    const second = { message: {}, parts: [{ type: 'text', text: 'second' }] };
    await plugin['chat.message']({ sessionID: 'ses_2' }, second);
    expect(second.parts[0]!.text).toBe('second');
    await plugin['experimental.compaction.autocontinue']({ sessionID: 'ses_2', overflow: false }, { enabled: true });
    expect(prompts).toHaveLength(1);
  });
});
