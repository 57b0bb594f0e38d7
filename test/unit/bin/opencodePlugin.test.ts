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
  'experimental.session.compacting': (input: { sessionID: string }, output: { context: string[] }) => Promise<void>;
  event: (input: { event: { type: string; properties: Record<string, unknown> } }) => Promise<void>;
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

  it('checkpoints and gives the compaction prompt the context, then hands the block over once after the compaction', async () => {
    writeFileSync(path.join(dir, 'opencode-work.ts'), 'export const done = true;\n');
    const compacting = { context: [] as string[] };
    await plugin['experimental.session.compacting']({ sessionID: 'ses_1' }, compacting);
    expect(compacting.context).toHaveLength(1);
    const issue = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] }).find((record) => record.id === SCENARIO.inProgress);
    expect(issue?.comments?.at(-1)?.text).toMatch(/^Auto-checkpoint \(pre-compaction\): .*opencode-work\.ts/s);
    await plugin.event({ event: { type: 'session.compacted', properties: { sessionID: 'ses_1' } } });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ path: { id: 'ses_1' }, body: { noReply: true } });
    expect(prompts[0]!.body.parts[0]!.text).toMatch(/^## Resuming: /m);
  });
});
