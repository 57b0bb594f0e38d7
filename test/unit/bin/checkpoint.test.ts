// `beads-recovery checkpoint` against the stand-in `br` (real processes over a real JSONL store)
// in a real git repository: what it writes, when it writes nothing, and how it keeps a write it
// could not make.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointCommand, retryCommand } from '../../../src/bin/checkpoint';
import { recoveryContextFor } from '../../../src/bin/context';
import { makeWorkspace } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const repoRoot = path.resolve(__dirname, '../../..');
const standInBin = path.join(repoRoot, 'test', 'fixtures', 'bin');

let work: string;
let scratch: string;
let env: NodeJS.ProcessEnv;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', ...args], { cwd: work, encoding: 'utf8', env: gitEnv }).trim();
}

let gitEnv: NodeJS.ProcessEnv = process.env;

function issueLine(id: string, status: string, updatedAt: string, comments: { text: string; created_at: string }[] = []): string {
  return JSON.stringify({
    id,
    title: `Issue ${id}`,
    status,
    priority: 2,
    issue_type: 'task',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: updatedAt,
    compaction_level: 0,
    ...(comments.length ? { comments: comments.map((comment, index) => ({ id: index + 1, issue_id: id, author: 'agent', ...comment })) } : {}),
  });
}

function writeIssues(lines: string[]): void {
  writeFileSync(path.join(work, '.beads', 'issues.jsonl'), `${lines.join('\n')}\n`);
}

function comments(id: string): string[] {
  const text = readFileSync(path.join(work, '.beads', 'issues.jsonl'), 'utf8');
  const issue = text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] })
    .find((record) => record.id === id);
  return (issue?.comments ?? []).map((comment) => comment.text);
}

async function run(args: string[], hook?: { event?: string; cwd?: string }) {
  const lines: string[] = [];
  const code = await checkpointCommand(args, { out: (line) => lines.push(line), env, readHook: async () => hook });
  return { code, output: lines.join('\n') };
}

/** Queued writes keep their spacing whichever process tries them: wait until the last one is due. */
async function untilQueuedWritesAreDue(): Promise<void> {
  const outbox = JSON.parse(readFileSync(path.join(work, '.git', 'beads-recovery', 'outbox.json'), 'utf8')) as { pending: { nextAttemptAt: number }[] };
  const due = Math.max(0, ...outbox.pending.map((entry) => entry.nextAttemptAt));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now() + 20)));
}

function ledgerFile(): string {
  return path.join(work, '.git', 'beads-recovery', 'ledger.json');
}

beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'cli-checkpoint-'));
  scratch = mkdtempSync(path.join(tmpdir(), 'cli-checkpoint-scratch-'));
  mkdirSync(path.join(work, '.beads'));
  writeFileSync(path.join(work, '.beads', 'metadata.json'), JSON.stringify({ database: 'beads.db', jsonl_export: 'issues.jsonl' }));
  // demo-1 was claimed an hour ago (br records no claim time: its last update is the claim).
  writeIssues([issueLine('demo-1', 'in_progress', new Date(Date.now() - 3_600_000).toISOString()), issueLine('demo-2', 'open', '2026-01-01T00:00:00Z')]);
  git('init', '-q');
  writeFileSync(path.join(work, '.gitignore'), '.beads/\n');
  writeFileSync(path.join(work, 'README.md'), 'hello\n');
  git('add', '.');
  // Before the claim of demo-1: not its work.
  const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000).toISOString();
  gitEnv = { ...process.env, GIT_AUTHOR_DATE: threeHoursAgo, GIT_COMMITTER_DATE: threeHoursAgo };
  git('commit', '-qm', 'initial');
  gitEnv = process.env;
  env = {
    ...process.env,
    PATH: `${standInBin}${path.delimiter}${process.env.PATH ?? ''}`,
    BEADS_RECOVERY_CLI: 'br',
    BEADS_STANDIN_FAULT_FILE: path.join(scratch, 'fault'),
    BEADS_STANDIN_LOG: path.join(scratch, 'calls.jsonl'),
    BEADS_RECOVERY_TIMEOUT_MS: '5000',
  };
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe('beads-recovery checkpoint', () => {
  it('writes Checkpoint: M with the files changed since the last checkpoint, and records the time in the ledger', async () => {
    writeFileSync(path.join(work, 'parser.ts'), 'export {}\n');
    const before = Date.now();
    const { code, output } = await run(['--cwd', work, '--message', 'parser skeleton done']);
    expect(output).toMatch(/checkpoint written on demo-1: Checkpoint: parser skeleton done/);
    expect(code).toBe(0);
    expect(comments('demo-1')).toEqual(['Checkpoint: parser skeleton done\n- Files: parser.ts']);
    const ledger = JSON.parse(readFileSync(ledgerFile(), 'utf8'));
    expect(ledger.ledgers['demo-1'].lastCheckpointAt).toBeGreaterThanOrEqual(before);
  });

  it('writes the pre-compaction auto-checkpoint from git: commits since the last checkpoint and their files', async () => {
    // The last checkpoint is a comment from two hours ago; the commit below is newer.
    writeIssues([issueLine('demo-1', 'in_progress', '2026-01-02T00:00:00Z', [{ text: 'Checkpoint: start', created_at: new Date(Date.now() - 2 * 3_600_000).toISOString() }])]);
    writeFileSync(path.join(work, 'lexer.ts'), 'export const lexer = 1;\n');
    git('add', 'lexer.ts');
    git('commit', '-qm', 'feat: lexer\n\nwith a body line');
    const hash = git('rev-parse', '--short=7', 'HEAD');
    writeFileSync(path.join(work, 'README.md'), 'changed\n');

    const { code, output } = await run(['--cwd', work, '--auto', '--pre-compact']);
    expect(code).toBe(0);
    expect(output).toMatch(/checkpoint written on demo-1: Auto-checkpoint \(pre-compaction\): 2 files, 1 commit in 2 h/);
    expect(comments('demo-1')).toEqual([
      'Checkpoint: start',
      `Auto-checkpoint (pre-compaction): 2 files, 1 commit in 2 h\n- Files: lexer.ts, README.md\n- Commits: ${hash} feat: lexer`,
    ]);

    // Nothing happened since: a second hook run writes nothing and still exits 0.
    const again = await run(['--cwd', work, '--auto', '--pre-compact']);
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/nothing new on demo-1 since the last checkpoint/);
    expect(comments('demo-1')).toHaveLength(2);
  });

  it('reads Claude Code hook JSON: PreCompact means pre-compaction, and its cwd is used', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    const { code } = await run([], { event: 'PreCompact', cwd: work });
    expect(code).toBe(0);
    expect(comments('demo-1')[0]).toMatch(/^Auto-checkpoint \(pre-compaction\): 1 file, 0 commits in 1 h\n- Files: a\.ts$/);
  });

  it('exits 0 with one line when nothing is in progress, or there is no beads project', async () => {
    writeIssues([issueLine('demo-2', 'open', '2026-01-01T00:00:00Z')]);
    expect(await run(['--cwd', work, '--auto'])).toEqual({ code: 0, output: 'beads-recovery: no issue is in progress; no checkpoint written.' });
    const plain = mkdtempSync(path.join(tmpdir(), 'cli-checkpoint-plain-'));
    try {
      expect(await run(['--cwd', plain, '--pre-compact'])).toEqual({ code: 0, output: 'beads-recovery: not a beads project (no .beads directory); no checkpoint written.' });
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it('with beads locked, keeps the checkpoint in the outbox (exit 0 as a hook) and the next run lands it exactly once', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'locked write\n');
    const first = await run(['--cwd', work, '--auto']);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/queued .*locked/i);
    expect(comments('demo-1')).toEqual([]);
    const outbox = JSON.parse(readFileSync(path.join(work, '.git', 'beads-recovery', 'outbox.json'), 'utf8'));
    expect(outbox.pending).toHaveLength(1);
    expect(outbox.pending[0].write.text).toMatch(/^Auto-checkpoint \(agent hook\): 1 file/);

    rmSync(path.join(scratch, 'fault'));
    writeFileSync(path.join(work, 'b.ts'), 'b\n');
    const second = await run(['--cwd', work, '--message', 'after the lock']);
    expect(second.code).toBe(0);
    const written = comments('demo-1');
    expect(written.filter((text) => text.startsWith('Auto-checkpoint (agent hook)'))).toHaveLength(1);
    expect(written.filter((text) => text.startsWith('Checkpoint: after the lock'))).toHaveLength(1);
    expect(written).toHaveLength(2);
  });

  it('takes the word after --message or -m as the message even when it starts with "-" (a markdown bullet)', async () => {
    const long = await run(['--cwd', work, '--message', '- lexer done']);
    expect(long.output).toMatch(/checkpoint written on demo-1: Checkpoint: - lexer done/);
    const short = await run(['--cwd', work, '-m', '--parser next']);
    expect(short.code).toBe(0);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).toEqual(['Checkpoint: - lexer done', 'Checkpoint: --parser next']);
  });

  it('fails a manual checkpoint with exit 1 when beads refuses it, but never a hook', async () => {
    writeFileSync(path.join(scratch, 'fault'), 'exit:4 write\n');
    const manual = await run(['--cwd', work, '--issue', 'demo-1', '--message', 'x']);
    expect(manual.code).toBe(1);
    expect(manual.output).toMatch(/could not write the checkpoint on demo-1/);
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    const hook = await run(['--cwd', work, '--auto']);
    expect(hook.code).toBe(0);
  });
});

