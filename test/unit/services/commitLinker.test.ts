import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordFileChange } from '../../../src/core/ledger';
import { findRepository, type GitRepository } from '../../../src/git/repo';
import { CommitLinker, type CommitFocus } from '../../../src/services/commitLinker';
import { LedgerStore } from '../../../src/services/ledgerStore';

const GIT_OPTIONS = { timeoutMs: 10_000 };

let dir: string;
let repoDir: string;
let repository: GitRepository;
let clock = 1_800_000_000_000;
const stores: LedgerStore[] = [];

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repoDir, encoding: 'utf8', stdio: 'pipe', env: { ...process.env, GIT_EDITOR: 'true' } });
}

function commit(message: string, file = `f${Math.random().toString(16).slice(2)}.txt`): string {
  writeFileSync(join(repoDir, file), message);
  git('add', file);
  git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD').trim();
}

/** The commits waiting in the ledger for the next checkpoint, as `<issue> <short hash> <subject>`, oldest first. */
function texts(store: LedgerStore): string[] {
  return Object.values(store.state.ledgers)
    .flatMap((ledger) => ledger.commits.map((commit) => ({ ...commit, issueId: ledger.issueId })))
    .sort((a, b) => a.at - b.at)
    .map((commit) => `${commit.issueId} ${commit.hash.slice(0, 7)} ${commit.subject}`);
}

async function setUp(options: { focus?: () => CommitFocus; file?: string } = {}) {
  const store = new LedgerStore(options.file ?? join(repository.gitDir, 'beads-recovery', 'ledger.json'), { persistDelayMs: 10 });
  stores.push(store);
  await store.load();
  const linker = new CommitLinker({
    store,
    repository,
    focus: options.focus ?? (() => ({ known: true, issueId: 'demo-1' })),
    now: () => (clock += 1000),
    git: GIT_OPTIONS,
  });
  return { store, linker };
}

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'linker-')));
  repoDir = join(dir, 'repo');
  mkdirSync(repoDir);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Agent Smith');
  git('config', 'user.email', 'agent@example.com');
  repository = (await findRepository(repoDir, GIT_OPTIONS))!;
});

