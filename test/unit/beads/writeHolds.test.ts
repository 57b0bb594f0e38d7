// bd 1.3 holding writes back (refusal.ts writeHoldOf, the outbox policy's held rule): a workspace
// frozen for migration, or a shared database awaiting its operator's consent to migrate, queues a
// checkpoint at once, keeps it queued (never parked) for as long as the hold lasts, and lands it
// exactly once afterwards. The PreCompact hook's checkpoint returns at once every time.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../src/beads/errors';
import { asWriteHold, writeHoldOf } from '../../../src/beads/refusal';
import { checkpointCommand, retryCommand } from '../../../src/bin/checkpoint';
import { decideAfterFailure, describeDecision, WRITE_HOLD_CODES } from '../../../src/core/outboxPolicy';
import { toWriteFailure } from '../../../src/services/outbox';
import { makeWorkspace, SCENARIO } from '../../fixtures/make-workspace.mjs';
import { runJson } from '../../fixtures/standin/harness';

const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'write-holds-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const exitError = (exitCode: number, stderr: string) => new CliError({ kind: 'exit', command: 'bd', args: ['comments', 'add'], exitCode, stderr });

describe('what a held write is', () => {
  it("tells bd 1.3's freeze and its consent refusal from refusals and failures", () => {
    expect(writeHoldOf(exitError(14, '⛔ workspace is frozen for migration (/w/MIGRATION-FREEZE)\n'))).toBe('migration-freeze');
    expect(writeHoldOf(exitError(1, "Error: refusing to write: … run 'bd migrate schema' as the designated migrator (or set BD_ALLOW_REMOTE_MIGRATE=1)\n"))).toBe('migration-consent');
    expect(writeHoldOf(exitError(1, 'Error claiming x: issue already claimed by someone\n'))).toBeUndefined();
    expect(writeHoldOf(new CliError({ kind: 'timeout', command: 'bd', args: [] }))).toBeUndefined();
  });

  it('the policy waits a hold out: retried later at a steady pace, not counted, never parked, every write held', () => {
    for (const [error, reason] of [
      [exitError(14, '⛔ workspace is frozen for migration'), 'frozen'],
      [exitError(1, 'Error: refusing to write: BD_ALLOW_REMOTE_MIGRATE=1'), 'awaiting-migration'],
    ] as const) {
      const failure = toWriteFailure(asWriteHold(error));
      expect(failure.cliCode).toBe(reason === 'frozen' ? WRITE_HOLD_CODES.freeze : WRITE_HOLD_CODES.consent);
      for (const attempts of [1, 50]) {
        const decision = decideAfterFailure(failure, attempts, 1_000);
        expect(decision).toMatchObject({ action: 'retry', reason, counted: false, mayHaveLanded: false });
      }
      expect(describeDecision(decideAfterFailure(failure, 1, 0))).toMatch(/frozen for migration|migrate schema/);
    }
  });
});

describe('a checkpoint while bd 1.3 holds writes back', () => {
  it.each([
    ['the workspace is frozen for migration', 'freeze'],
    ['the shared database awaits its migration', 'consent'],
  ] as const)('when %s: queued at once, every time, kept while it lasts, then landed exactly once', async (_, hold) => {
    const dir = join(base, `ws-${++counter}`);
    makeWorkspace({ dir, dialect: 'bd', data: 'scenario', git: true });
    const env = { BEADS_STANDIN_BD_VERSION: '1.3.0', BEADS_ACTOR: 'demo-agent', BD_ACTOR: 'demo-agent' };
    const [issueId] = SCENARIO.readyWithParent as readonly string[];
    runJson('bd', ['update', issueId as string, '--claim', '--json'], { cwd: dir, env });
    const marker = join(dir, 'MIGRATION-FREEZE');
    if (hold === 'freeze') writeFileSync(marker, '');
    else {
      // A shared server whose schema is behind this bd: it will not migrate it without consent.
      const metadata = join(dir, '.beads', 'metadata.json');
      writeFileSync(metadata, JSON.stringify({ ...(JSON.parse(readFileSync(metadata, 'utf8')) as object), dolt_mode: 'server' }));
      writeFileSync(join(dir, '.beads', '.standin-schema'), '53\n');
    }
    const lines: string[] = [];
    const checkpoint = async (words: string, extra: string[] = []) => {
      const started = Date.now();
      const code = await checkpointCommand(['--cwd', dir, '--issue', issueId as string, '--message', words, ...extra], {
        out: (line) => lines.push(line),
        readHook: async () => undefined,
        env: { ...process.env, ...env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'bd', BEADS_RECOVERY_TIMEOUT_MS: '10000', BEADS_RECOVERY_HOOK_DEADLINE_MS: '20000' },
      });
      return { code, ms: Date.now() - started };
    };
    const outboxFile = join(dir, '.git', 'beads-recovery', 'outbox.json');
    const queue = () => (existsSync(outboxFile) ? (JSON.parse(readFileSync(outboxFile, 'utf8')) as { pending: unknown[]; failed: unknown[] }) : { pending: [], failed: [] });

    for (const words of ['while held', 'still held']) {
      const { code, ms } = await checkpoint(words, ['--pre-compact']);
      expect(code).toBe(0);
      // Recognised at once: no retrying against the hold until the hook's deadline.
      expect(ms).toBeLessThan(8_000);
    }
    expect(lines.join('\n')).toMatch(/queued/i);
    expect(queue().pending.length).toBeGreaterThan(0);
    expect(queue().failed).toEqual([]);

    // Nothing of bd's counts as work: the marker is no file of the checkpoint.
    const waiting = queue().pending as { write: { text: string } }[];
    expect(waiting.map((entry) => entry.write.text).join('\n')).not.toContain('MIGRATION-FREEZE');

    // The hold ends: what waited is sent once it is due (at the next recheck, here asked for at once), then the next checkpoint.
    if (hold === 'freeze') rmSync(marker);
    else writeFileSync(join(dir, '.beads', '.standin-schema'), '66\n');
    const retried = await retryCommand(['--cwd', dir], {
      out: (line) => lines.push(line),
      readHook: async () => undefined,
      env: { ...process.env, ...env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'bd', BEADS_RECOVERY_TIMEOUT_MS: '10000' },
    });
    expect(retried).toBe(0);
    expect((await checkpoint('after the hold')).code).toBe(0);
    const [shown] = runJson('bd', ['show', issueId as string, '--json', '--include-comments'], { cwd: dir, env }) as { comments?: { text: string }[] }[];
    const texts = (shown?.comments ?? []).map((comment) => comment.text);
    expect(texts.filter((text) => text.includes('while held'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('still held'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('after the hold'))).toHaveLength(1);
    expect(queue().pending).toEqual([]);
    expect(queue().failed).toEqual([]);
  }, 90_000);
});