describe('nothing asked for is lost', () => {
  it('queues a requested checkpoint when beads is locked for every call; the next run sends it, even when it has nothing new', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'locked\n');
    const first = await run(['--cwd', work, '--message', 'lexer done']);
    expect(first.output).toMatch(/checkpoint for demo-1 queued .*Checkpoint: lexer done/);
    expect(first.code).toBe(0);
    expect(comments('demo-1')).toEqual([]);
    // Only counted once it lands: the ledger holds no checkpoint yet.
    expect(existsSync(ledgerFile()) ? JSON.parse(readFileSync(ledgerFile(), 'utf8')).ledgers['demo-1']?.lastCheckpointAt : undefined).toBeUndefined();

    rmSync(path.join(scratch, 'fault'));
    rmSync(path.join(work, 'a.ts'));
    await untilQueuedWritesAreDue();
    const second = await run(['--cwd', work, '--auto']);
    expect(second.code).toBe(0);
    expect(second.output).toMatch(/Sent 1 queued write/);
    expect(comments('demo-1')).toEqual(['Checkpoint: lexer done\n- Files: a.ts']);
  });

  it('lands a queued checkpoint on the next run instead of hiding it behind "nothing new"', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'locked write\n');
    expect((await run(['--cwd', work, '--auto'])).output).toMatch(/queued/);
    rmSync(path.join(scratch, 'fault'));
    await untilQueuedWritesAreDue();
    // The queued write lands first, once; then the same work is nothing new.
    const again = await run(['--cwd', work, '--auto']);
    expect(again.output).toMatch(/nothing new on demo-1 .* Sent 1 queued write/);
    expect(comments('demo-1')).toEqual([expect.stringMatching(/^Auto-checkpoint \(agent hook\): 1 file/)]);
  });
});