afterEach(() => {
  for (const store of stores.splice(0)) store.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('CommitLinker', () => {
  it('links nothing from before it first looked, then each new commit once, kept for the next checkpoint', async () => {
    commit('history one');
    commit('history two');
    const { store, linker } = await setUp();
    store.record((state) => recordFileChange(state, 'demo-1', 'a.ts', clock));
    expect((await linker.check()).mode).toBe('first');
    expect(texts(store)).toEqual([]);

    const hash = commit('feat: add parser');
    const outcome = await linker.check();
    expect(outcome).toMatchObject({ mode: 'append', processes: 1, linked: [`${hash.slice(0, 7)} feat: add parser`] });
    // Nothing is written to beads: the commit waits with the work since the last checkpoint.
    const ledger = store.state.ledgers['demo-1'];
    expect(ledger).toMatchObject({ edits: 1, files: ['a.ts'], commits: [{ hash, subject: 'feat: add parser' }] });
    expect(ledger?.lastCheckpointAt).toBeUndefined();
    expect(store.state.linkedCommits).toEqual([hash]);
    // Durably: a store opened on the same file (another window, a restart) has it.
    const other = await setUp();
    expect(texts(other.store)).toEqual([`demo-1 ${hash.slice(0, 7)} feat: add parser`]);

    expect(await linker.check()).toMatchObject({ mode: 'unchanged', processes: 0, linked: [] });
  });

  it('records one commit once whatever number of hints arrive at once', async () => {
    const { store, linker } = await setUp();
    await linker.check();
    commit('one commit, many signals');
    await Promise.all([linker.check(), linker.check(), linker.check(), linker.check()]);
    expect(texts(store)).toHaveLength(1);
  });

  it('records one commit once across two windows', async () => {
    const first = await setUp();
    const second = await setUp();
    await first.linker.check();
    await second.store.reload();
    commit('seen by both windows');
    const outcomes = await Promise.all([first.linker.check(), second.linker.check()]);
    expect(outcomes[0].linked.length + outcomes[1].linked.length).toBe(1);
    await first.store.reload();
    expect(texts(first.store)).toEqual([expect.stringMatching(/seen by both windows$/)]);
  });

  it('survives a restart: a new store and linker do not link again, and pick up commits made meanwhile', async () => {
    const before = await setUp();
    await before.linker.check();
    commit('before restart');
    await before.linker.check();
    before.store.dispose();
    commit('made while the window was closed');
    const after = await setUp();
    await after.linker.check();
    // The same ledger file: the commit linked before stays pending once, the new one joins it.
    expect(texts(after.store)).toEqual([expect.stringContaining('before restart'), expect.stringContaining('made while the window was closed')]);
    await after.linker.check();
    expect(texts(after.store)).toHaveLength(2);
  });

  it('recognises amends, rebases, merges, cherry-picks, checkouts and resets for what they are', async () => {
    commit('base');
    const { store, linker } = await setUp();
    await linker.check();

    commit('feat: one');
    git('commit', '-q', '--amend', '--no-edit');
    git('commit', '-q', '--amend', '-m', 'feat: one, reworded');
    await linker.check();
    expect(texts(store)).toEqual([expect.stringMatching(/^demo-1 [0-9a-f]{7} feat: one$/), expect.stringMatching(/feat: one, reworded$/)]);

    git('checkout', '-q', '-b', 'topic');
    commit('topic: two');
    git('checkout', '-q', 'main');
    commit('main: three');
    git('checkout', '-q', 'topic');
    git('rebase', '-q', 'main');
    await linker.check();
    expect(texts(store).slice(2)).toEqual([expect.stringMatching(/topic: two$/), expect.stringMatching(/main: three$/)]);

    git('checkout', '-q', 'main');
    git('merge', '-q', '--no-ff', '--no-edit', 'topic');
    git('reset', '-q', '--hard', 'HEAD~1');
    git('cherry-pick', 'topic');
    git('checkout', '-q', '--detach');
    await linker.check();
    expect(texts(store).slice(4)).toEqual([expect.stringMatching(/[0-9a-f]{7} Merge branch 'topic'$/)]);
  });

  it('links a commit made on a detached HEAD and collapses a multi-line subject', async () => {
    commit('base');
    const { store, linker } = await setUp();
    await linker.check();
    git('checkout', '-q', '--detach');
    commit('fix: *bold* claim\nthat spans two lines\n\nBody paragraph');
    await linker.check();
    expect(texts(store)).toEqual([expect.stringMatching(/^demo-1 [0-9a-f]{7} fix: \*bold\* claim that spans two lines$/)]);
  });

  it('links the first commit of a repository that had none', async () => {
    const { store, linker } = await setUp();
    expect((await linker.check()).mode).toBe('missing');
    const hash = commit('initial commit');
    await linker.check();
    expect(texts(store)).toEqual([`demo-1 ${hash.slice(0, 7)} initial commit`]);
  });

  it('waits while the focus is unknown, and links nothing made while nothing was in progress', async () => {
    let focus: CommitFocus = { known: false };
    commit('base');
    const { store, linker } = await setUp({ focus: () => focus });
    expect((await linker.check()).mode).toBe('waiting');
    expect(store.state.reflog).toBeUndefined();
    focus = { known: true, issueId: undefined };
    await linker.check();
    commit('nobody was working on an issue');
    expect(await linker.check()).toMatchObject({ passed: 1, linked: [], processes: 0 });
    focus = { known: true, issueId: 'demo-2' };
    commit('now demo-2 is in progress');
    await linker.check();
    expect(texts(store)).toEqual([expect.stringMatching(/^demo-2 [0-9a-f]{7} now demo-2 is in progress$/)]);
  });


  it('does not link again after the reflog is rewritten', async () => {
    commit('base');
    const { store, linker } = await setUp();
    await linker.check();
    commit('linked before expiry');
    await linker.check();
    git('reflog', 'expire', '--expire=all', '--all');
    commit('after expiry');
    const outcome = await linker.check();
    expect(outcome.mode).toBe('rewritten');
    expect(texts(store)).toEqual([expect.stringMatching(/linked before expiry$/), expect.stringMatching(/after expiry$/)]);
    expect(store.state.reflog?.rewrites).toBe(1);
    commit('after that');
    expect((await linker.check()).mode).toBe('append');
  });
});
