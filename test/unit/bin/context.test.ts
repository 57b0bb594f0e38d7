// `beads-recovery context` as a process runs it (recoveryContextFor): processes and dependent steps
// counted from the stand-in's call log, on a first run and when the CLI cannot answer.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { recoveryContextFor } from '../../../src/bin/context';
import { makeWorkspace, SCENARIO, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';

// Every atomic state write (io/atomicWrite.ts: a temporary file, fsynced, renamed), by file: what a start writes.
const atomicWrites = vi.hoisted(() => [] as string[]);
vi.mock('../../../src/io/atomicWrite', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/io/atomicWrite')>();
  return {
    writeFileAtomic: (file: string, text: string) => {
      atomicWrites.push(file);
      return original.writeFileAtomic(file, text);
    },
  };
});

/** The stand-in's call log (BEADS_STANDIN_LOG): one JSON line per process. */
function readCalls(log: string): { args: string[] }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { args: string[] });
}

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-context-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The CLI processes inherit this process's environment, as they do under `beads-recovery context`.
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

function workspace(name: string, fault?: string): { dir: string; log: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(scratch, name);
  makeWorkspace({ dir, dialect: 'br', data: 'scenario', git: true });
  const log = path.join(scratch, `${name}.log`);
  const env = { PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', BEADS_STANDIN_LOG: log, ...(fault ? { BEADS_STANDIN_FAULT: fault } : {}) };
  Object.assign(process.env, env);
  return { dir, log, env: process.env };
}

describe('recoveryContextFor', () => {
  // A sibling under the same epic closed by the CLI itself (issue 26): the next agent must not redo it.
  it.each(['br', 'bd'] as const)('marks a sibling closed under the same epic as done (%s)', async (dialect) => {
    const dir = path.join(scratch, `closed-sibling-${dialect}`);
    makeWorkspace({ dir, dialect, data: 'scenario', git: true });
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: dialect };
    const before = await recoveryContextFor(dir, { env, budget: 8192 });
    expect(before.markdown).not.toMatch(/demo-8\b.*\(sibling, closed\)/);
    execFileSync(path.join(STANDIN_BIN_DIR, dialect), ['close', 'demo-8', '--reason', 'Flag added and tested'], { cwd: dir, env, stdio: 'pipe' });
    const after = await recoveryContextFor(dir, { env, budget: 8192 });
    expect(after.markdown).toContain(`## Resuming: ${SCENARIO.inProgress} — `);
    const done = after.markdown.split('### Done Already (closed: do not redo)\n')[1]?.split('\n\n')[0] ?? '';
    expect(done).toMatch(/^- .*demo-8\b.*Add --config flag to the CLI.* \(sibling, closed\)$/m);
    // The open siblings are not said to be done.
    expect(done).not.toMatch(/demo-9\b|demo-2\b/);
  });

  it('on a first run: no `where`, the focus issues.jsonl names shown alongside the list — two processes, one step', async () => {
    const { dir, log, env } = workspace('first');
    const result = await recoveryContextFor(dir, { env });
    expect(result.markdown).toContain(`## Resuming: ${SCENARIO.inProgress} — `);
    const calls = readCalls(log);
    // No ready list: the focus was expected, so its show (with the dependents the file names) started with the list.
    expect(calls.map((call) => call.args[0]).sort()).toEqual(['list', 'show']);
    expect(calls.find((call) => call.args[0] === 'show')?.args).toEqual(expect.arrayContaining([SCENARIO.inProgress, SCENARIO.unblockedByClose, SCENARIO.stillBlockedAfterClose]));
  });

  it('reads the project read-only from issues.jsonl, saying why, when the CLI it took by name cannot answer', async () => {
    const { dir, log, env } = workspace('failing', 'exit:2');
    const warnings: string[] = [];
    const result = await recoveryContextFor(dir, { env, warn: (line) => warnings.push(line) });
    expect(result.markdown).toContain(`## Resuming: ${SCENARIO.inProgress} — `);
    expect(result.markdown).not.toContain('unavailable');
    expect(warnings.join('\n')).toMatch(/stand-in fault \(exit 2\).* Showing .*issues\.jsonl read-only\./s);
    // The CLI was tried (and failed) before the file was read.
    expect(readCalls(log).map((call) => call.args[0])).toContain('list');
  });

  // The context always shows `git status`, its one git process: the repository (its git folder and
  // work tree) is read from the files where they say it plainly (src/git/repo.ts), with no
  // `git rev-parse` before or beside it. A git on PATH that logs its commands tells.
  it.skipIf(process.platform === 'win32')('runs `git status` and no `git rev-parse` where the files name the repository', async () => {
    const { dir, env } = workspace('git-beside');
    const bin = path.join(scratch, 'git-beside-bin');
    mkdirSync(bin);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const seen = path.join(scratch, 'git-beside-seen');
    writeFileSync(
      path.join(bin, 'git'),
      `#!${process.execPath}
const { appendFileSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(seen)}, (args.find((arg) => arg === 'status' || arg === 'rev-parse') ?? 'other') + '\\n');
process.exit(spawnSync(${JSON.stringify(realGit)}, args, { stdio: 'inherit' }).status ?? 1);
`,
    );
    chmodSync(path.join(bin, 'git'), 0o755);
    env.PATH = `${bin}${path.delimiter}${env.PATH ?? ''}`;
    const result = await recoveryContextFor(dir, { env });
    expect(readFileSync(seen, 'utf8').split('\n').filter(Boolean)).toEqual(['status']);
    // And what it found is the context's, as before: the ledger's folder was found without git.
    expect(result.markdown).toContain(`## Resuming: ${SCENARIO.inProgress} — `);
  });

  // br keeps issues.jsonl current after every write, and the context then reads it instead of
  // starting br: the block must not tell which of the two answered.
  it('gives the same context from br’s current issues.jsonl as from br itself', async () => {
    const { dir, log, env } = workspace('same-either-way');
    const fromCli = await recoveryContextFor(dir, { env });
    expect(readCalls(log).length).toBeGreaterThan(0);
    const beadsDir = path.join(dir, '.beads');
    const exported = statSync(path.join(beadsDir, 'issues.jsonl')).mtime;
    writeFileSync(path.join(beadsDir, 'beads.db'), '');
    utimesSync(path.join(beadsDir, 'beads.db'), exported, new Date(exported.getTime() - 1000));
    const calls = readCalls(log).length;
    const fromFile = await recoveryContextFor(dir, { env });
    expect(readCalls(log).length).toBe(calls);
    expect(fromFile.markdown).toBe(fromCli.markdown);
  });

  // Issue 28: a session's start writes the sessions file once, with what its transcript showed and
  // the issue it was handed together (one lock, one fsync), and the next start sees both.
  it('a new session’s start writes the sessions file once: the session and the issue it was handed', async () => {
    const { dir, env } = workspace('one-session-write');
    const session = { agent: 'claude' as const, sessionId: 'new-session' };
    atomicWrites.length = 0;
    const result = await recoveryContextFor(dir, { env, session });
    expect(result.choice?.issueId).toBe(SCENARIO.inProgress);
    const sessionWrites = atomicWrites.filter((file) => path.basename(file) === 'sessions.json');
    expect(sessionWrites).toHaveLength(1);
    const state = JSON.parse(readFileSync(sessionWrites[0] as string, 'utf8')) as { sessions: Record<string, { sessionId: string; bindings?: { issueId: string }[] }> };
    const record = Object.values(state.sessions).find((entry) => entry.sessionId === 'new-session');
    expect(JSON.stringify(record)).toContain(SCENARIO.inProgress);
    // The same session again: the binding written is what chose, and again one write at most.
    atomicWrites.length = 0;
    const again = await recoveryContextFor(dir, { env, session });
    expect(again.choice).toMatchObject({ issueId: SCENARIO.inProgress, rule: 'binding' });
    expect(atomicWrites.filter((file) => path.basename(file) === 'sessions.json').length).toBeLessThanOrEqual(1);
  });
});