describe('after a long outage', () => {
  it('tells the earlier write as it ends: sent with the new one, not "still queued"', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'exit:1 write\n');
    expect((await run(['--cwd', work, '--message', 'old words'])).output).toMatch(/queued/);
    rmSync(path.join(scratch, 'fault'));
    // Ten tries into the outage, as a long one leaves it: the next half an hour away, the last two minutes ago.
    const file = path.join(work, '.git', 'beads-recovery', 'outbox.json');
    const outbox = JSON.parse(readFileSync(file, 'utf8')) as { pending: { attempts: number; nextAttemptAt: number; lastTriedAt: number }[] };
    Object.assign(outbox.pending[0]!, { attempts: 10, nextAttemptAt: Date.now() + 30 * 60_000, lastTriedAt: Date.now() - 2 * 60_000 });
    writeFileSync(file, JSON.stringify(outbox));
    writeFileSync(path.join(work, 'b.ts'), 'b\n');
    const healthy = await run(['--cwd', work, '--message', 'new words']);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).toEqual(['Checkpoint: old words', 'Checkpoint: new words']);
    // Before: "1 write(s) still queued.", counted before the drain that sent it.
    expect(healthy.output).toMatch(/checkpoint written on demo-1: Checkpoint: new words.* Sent 1 queued write\(s\)\./);
    expect(healthy.output).not.toMatch(/still queued/);
  });
});

