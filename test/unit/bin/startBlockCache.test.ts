// The start block's cache (issue 28; src/services/startBlockCache.ts): a start whose inputs are as
// they were answers with the block kept by the last full computation; each input changed in turn
// gives the next start the block a full computation gives at that moment, never the kept one.
// Every start here is a new session, as an agent's start is.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { recoveryContextFor, type ContextOptions } from '../../../src/bin/context';
import { recordFileChange } from '../../../src/core/ledger';
import { LEDGER_DIR, LedgerStore } from '../../../src/services/ledgerStore';
import { lastCloseBesideLedger } from '../../../src/services/lastClose';
import { LocalThreadsStore } from '../../../src/services/localThreads';
import { runCheckpoint } from '../../../src/services/checkpointFlow';
import { SCENARIO } from '../../fixtures/make-workspace.mjs';
import { claimTranscript, startBlock as startOf, startProject } from '../support/startBlock';

// Full computations, counted: a hit makes none.
const computed = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/services/recovery', async (importOriginal) => {
  const original = (await importOriginal()) as typeof import('../../../src/services/recovery');
  return {
    ...original,
    produceRecoveryContext: (...args: Parameters<typeof original.produceRecoveryContext>) => {
      computed.count++;
      return original.produceRecoveryContext(...args);
    },
  };
});

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-start-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

const project = (name: string, now?: number) => startProject(scratch, name, now);
const startBlock = (dir: string, env: NodeJS.ProcessEnv, cached: boolean, extra: Partial<ContextOptions> = {}) => startOf({ dir, scratch }, env, cached, extra);
let claimers = 0;

/** The next start (through the cache), and whether it computed: a hit makes no computation. */
async function nextStart(dir: string, env: NodeJS.ProcessEnv, extra: Partial<ContextOptions> = {}): Promise<{ block: string; computed: boolean }> {
  const before = computed.count;
  const block = await startBlock(dir, env, true, extra);
  return { block, computed: computed.count > before };
}

/**
 * Three starts: the first computes (and learns the project's hints, so it keeps nothing: what it
 * learnt may change the next block), the second computes and keeps the block, the third takes it.
 */
async function warm(dir: string, env: NodeJS.ProcessEnv, extra: Partial<ContextOptions> = {}): Promise<string> {
  await startBlock(dir, env, true, extra);
  await startBlock(dir, env, true, extra);
  const before = computed.count;
  const block = await startBlock(dir, env, true, extra);
  expect(computed.count, 'the second start with nothing changed takes the kept block').toBe(before);
  return block;
}

type Change = (p: ReturnType<typeof project>) => Promise<void> | void;

/** Each input of the block, changed in a way that changes the block (or, where marked, only may). */
const CHANGES: Record<string, { change: Change; changesBlock: boolean; asksCli?: boolean; env?: (p: ReturnType<typeof project>) => NodeJS.ProcessEnv }> = {
  'the JSONL (an issue retitled)': {
    changesBlock: true,
    change: ({ jsonl }) => {
      const text = readFileSync(jsonl, 'utf8').replace(/("id":"demo-1","title":")([^"]*)/, '$1Retitled in the store');
      writeFileSync(jsonl, text);
    },
  },
  // br is asked from now on: its answer is not stamped, so nothing is kept while it is.
  'the database (newer than the JSONL: br is asked)': {
    changesBlock: false,
    asksCli: true,
    change: ({ dir }) => {
      const db = path.join(dir, '.beads', 'beads.db');
      writeFileSync(db, 'x');
      const later = new Date(Date.now() + 60_000);
      utimesSync(db, later, later);
    },
  },
  'the ledger (a file recorded for the issue)': {
    changesBlock: true,
    change: async ({ gitDir }) => {
      const store = new LedgerStore(path.join(gitDir, LEDGER_DIR, 'ledger.json'));
      await store.load();
      await store.update((state) => recordFileChange(state, SCENARIO.inProgress, 'src/ledgered.ts', Date.now(), { judged: true }));
      store.dispose();
    },
  },
  // Shown only when nothing is in progress; the scenario resumes an issue, so the block may stay: still a miss.
  'the last close': {
    changesBlock: false,
    change: ({ gitDir, jsonl }) => {
      // Nothing claimed since: every issue in progress now was in progress right after the close.
      const inProgressAfter = readFileSync(jsonl, 'utf8').split('\n').filter((line) => line.includes('"status":"in_progress"')).map((line) => (JSON.parse(line) as { id: string }).id);
      return lastCloseBesideLedger(path.join(gitDir, LEDGER_DIR, 'ledger.json')).record({ closed: { id: SCENARIO.closedBlocker, title: 'Closed here', status: 'closed', priority: 2, issueType: 'task' }, unblocked: [SCENARIO.unblockedByClose], inProgressAfter }).then(() => undefined);
    },
  },
  'the outbox (a checkpoint queued)': {
    changesBlock: true,
    change: async ({ dir, env }) => {
      await runCheckpoint({ ask: { message: 'the queued words' }, issueId: SCENARIO.inProgress, place: { kind: 'folder', cwd: dir, env: { ...env, BEADS_STANDIN_FAULT: 'exit:1 write' } } }, { deadline: Date.now() + 20_000 });
    },
  },
  'the threads kept on this machine': {
    changesBlock: true,
    env: ({ env }) => ({ ...env, BEADS_RECOVERY_THREAD: 'local' }),
    change: ({ gitDir }) => new LocalThreadsStore(gitDir).keep({ issueId: SCENARIO.inProgress, at: Date.now(), full: 'Thread: the kept words' }),
  },
  'the project cache (another focus learnt)': {
    changesBlock: false,
    change: ({ gitDir }) => {
      const file = path.join(gitDir, LEDGER_DIR, 'project-cache.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"contextIds":\[[^\]]*\]/, '"contextIds":[]'));
    },
  },
  "bd prime's detection files (Claude Code's project settings run bd prime)": {
    changesBlock: true,
    change: ({ dir }) => {
      mkdirSync(path.join(dir, '.claude'), { recursive: true });
      writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'bd prime' }] }] } }));
    },
  },
  'git: a tracked file edited (the index unchanged)': {
    changesBlock: true,
    change: ({ dir }) => appendFileSync(path.join(dir, 'README.md'), 'an edit\n'),
  },
  'git: a new untracked file': {
    changesBlock: true,
    change: ({ dir }) => writeFileSync(path.join(dir, 'new-file.ts'), 'export {}\n'),
  },
  'another live session claims the issue (sessions.json)': {
    changesBlock: true,
    change: async ({ dir, env }) => {
      const transcript = path.join(scratch, `claimer-${++claimers}.jsonl`);
      writeFileSync(transcript, claimTranscript('br', SCENARIO.inProgress));
      await recoveryContextFor(dir, { env, budget: 8192, forAgent: 'claude', session: { agent: 'claude', sessionId: `claimer-${claimers}`, transcript } });
    },
  },
  'a BEADS_RECOVERY_* setting (the thread off)': {
    changesBlock: false,
    env: ({ env }) => ({ ...env, BEADS_RECOVERY_THREAD: 'off' }),
    change: () => undefined,
  },
  'the actor (BEADS_ACTOR)': {
    changesBlock: false,
    env: ({ env }) => ({ ...env, BEADS_ACTOR: 'someone-else' }),
    change: () => undefined,
  },
};

