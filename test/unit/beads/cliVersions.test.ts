import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BeadsBackend } from '../../../src/beads/backend';
import { createCliBackend, DIALECT_ARGS } from '../../../src/beads/cliBackend';
import { detectProject } from '../../../src/beads/detect';
import { CliError } from '../../../src/beads/errors';
import { createJsonlBackend, readyStatusGroup } from '../../../src/beads/jsonlBackend';
import { checkpointCommand } from '../../../src/bin/checkpoint';
import type { Dialect } from '../../../src/core/model';
import { closeWithFiles, writeNowOrQueue } from '../../../src/services/closeFlow';
import { Outbox } from '../../../src/services/outbox';
import { parseCliVersion } from '../../../src/core/parse';
import { produceRecoveryContext } from '../../../src/services/recovery';
import { makeWorkspace, SCENARIO } from '../../fixtures/make-workspace.mjs';

// Every bd and br people run (docs/BEADS_CONTRACT.md §8), through the stand-ins' version switches: bd 1.0.4
// (no show --include-* flags), bd 1.0.5+, bd 1.2 (failed[] error JSON), br with errors on stderr
// (0.2.15) and on stdout (later). Each must read issues in full and say no the way the CLI does.
const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'beads-cli-versions-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const at = (hour: number) => `2026-02-01T${String(hour).padStart(2, '0')}:00:00Z`;
const issue = (id: string, fields: Record<string, unknown> = {}) => ({ id, title: `Title of ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: at(1), updated_at: at(1), ...fields });
const link = (from: string, to: string, type: string) => ({ issue_id: from, depends_on_id: to, type, created_at: at(1) });

/**
 * v-work is in progress with a comment and a child; v-blocked waits for it; v-epic has an open
 * child; v-theirs belongs to someone else; `-v-dash` is an id that looks like a flag; v-hooked is
 * bd's other in-progress status; v-wisp-1 is an ephemeral wisp, in progress.
 */
const STORE = [
  issue('v-epic', { issue_type: 'epic', priority: 1 }),
  issue('v-work', { status: 'in_progress', updated_at: at(5), assignee: 'standin-tester', comments: [{ id: 1, issue_id: 'v-work', author: 'me', text: 'checkpoint one', created_at: at(4) }] }),
  issue('v-child', { dependencies: [link('v-child', 'v-epic', 'parent-child')] }),
  issue('v-blocked', { dependencies: [link('v-blocked', 'v-work', 'blocks')] }),
  issue('v-theirs', { assignee: 'someone-else' }),
  issue('-v-dash', { priority: 3 }),
  issue('v-hooked', { status: 'hooked', updated_at: at(3) }),
  issue('v-wisp-1', { status: 'in_progress', ephemeral: true, updated_at: at(6) }),
];

interface Version {
  name: string;
  dialect: Dialect;
  env: Record<string, string>;
}

const VERSIONS: Version[] = [
  { name: 'bd 1.0.4', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.0.4' } },
  { name: 'bd 1.0.5', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.0.5' } },
  { name: 'bd 1.2', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.2' } },
  { name: 'br 0.2.15 (errors on stderr)', dialect: 'br', env: {} },
  { name: 'br main (errors on stdout)', dialect: 'br', env: { BEADS_STANDIN_BR_ERROR_STREAM: 'stdout' } },
  { name: 'bd 1.3.0', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.3.0' } },
  { name: 'bd 1.3.1', dialect: 'bd', env: { BEADS_STANDIN_BD_VERSION: '1.3.1' } },
  { name: 'br 0.5.7', dialect: 'br', env: { BEADS_STANDIN_BR_VERSION: '0.5.7' } },
  { name: 'br main after 0.5.7 (overwrite guard)', dialect: 'br', env: { BEADS_STANDIN_BR_VERSION: 'main' } },
];

function workspace(version: Version): { backend: BeadsBackend; calls: () => string[][] } {
  const root = join(base, `${version.dialect}-${++counter}`);
  mkdirSync(join(root, '.beads'), { recursive: true });
  writeFileSync(join(root, '.beads', 'issues.jsonl'), STORE.map((line) => JSON.stringify(line)).join('\n') + '\n');
  const log = join(root, 'calls.log');
  const env = { BEADS_STANDIN_LOG: log, USER: 'standin-tester', BEADS_ACTOR: 'standin-tester', BD_ACTOR: 'standin-tester', ...version.env };
  const backend = createCliBackend({ dialect: version.dialect, command: join(BIN, version.dialect), root, timeoutMs: 10_000, env });
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { args: string[] }).args) : []);
  return { backend, calls };
}

async function refusal(action: Promise<unknown>): Promise<CliError> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CliError);
  expect((error as CliError).kind).toBe('refused');
  return error as CliError;
}

describe.each(VERSIONS)('$name', (version) => {
  it('reads an issue in full: comments, dependencies and dependents', async () => {
    const { backend } = workspace(version);
    const [work] = await backend.show(['v-work']);
    expect(work?.comments.map((comment) => comment.text)).toEqual(['checkpoint one']);
    expect(work?.dependents.map((dependent) => [dependent.id, dependent.dependencyType])).toEqual([['v-blocked', 'blocks']]);
    const [child] = await backend.show(['v-child']);
    expect(child?.dependencies.map((dependency) => [dependency.id, dependency.dependencyType])).toEqual([['v-epic', 'parent-child']]);
  });

  it('counts in_progress and hooked issues as work in progress, wisps not', async () => {
    const { backend } = workspace(version);
    const ids = (await backend.listInProgress()).map((found) => found.id);
    // br has no `hooked` status of its own, but a store that has one is listed the same way.
    expect(ids).toEqual(['v-work', 'v-hooked']);
  });

  it('claims, comments on and closes an issue whose id starts with a dash', async () => {
    const { backend } = workspace(version);
    await backend.claim('-v-dash');
    await backend.addComment('-v-dash', 'Checkpoint: -n 5 --force');
    const [claimed] = await backend.show(['-v-dash']);
    expect(claimed).toMatchObject({ id: '-v-dash', status: 'in_progress' });
    expect(claimed?.comments.map((comment) => comment.text)).toEqual(['Checkpoint: -n 5 --force']);
    await backend.close('-v-dash', 'Done');
    expect((await backend.show(['-v-dash']))[0]?.status).toBe('closed');
  });

  it("refuses to close a blocked issue with the CLI's reason, and leaves it open", async () => {
    const { backend } = workspace(version);
    const error = await refusal(backend.close('v-blocked', 'Done'));
    expect(error.cliMessage).toMatch(version.dialect === 'bd' ? /cannot close v-blocked: blocked by open issues \[v-work\]/ : /blocked by: v-work/);
    expect(error.message).toContain(`'${version.dialect} close -- v-blocked' was refused`);
    expect((await backend.show(['v-blocked']))[0]?.status).toBe('open');
  });

  it("refuses to close an epic with an open child with the CLI's reason", async () => {
    const { backend } = workspace(version);
    const error = await refusal(backend.close('v-epic', 'Done'));
    expect(error.cliMessage).toMatch(version.dialect === 'bd' ? /cannot close epic v-epic: 1 open child issue/ : /epic has 1\/1 open children/);
    expect((await backend.show(['v-epic']))[0]?.status).toBe('open');
  });

  it('closes the same epic when asked to force it', async () => {
    const { backend, calls } = workspace(version);
    await backend.close('v-epic', 'Done anyway', undefined, { force: true });
    expect(calls().at(-1)).toContain('--force');
    expect((await backend.show(['v-epic']))[0]?.status).toBe('closed');
  });

  it("refuses to claim someone else's issue with the CLI's reason", async () => {
    const { backend } = workspace(version);
    const error = await refusal(backend.claim('v-theirs'));
    expect(error.cliMessage).toMatch(/already (claimed by|assigned to) someone-else/);
    expect((await backend.show(['v-theirs']))[0]).toMatchObject({ status: 'open', assignee: 'someone-else' });
  });

  it('treats closing an issue that is already closed as nothing to do, not a refusal', async () => {
    const { backend } = workspace(version);
    await backend.close('v-child', 'Done');
    const again = await backend.close('v-child', 'Done').then(
      () => undefined,
      (caught: unknown) => caught as CliError,
    );
    expect(again?.kind).not.toBe('refused');
  });
});

describe('the CLI version, for the view header', () => {
  it.each([
    [VERSIONS[0], '1.0.4'],
    [VERSIONS[2], '1.2'],
    [VERSIONS[3], '0.2.15'],
  ] as const)('$0.name says $1, asked once (one process) however often it is read', async (version, expected) => {
    const { backend, calls } = workspace(version as Version);
    expect(await Promise.all([backend.version?.(), backend.version?.()])).toEqual([expected, expected]);
    expect(await backend.version?.()).toBe(expected);
    expect(calls()).toEqual([['version', '--json']]);
  });

  it('reads bd\'s envelope, and says nothing for output that is no version', () => {
    expect(parseCliVersion({ build: 'dev', schema_version: 1, version: '1.0.5' })).toBe('1.0.5');
    expect(parseCliVersion({ schema_version: 1, data: { build: 'dev', version: '1.2.2' } })).toBe('1.2.2');
    expect(parseCliVersion({ version: '0.2.15', build: 'x', rust_version: '1.88.0', target: 't', features: [] })).toBe('0.2.15');
    expect(parseCliVersion({ version: '<script>' })).toBeUndefined();
    expect(parseCliVersion({ version: 2 })).toBeUndefined();
    expect(parseCliVersion(['1.0'])).toBeUndefined();
  });

  it('is unknown, not an error, when the CLI cannot say', async () => {
    const failing = createCliBackend({ dialect: 'br', command: join(BIN, 'no-such-cli'), root: base, timeoutMs: 10_000 });
    expect(await failing.version?.()).toBeUndefined();
  });
});

describe('bd version probing', () => {
  it('asks bd 1.0.4 once with the --include flags, then never again', async () => {
    const { backend, calls } = workspace(VERSIONS[0] as Version);
    await backend.show(['v-work']);
    await backend.show(['v-epic']);
    expect(calls()).toEqual([
      ['show', '--json', '--include-comments', '--include-dependents', '--', 'v-work'],
      ['show', '--json', '--', 'v-work'],
      ['show', '--json', '--', 'v-epic'],
    ]);
  });

  it('asks bd 1.3 for the smaller payloads when bd 1.3 last used the store: show --brief-deps, list and ready --brief', async () => {
    const root = join(base, `brief-${++counter}`);
    mkdirSync(join(root, '.beads'), { recursive: true });
    writeFileSync(join(root, '.beads', 'issues.jsonl'), STORE.map((line) => JSON.stringify(line)).join('\n') + '\n');
    writeFileSync(join(root, '.beads', '.local_version'), '1.3.0\n');
    const log = join(root, 'calls.log');
    const args = () => readFileSync(log, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { args: string[] }).args);
    const detect = (version: string, skipWhere = false) =>
      detectProject(root, { trusted: true, timeoutMs: 10_000, pathEnv: BIN, preferred: 'bd', skipWhere, env: { BEADS_STANDIN_LOG: log, BEADS_STANDIN_BD_VERSION: version } });

    const on13 = await detect('1.3.0');
    if (on13.kind !== 'cli') throw new Error('expected bd');
    const [work] = await on13.backend.show(['v-blocked']);
    expect(work?.dependencies.map((dependency) => [dependency.id, dependency.title, dependency.dependencyType])).toEqual([['v-work', 'Title of v-work', 'blocks']]);
    expect((await on13.backend.listInProgress()).map((found) => found.id)).toEqual(['v-work', 'v-hooked']);
    expect((await on13.backend.listReady()).length).toBeGreaterThan(0);
    expect(args().slice(1)).toEqual([
      ['show', '--json', '--include-comments', '--include-dependents', '--brief-deps', '--', 'v-blocked'],
      [...DIALECT_ARGS.bd.inProgress, '--brief'],
      [...DIALECT_ARGS.bd.ready, '--brief'],
    ]);

    // Another bd on PATH than the one that last used the store (a one-shot context asks no `where`,
    // which would have recorded it): asked once, given up, one process more.
    rmSync(log);
    const older = await detect('1.0.5', true);
    if (older.kind !== 'cli') throw new Error('expected bd');
    await older.backend.show(['v-work']);
    await older.backend.listReady();
    expect(args()).toEqual([
      ['show', '--json', '--include-comments', '--include-dependents', '--brief-deps', '--', 'v-work'],
      ['show', '--json', '--include-comments', '--include-dependents', '--', 'v-work'],
      DIALECT_ARGS.bd.ready,
    ]);
  });

  it('keeps the flags on bd 1.0.5: one process per show', async () => {
    const { backend, calls } = workspace(VERSIONS[1] as Version);
    await backend.show(['v-work']);
    expect(calls()).toEqual([['show', '--json', '--include-comments', '--include-dependents', '--', 'v-work']]);
  });
});

/**
 * The whole path on every version: detection, the recovery context from the scenario workspace
 * (test/fixtures/make-workspace.mjs), then Claim, Close and a Checkpoint through the same services
 * the extension and the command line use.
 */
describe.each(VERSIONS)('$name: recovery context, claim, close and checkpoint', (version) => {
  it('gives the full recovery context, and claim, close and checkpoint land', async () => {
    const dir = join(base, `scenario-${version.dialect}-${++counter}`);
    makeWorkspace({ dir, dialect: version.dialect, data: 'scenario', git: true });
    const env = { ...version.env, BEADS_ACTOR: 'demo-agent', BD_ACTOR: 'demo-agent' };
    const detection = await detectProject(dir, { trusted: true, timeoutMs: 10_000, pathEnv: BIN, preferred: version.dialect, env });
    if (detection.kind !== 'cli') throw new Error(`expected the ${version.dialect} stand-in, got ${detection.kind}`);
    const { backend } = detection;

    const { markdown } = await produceRecoveryContext({ backend, workingFolder: dir, cli: version.dialect, budget: 64_000, now: Date.now(), timeoutMs: 10_000 });
    expect(markdown).not.toMatch(/unavailable|failed \(exit/);
    expect(markdown).toContain(`## Resuming: ${SCENARIO.inProgress}`);
    for (const blocker of SCENARIO.openBlockers) expect(markdown).toContain(blocker);
    expect(markdown).toContain(SCENARIO.unblockedByClose);
    expect(markdown).toContain(SCENARIO.commitComment);

    const outbox = new Outbox({ file: join(dir, '.git', 'beads-recovery', 'outbox.json'), root: backend.root, backend });
    try {
      const [issueId] = SCENARIO.readyWithParent;
      expect(await writeNowOrQueue(backend, outbox, { key: `claim:${issueId}`, kind: 'claim', issueId: issueId as string })).toEqual({ state: 'written' });
      expect((await backend.listInProgress()).map((issue) => issue.id)).toContain(issueId);

      const checkpoint = await checkpointCommand(['--cwd', dir, '--issue', issueId as string, '--message', 'halfway there'], {
        out: () => undefined,
        readHook: async () => undefined,
        env: { ...process.env, ...env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: version.dialect, BEADS_RECOVERY_TIMEOUT_MS: '10000' },
      });
      expect(checkpoint).toBe(0);

      const closed = await closeWithFiles({ backend, queue: outbox, issueId: issueId as string, reason: 'Verified', cli: version.dialect, ledgerFiles: ['src/flag.ts'], flushTimeoutMs: 5_000, now: Date.now() });
      expect(closed.state).toBe('closed');
      const [after] = await backend.show([issueId as string]);
      expect(after?.status).toBe('closed');
      expect(after?.comments.map((comment) => comment.text.split('\n')[0])).toEqual(['Checkpoint: halfway there', 'Files modified: src/flag.ts']);
      expect(outbox.pendingCount + outbox.failedCount).toBe(0);
    } finally {
      outbox.dispose();
    }
  });
});

