// A start never waits on our own state: with the state folder `.git/beads-recovery` not writable,
// or the session store's lock held by another writer, the start hooks answer the context and say
// on stderr why the session's records were skipped; a checkpoint written straight to beads (no
// outbox can be kept) lands the same typed words once.
//
// "Not writable" needs a user the folder is closed to: as root (which ignores modes), the hooks
// run as uid 65534 in a project that user owns, beside a state folder root keeps. Elsewhere those
// cases are skipped; the held lock is set up by any user.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-unwritable-state-'));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeAll(() => ensureCliBuilt(), 120_000);

const OTHER_UID = 65534;
const asRoot = process.getuid?.() === 0;
// The other user runs our built command line and the stand-in br from this checkout, so it must be
// able to reach them: a checkout inside a folder closed to others (a fresh clone in `mktemp -d`)
// cannot be, and there these cases are skipped rather than failed for a reason that is not ours.
const reachableByOther =
  asRoot &&
  spawnSync(process.execPath, ['-e', 'for (const folder of process.argv.slice(1)) require("fs").accessSync(folder, require("fs").constants.X_OK)', path.dirname(CLI_SCRIPT), STANDIN_BIN_DIR], { uid: OTHER_UID, gid: OTHER_UID }).status === 0;

const STARTS = {
  claude: (dir: string) => ({ session_id: 'u1', transcript_path: path.join(dir, 'none.jsonl'), cwd: dir, hook_event_name: 'SessionStart', source: 'startup' }),
  codex: (dir: string) => ({ session_id: 'u2', transcript_path: null, cwd: dir, hook_event_name: 'SessionStart', source: 'startup', model: 'gpt-5.5' }),
  copilot: (dir: string) => ({ timestamp: '2026-11-28T10:00:00.000Z', cwd: dir, sessionId: 'u3', hookEventName: 'SessionStart', source: 'new' }),
};

let counter = 0;
/** A scenario project; `owner`: everything in it chowned to that uid, but the state folder, which stays root's (mode 755). */
function project(owner?: number): { dir: string; env: NodeJS.ProcessEnv } {
  const base = path.join(scratch, `case-${++counter}`);
  const { dir } = makeWorkspace({ dir: path.join(base, 'project'), dialect: 'br', data: 'scenario', git: true });
  const home = path.join(base, 'home');
  const temp = path.join(base, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(temp, { recursive: true });
  const state = path.join(dir, '.git', 'beads-recovery');
  mkdirSync(state, { recursive: true });
  if (owner !== undefined) {
    chmodSync(base, 0o755);
    chownTree(base, owner);
    chownSync(state, 0, 0);
    chmodSync(state, 0o755);
  }
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br', HOME: home, USERPROFILE: home, TMPDIR: temp, TMP: temp, TEMP: temp };
  return { dir, env };
}

function chownTree(folder: string, uid: number): void {
  chownSync(folder, uid, uid);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) chownTree(full, uid);
    else if (!entry.isSymbolicLink()) chownSync(full, uid, uid);
  }
}

function run(args: string[], where: { dir: string; env: NodeJS.ProcessEnv }, options: { input?: object; uid?: number; env?: NodeJS.ProcessEnv } = {}) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [CLI_SCRIPT, ...args], {
    cwd: where.dir,
    env: { ...where.env, ...options.env },
    input: options.input === undefined ? '' : JSON.stringify(options.input),
    encoding: 'utf8',
    timeout: 40_000,
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - started };
}

function contextOf(stdout: string): string {
  const output = JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string }; additionalContext?: string };
  return output.hookSpecificOutput?.additionalContext ?? output.additionalContext ?? '';
}

describe.skipIf(!reachableByOther)('the state folder is not writable (run as another user)', { timeout: 120_000 }, () => {
  for (const [agent, input] of Object.entries(STARTS)) {
    it(`hook ${agent} SessionStart answers the context and says why the session's records were skipped`, () => {
      const where = project(OTHER_UID);
      const result = run(['hook', agent, 'SessionStart'], where, { input: input(where.dir), uid: OTHER_UID });
      console.log(`hook ${agent} SessionStart with an unwritable state folder: ${result.ms} ms`);
      expect(result.status, result.stderr).toBe(0);
      expect(contextOf(result.stdout), result.stderr).toMatch(/## Resuming: /);
      expect(result.stderr).toMatch(/the agent sessions could not be read or written[^\n]*EACCES/);
    });
  }

  it('checkpoint --message written directly twice: the same words land once', () => {
    const where = project(OTHER_UID);
    const words = 'parser accepts nested keys; next: escapes';
    const first = run(['checkpoint', '--message', words], where, { uid: OTHER_UID });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toMatch(/directly/);
    const second = run(['checkpoint', '--message', words], where, { uid: OTHER_UID });
    expect(second.status, second.stderr).toBe(0);
    const issues = readFileSync(path.join(where.dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { comments?: { text: string }[] });
    const landed = issues.flatMap((issue) => issue.comments ?? []).filter((comment) => comment.text.includes(words));
    expect(landed.length, `${first.stdout}${first.stderr}\n${second.stdout}${second.stderr}`).toBe(1);
  });
});

describe('the session store\'s lock is held by another writer', { timeout: 120_000 }, () => {
  it('hook claude SessionStart waits a moment, not until the lock goes stale: the context comes within a short deadline', () => {
    const where = project();
    // A live writer's lock (io/fileLock.ts's folder, fresh): stale only after 10 s.
    mkdirSync(path.join(where.dir, '.git', 'beads-recovery', 'sessions.json.lock'));
    const result = run(['hook', 'claude', 'SessionStart'], where, { input: STARTS.claude(where.dir), env: { BEADS_RECOVERY_HOOK_DEADLINE_MS: '6000' } });
    console.log(`hook claude SessionStart with the session store locked: ${result.ms} ms`);
    expect(result.status, result.stderr).toBe(0);
    expect(contextOf(result.stdout), result.stderr).toMatch(/## Resuming: /);
    expect(result.stderr).toMatch(/the agent sessions could not be read or written[^\n]*is locked by another writer/);
  });
});