describe('the start block cache', { timeout: 60_000 }, () => {
  it.each(Object.keys(CHANGES))('%s: the next start gives what a full computation gives', async (name) => {
    const entry = CHANGES[name];
    if (!entry) throw new Error(name);
    const p = project(name.replace(/[^a-z]+/gi, '-').slice(0, 40));
    // The environment after the change, where the change is one; the same one before it.
    const before = await warm(p.dir, p.env);
    await entry.change(p);
    const env = entry.env ? entry.env(p) : p.env;
    const next = await nextStart(p.dir, env);
    // A miss is a full computation (and it may learn the project's hints, which the next one reads).
    expect(next.computed, 'a changed input is a miss').toBe(true);
    if (entry.changesBlock) expect(next.block, 'the kept block would have been false').not.toBe(before);
    if (entry.asksCli) {
      expect((await nextStart(p.dir, env)).computed, 'nothing is kept while the CLI answers').toBe(true);
      return;
    }
    // And once computed again, the next start takes the new block, which a full computation gives too.
    const again = await warm(p.dir, env);
    expect(again).toBe(await startBlock(p.dir, env, false));
    if (entry.changesBlock) expect(again).not.toBe(before);
  });

  it('the agent is part of the key: Codex does not get the block kept for Claude Code', async () => {
    const p = project('agent');
    await warm(p.dir, p.env);
    const before = computed.count;
    const codex = await startBlock(p.dir, p.env, true, { forAgent: 'codex' });
    expect(computed.count).toBe(before + 1);
    expect(codex).toContain('## Resuming: demo-1');
  });

  it('a start after a compaction (a thread) or with a held block never takes the kept block', async () => {
    const p = project('thread');
    await warm(p.dir, p.env);
    const before = computed.count;
    await startBlock(p.dir, p.env, true, { conversationHolds: { issueId: 'demo-9' } });
    expect(computed.count).toBe(before + 1);
  });

  it('the clock: a block whose ages move on is taken before its bound and computed again past it', async () => {
    // The scenario's times end minutes ago: its checkpoint and trail read "Nh ago", and differently two hours later.
    const p = project('clock', Date.now());
    const now = await warm(p.dir, p.env);
    expect(now).toMatch(/\b\d+h ago\b/);
    const started = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: started + 5_000 });
    const soon = await nextStart(p.dir, p.env);
    expect(soon.computed).toBe(false);
    expect(soon.block).toBe(await startBlock(p.dir, p.env, false));
    vi.useFakeTimers({ toFake: ['Date'], now: started + 2 * 3_600_000 });
    const later = await nextStart(p.dir, p.env);
    expect(later.computed).toBe(true);
    expect(later.block).not.toBe(now);
  });

  it('the clock: the kept block expires when a deferral in the store ends (the ready list changes then)', async () => {
    const p = project('deferral');
    // An open issue with no dependency, deferred for two more minutes.
    const until = Date.now() + 120_000;
    const ready = readFileSync(p.jsonl, 'utf8').split('\n').find((line) => line.includes('"status":"open"') && !line.includes('"dependencies":[{'));
    if (!ready) throw new Error('no open issue without dependencies in the scenario');
    writeFileSync(p.jsonl, readFileSync(p.jsonl, 'utf8').replace(ready, JSON.stringify({ ...(JSON.parse(ready) as object), defer_until: new Date(until).toISOString() })));
    await warm(p.dir, p.env);
    vi.useFakeTimers({ toFake: ['Date'], now: until - 5_000 });
    expect((await nextStart(p.dir, p.env)).computed).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'], now: until + 1_000 });
    expect((await nextStart(p.dir, p.env)).computed).toBe(true);
  });

  it('keeps the cache inside the git folder, where nothing is committed', async () => {
    const p = project('where');
    await warm(p.dir, p.env);
    expect(readFileSync(path.join(p.gitDir, LEDGER_DIR, 'start-block.json'), 'utf8')).toContain('"entries"');
  });
});