describe('the retry policy (issue 18)', () => {
  function outboxState() {
    return JSON.parse(readFileSync(path.join(work, '.git', 'beads-recovery', 'outbox.json'), 'utf8')) as {
      pending: { write: { text: string }; attempts: number }[];
      failed: unknown[];
    };
  }

  async function retry(args: string[]) {
    const lines: string[] = [];
    const code = await retryCommand(['--cwd', work, ...args], { out: (line) => lines.push(line), env });
    return { code, output: lines.join('\n') };
  }

  // Seed 70934 of the randomized fault test, made deterministic: many checkpoint runs close
  // together while every write exits 1. Each run used to reset every queued write's next attempt
  // (sendNow), the attempts added up in outbox.json, and the 8th parked the first write as
  // "gave-up", where nothing on the command line ever sent or mentioned it again: reported
  // "queued", silently dropped.
  it('keeps every write of many quick runs queued while the CLI fails with exit 1, spaces their attempts, and lands them all once', async () => {
    env.BEADS_RECOVERY_TIMEOUT_MS = '1000';
    writeFileSync(path.join(scratch, 'fault'), 'exit:1 write\n');
    const messages = Array.from({ length: 9 }, (_unused, index) => `step ${index}`);
    const started = Date.now();
    for (const message of messages) {
      const result = await run(['--cwd', work, '--message', message]);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/queued/);
    }
    const queued = outboxState();
    expect(queued.failed).toEqual([]);
    expect(queued.pending.map((entry) => entry.write.text.split('\n')[0])).toEqual(messages.map((message) => `Checkpoint: ${message}`));
    // Spaced in time (2 s, 4 s, 8 s … apart: DEFAULT_BACKOFF), not once a run: n attempts need
    // 2·(2^(n-1) − 1) s between the first and the last.
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(queued.pending[0]?.attempts).toBeLessThanOrEqual(1 + Math.floor(Math.log2(elapsedSeconds / 2 + 1)));
    expect(queued.pending[0]?.attempts).toBeLessThan(messages.length);

    rmSync(path.join(scratch, 'fault'));
    // The short timeout bounded the failing runs; the healthy CLI is sent to with the usual one (on
    // a loaded machine a stand-in br takes more than a second, and 4 of 9 stayed queued).
    delete env.BEADS_RECOVERY_TIMEOUT_MS;
    const sent = await retry([]);
    expect(sent.output).toMatch(/9 of 9 queued write\(s\) landed/);
    expect(sent.code).toBe(0);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).toEqual(messages.map((message) => `Checkpoint: ${message}`));
  }, 60_000);

  it('keeps typed words when every read fails: the checkpoint is worked out from .beads and queued', async () => {
    env.BEADS_RECOVERY_TIMEOUT_MS = '800';
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'hang\n');
    const hung = await run(['--cwd', work, '--message', 'kept though beads hangs']);
    expect(hung.code, hung.output).toBe(0);
    expect(hung.output).toMatch(/checkpoint for demo-1 queued .*Checkpoint: kept though beads hangs/);
    expect(hung.output).toMatch(/could not list the issues in progress/);
    writeFileSync(path.join(scratch, 'fault'), 'locked\n');
    const locked = await run(['--cwd', work, '--message', 'kept though beads is locked']);
    expect(locked.code, locked.output).toBe(0);
    expect(locked.output).toMatch(/queued/);
    expect(outboxState().pending.map((entry) => entry.write.text.split('\n')[0])).toEqual(['Checkpoint: kept though beads hangs', 'Checkpoint: kept though beads is locked']);

    rmSync(path.join(scratch, 'fault'));
    // As above: the healthy CLI gets the usual timeout, not the one that bounded the hang.
    delete env.BEADS_RECOVERY_TIMEOUT_MS;
    const sent = await retry([]);
    expect(sent.code, sent.output).toBe(0);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).toEqual(['Checkpoint: kept though beads hangs', 'Checkpoint: kept though beads is locked']);
  }, 30_000);

  it('lands typed words retried after they landed once, though the first copy moved the window', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    expect((await run(['--cwd', work, '--message', 'parser done'])).output).toMatch(/checkpoint written/);
    writeFileSync(path.join(work, 'b.ts'), 'b\n');
    const again = await run(['--cwd', work, '--message', 'parser done']);
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/checkpoint written on demo-1/);
    expect(comments('demo-1')).toEqual(['Checkpoint: parser done\n- Files: a.ts']);
    // Other words are a new checkpoint.
    await run(['--cwd', work, '--message', 'lexer done']);
    expect(comments('demo-1')).toHaveLength(2);
  });

  it('says on every run that a refused write is parked, and `retry --parked` sends it again', async () => {
    writeFileSync(path.join(scratch, 'fault'), 'exit:4 write\n');
    expect((await run(['--cwd', work, '--issue', 'demo-1', '--message', 'refused once'])).code).toBe(1);
    rmSync(path.join(scratch, 'fault'));
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    const next = await run(['--cwd', work, '--auto']);
    expect(next.output).toMatch(/1 write\(s\) were refused by beads and wait for you .*retry --parked/);
    const plain = await retry([]);
    expect(plain.output).toMatch(/1 write\(s\) were refused by beads/);
    const warnings: string[] = [];
    await recoveryContextFor(work, { env, warn: (line) => warnings.push(line) });
    expect(warnings).toContainEqual(expect.stringMatching(/1 write\(s\) were refused by beads/));
    const parked = await retry(['--parked']);
    expect(parked.output).toMatch(/1 refused write\(s\) put back/);
    expect(parked.code).toBe(0);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).toContain('Checkpoint: refused once');
    expect(outboxState().failed).toEqual([]);
  });

  it('`retry --parked` while beads still refuses counts nothing as landed and exits 1; `retry` exits 1 while a refused write waits', async () => {
    writeFileSync(path.join(scratch, 'fault'), 'exit:4 write\n');
    expect((await run(['--cwd', work, '--issue', 'demo-1', '--message', 'refused twice'])).code).toBe(1);
    const again = await retry(['--parked']);
    expect(again.output).toMatch(/1 refused write\(s\) put back/);
    expect(again.output).toMatch(/0 of 1 queued write\(s\) landed/);
    expect(again.output).toMatch(/1 write\(s\) were refused by beads/);
    expect(again.code).toBe(1);
    const plain = await retry([]);
    expect(plain.output).toMatch(/0 of 0 queued write\(s\) landed/);
    expect(plain.code).toBe(1);
    expect(comments('demo-1').map((text) => text.split('\n')[0])).not.toContain('Checkpoint: refused twice');
    rmSync(path.join(scratch, 'fault'));
    const landed = await retry(['--parked']);
    expect(landed.output).toMatch(/1 of 1 queued write\(s\) landed/);
    expect(landed.code).toBe(0);
  });
});

