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
  /** The session's messages as opencode stores them (client.session.messages), oldest first. */
  const stored: Record<string, { info: Record<string, unknown>; parts: Record<string, unknown>[] }[]> = {};

  beforeAll(async () => {
    ensureCliBuilt();
    dir = makeWorkspace({ dir: path.join(scratch, 'ws'), dialect: 'br', data: 'scenario', git: true }).dir;
    const home = path.join(scratch, 'home');
    mkdirSync(home);
    Object.assign(process.env, { TMPDIR: scratch, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home });
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, [CLI_SCRIPT, 'hooks', 'install', '--agent', 'opencode', '--dir', dir]);
    const file = path.join(dir, '.opencode', 'plugins', 'beads-recovery.js');
    // opencode imports the file as an ES module; so does the test (a copy with .mjs, as no package.json says "module" here).
    writeFileSync(`${file}.mjs`, readFileSync(file, 'utf8'));
    const module = (await import(pathToFileURL(`${file}.mjs`).href)) as { default: { id: string; server: (input: object) => Promise<Plugin> } };
    expect(module.default.id).toBe('beads-recovery');
    const client = {
      session: {
        prompt: (request: (typeof prompts)[number]) => (prompts.push(request), Promise.resolve({})),
        // As the SDK answers: { data }. A session the test gave no messages has an API that fails.
        messages: ({ path: { id } }: { path: { id: string } }) => (stored[id] ? Promise.resolve({ data: stored[id] }) : Promise.reject(new Error('no such route'))),
      },
    };
    plugin = await module.default.server({ directory: dir, client });
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

  describe('after a compaction that kept turns of the older conversation (a tail)', () => {
    const text = (value: string) => [{ type: 'text', text: value }];
    const user = (id: string, value: string) => ({ info: { id, role: 'user' }, parts: text(value) });
    const assistant = (id: string, parentID: string, value: string, extra: Record<string, unknown> = {}) => ({ info: { id, role: 'assistant', parentID, finish: 'stop', ...extra }, parts: text(value) });
    // Oldest first: an early turn, a turn whose message carried a block of ours, a later turn, the
    // compaction (its tail starting at `tail`) and its summary.
    const session = (tail: string | undefined, summaryDone = true) => [
      user('msg_0', 'early work'),
      assistant('msg_0a', 'msg_0', 'ok'),
      user('msg_1', 'go on\n\n## Resuming: demo-1 — Parse widget config\n\nbeads-recovery block 0123abcd'),
      assistant('msg_1a', 'msg_1', 'ok'),
      user('msg_2', 'more'),
      assistant('msg_2a', 'msg_2', 'ok'),
      { info: { id: 'msg_c', role: 'user' }, parts: [{ type: 'compaction', auto: true, ...(tail ? { tail_start_id: tail } : {}) }] },
      assistant('msg_s', 'msg_c', '## Objective\n- parse the config', { summary: true, ...(summaryDone ? {} : { finish: undefined }) }),
    ];
    const promptsTo = (sessionID: string) => prompts.filter((request) => request.path.id === sessionID);

    it('a block in the kept turns is the one: no second beside it', async () => {
      stored.ses_tail = session('msg_1');
      await compacting('ses_tail', 'tail-work.ts');
      await plugin['experimental.compaction.autocontinue']({ sessionID: 'ses_tail', overflow: false }, { enabled: true });
      expect(promptsTo('ses_tail')).toEqual([]);
      // Given as far as the hook knows: the next message of the session gets nothing either.
      const next = { message: {}, parts: [{ type: 'text', text: 'next' }] };
      await plugin['chat.message']({ sessionID: 'ses_tail' }, next);
      expect(next.parts[0]!.text).toBe('next');
    });

    it('kept turns without a block, no tail, or a summary not done: the block goes in', async () => {
      for (const [sessionID, messages] of [['ses_after', session('msg_2')], ['ses_whole', session(undefined)], ['ses_unsure', session('msg_1', false)]] as const) {
        stored[sessionID] = messages;
        await compacting(sessionID, `${sessionID}.ts`);
        await plugin['experimental.compaction.autocontinue']({ sessionID, overflow: false }, { enabled: true });
        expect(promptsTo(sessionID).map((request) => request.body.parts[0]!.text), sessionID).toEqual([expect.stringMatching(/^## Resuming: /m)]);
      }
    });
  });
});