describe("br's ready status group (.beads/policy.yaml, C11)", () => {
  const version = VERSIONS[3] as Version;
  const policy = (root: string, text: string) => writeFileSync(join(root, '.beads', 'policy.yaml'), text);

  it('the read-only reader follows workflow.status_groups.ready as br ready does', async () => {
    const { backend } = workspace(version);
    const root = backend.root;
    const lines = [...STORE, issue('v-rework', { status: 'rework', priority: 1 }), issue('v-review', { status: 'Review', priority: 1 })];
    writeFileSync(join(root, '.beads', 'issues.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const reader = createJsonlBackend({ root, dialect: 'br', now: () => Date.parse('2026-06-01T00:00:00Z') });
    const ids = async (from: BeadsBackend) => (await from.listReady()).map((found) => found.id).sort();

    expect(await ids(reader)).not.toContain('v-rework');
    expect(await ids(reader)).toEqual(await ids(backend));

    policy(root, 'workflow:\n  status_groups:\n    ready: [open, " Rework "]\n');
    expect(await ids(reader)).toContain('v-rework');
    expect(await ids(reader)).not.toContain('v-review');
    expect(await ids(reader)).toEqual(await ids(backend));

    // An empty group, or no group, means br's default: open.
    policy(root, 'workflow:\n  status_groups: {}\n');
    expect(await readyStatusGroup(join(root, '.beads'))).toEqual(['open']);
    expect(await ids(reader)).toEqual(await ids(backend));
  });
});

describe('the outbox on bd 1.0.4', () => {
  it('checks a write that may have landed through the show bd 1.0.4 understands, then sends it once', async () => {
    const root = join(base, `outbox-bd104-${++counter}`);
    mkdirSync(join(root, '.beads'), { recursive: true });
    writeFileSync(join(root, '.beads', 'issues.jsonl'), STORE.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const log = join(root, 'calls.log');
    const faultFile = join(root, 'fault');
    writeFileSync(faultFile, 'hang write\n');
    const env = { BEADS_STANDIN_LOG: log, BEADS_STANDIN_FAULT_FILE: faultFile, BEADS_STANDIN_BD_VERSION: '1.0.4' };
    const backend = createCliBackend({ dialect: 'bd', command: join(BIN, 'bd'), root, timeoutMs: 1_000, env });
    const outbox = new Outbox({ file: join(root, 'outbox.json'), root, backend, policy: { baseMs: 50, maxMs: 100, unexplainedMaxMs: 100 } });
    try {
      await outbox.enqueue({ key: 'checkpoint:v-work:1', kind: 'comment', issueId: 'v-work', text: 'Checkpoint: after a hang' });
      // The first attempt hangs and is stopped at the timeout: it may have landed.
      await outbox.drain(AbortSignal.timeout(1_800));
      expect(outbox.pendingCount).toBe(1);
      rmSync(faultFile);
      await outbox.drain(AbortSignal.timeout(10_000));
      expect(outbox.pendingCount + outbox.failedCount).toBe(0);
      const [work] = await backend.show(['v-work']);
      expect(work?.comments.filter((comment) => comment.text === 'Checkpoint: after a hang')).toHaveLength(1);
      const shows = readFileSync(log, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { args: string[] }).args).filter((args) => args[0] === 'show');
      // The check before resending: refused with the flags once, then asked without them.
      expect(shows[0]).toContain('--include-comments');
      expect(shows[1]).toEqual(['show', '--json', '--', 'v-work']);
    } finally {
      outbox.dispose();
    }
  });
});