describe('a bd 1.3 workspace frozen for migration', () => {
  it('keeps the checkpoint queued through the freeze without spending attempts, never parks it, and lands it once after', async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'frozen'), dialect: 'bd', data: 'scenario', git: true }).dir;
    const bdEnv = { ...env, BEADS_RECOVERY_CLI: 'bd', BEADS_STANDIN_BD_VERSION: '1.3.1', BEADS_RECOVERY_TIMEOUT_MS: '2000' };
    const runIn = async (args: string[]) => {
      const lines: string[] = [];
      const code = await checkpointCommand(['--cwd', dir, ...args], { out: (line) => lines.push(line), env: bdEnv, readHook: async () => undefined });
      return { code, output: lines.join('\n') };
    };
    writeFileSync(path.join(dir, 'MIGRATION-FREEZE'), '');
    for (const attempt of [1, 2, 3]) {
      const frozen = await runIn(['--message', 'written after the thaw']);
      expect(frozen.code, `run ${attempt}: ${frozen.output}`).toBe(0);
      expect(frozen.output).toMatch(/queued .*frozen for migration/);
    }
    const outbox = JSON.parse(readFileSync(path.join(dir, '.git', 'beads-recovery', 'outbox.json'), 'utf8'));
    expect(outbox.failed).toEqual([]);
    expect(outbox.pending).toHaveLength(1);
    // Waited out at a steady pace: no attempt counted, the next one a minute away.
    expect(outbox.pending[0].attempts).toBe(0);
    expect(outbox.pending[0].nextAttemptAt).toBeGreaterThan(Date.now() + 30_000);

    rmSync(path.join(dir, 'MIGRATION-FREEZE'));
    const lines: string[] = [];
    expect(await retryCommand(['--cwd', dir], { out: (line) => lines.push(line), env: bdEnv })).toBe(0);
    const issues = readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; comments?: { text: string }[] });
    const landed = issues.flatMap((issue) => issue.comments ?? []).filter((comment) => comment.text.startsWith('Checkpoint: written after the thaw'));
    expect(landed).toHaveLength(1);
  }, 60_000);
});

describe('an unwritable ledger folder (issue 18, item 4)', () => {
  it('writes the checkpoint straight to beads, at once, and says why there is no queue', async () => {
    // A file where the folder should be: nothing can be created in it (as a folder without write permission, even for root).
    writeFileSync(path.join(work, '.git', 'beads-recovery'), 'not a folder\n');
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    const started = Date.now();
    const result = await run(['--cwd', work, '--auto', '--pre-compact']);
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/checkpoint written on demo-1 directly \(.*beads-recovery cannot be written/);
    // At once, not after the 15 s it once spent retrying a ledger it could not write.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(comments('demo-1')).toEqual([expect.stringMatching(/^Auto-checkpoint \(pre-compaction\): .*\n- Files: a\.ts/)]);
    const typed = await run(['--cwd', work, '--message', 'typed words too']);
    expect(typed.code).toBe(0);
    expect(comments('demo-1')).toHaveLength(2);
  });
});

describe('a damaged outbox', () => {
  beforeEach(() => ensureCliBuilt());

  it('is recovered by the command line: the readable write is sent, the damage goes to stderr and a copy is kept', async () => {
    writeFileSync(path.join(work, 'a.ts'), 'a\n');
    writeFileSync(path.join(scratch, 'fault'), 'locked write\n');
    expect((await run(['--cwd', work, '--message', 'survives damage'])).output).toMatch(/queued/);
    rmSync(path.join(scratch, 'fault'));
    const outboxFile = path.join(work, '.git', 'beads-recovery', 'outbox.json');
    const text = readFileSync(outboxFile, 'utf8');
    // Garbage appended after the entry, as a torn write might leave it.
    await untilQueuedWritesAreDue();
    writeFileSync(outboxFile, `${text.trimEnd().slice(0, -3)}]}, {"write": \u0000 torn`);
    const result = spawnSync(process.execPath, [CLI_SCRIPT, 'checkpoint', '--cwd', work, '--auto'], { cwd: work, env, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/queue of beads writes .* was damaged: it is not valid JSON.*kept as .*outbox\.json\.damaged-/);
    expect(comments('demo-1')).toEqual(['Checkpoint: survives damage\n- Files: a.ts']);
  }, 60_000);
});

describe('the window of a checkpoint', () => {
  it("starts at the issue's claim: a commit made before it is another issue's work", async () => {
    const beforeClaim = new Date(Date.now() - 2 * 3_600_000).toISOString();
    gitEnv = { ...process.env, GIT_AUTHOR_DATE: beforeClaim, GIT_COMMITTER_DATE: beforeClaim };
    writeFileSync(path.join(work, 'previous.ts'), 'p\n');
    git('add', 'previous.ts');
    git('commit', '-qm', 'feat: the previous issue');
    gitEnv = process.env;
    writeFileSync(path.join(work, 'mine.ts'), 'm\n');
    await run(['--cwd', work, '--auto']);
    expect(comments('demo-1')).toEqual([expect.stringMatching(/^Auto-checkpoint \(agent hook\): 1 file, 0 commits in 1 h\n- Files: mine\.ts$/)]);
  });

  it('reads a checkpoint comment stamped ahead of the clock as skew: later work is not "nothing new"', async () => {
    const claimed = new Date(Date.now() - 3_600_000).toISOString();
    const ahead = new Date(Date.now() + 2 * 3_600_000).toISOString();
    writeIssues([issueLine('demo-1', 'in_progress', claimed, [{ text: 'Checkpoint: from a fast clock', created_at: ahead }])]);
    writeFileSync(path.join(work, 'later.ts'), 'l\n');
    const result = await run(['--cwd', work, '--auto']);
    expect(result.output).toMatch(/checkpoint written on demo-1/);
    expect(comments('demo-1')[1]).toMatch(/- Files: later\.ts/);
  });
});

describe('the built command line as a PreCompact hook', () => {
  beforeEach(() => ensureCliBuilt());

  it('three hooks at once write one checkpoint', async () => {
    writeFileSync(path.join(work, 'together.ts'), 'x\n');
    const runs = [0, 1, 2].map(
      () =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [CLI_SCRIPT, 'checkpoint', '--auto', '--pre-compact'], { cwd: work, env, stdio: ['pipe', 'ignore', 'ignore'] });
          child.stdin.end(JSON.stringify({ session_id: 's', hook_event_name: 'PreCompact', trigger: 'auto', cwd: work }));
          child.on('exit', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0]);
    expect(comments('demo-1')).toEqual([expect.stringMatching(/^Auto-checkpoint \(pre-compaction\): 1 file/)]);
  }, 60_000);

  it('reads the hook JSON from stdin and writes the checkpoint', () => {
    const cli = CLI_SCRIPT;
    writeFileSync(path.join(work, 'hooked.ts'), 'x\n');
    const result = spawnSync(process.execPath, [cli, 'checkpoint', '--auto', '--pre-compact'], {
      cwd: tmpdir(),
      input: JSON.stringify({ session_id: 's', hook_event_name: 'PreCompact', trigger: 'auto', cwd: work, custom_instructions: '' }),
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stdout).toMatch(/checkpoint written on demo-1/);
    expect(result.status).toBe(0);
    expect(comments('demo-1')[0]).toMatch(/^Auto-checkpoint \(pre-compaction\): 1 file, 0 commits/);
  }, 60_000);
});
