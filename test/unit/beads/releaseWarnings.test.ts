// Withdrawn and retracted releases (src/core/cliVersions.ts): named with their reason, warned about
// once per user and release, by the command line and the hooks as by the extension.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { releaseWarningOnce } from '../../../src/beads/releaseWarnings';
import { recoveryContextFor } from '../../../src/bin/context';
import { compareVersions, withdrawnReason, withdrawnWarning } from '../../../src/core/cliVersions';

const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'release-warnings-'));
const previousProcessDir = process.env.BEADS_RECOVERY_PROCESS_DIR;
let counter = 0;
beforeEach(() => {
  process.env.BEADS_RECOVERY_PROCESS_DIR = join(base, `state-${++counter}`, 'processes');
});
afterAll(() => {
  if (previousProcessDir === undefined) delete process.env.BEADS_RECOVERY_PROCESS_DIR;
  else process.env.BEADS_RECOVERY_PROCESS_DIR = previousProcessDir;
  rmSync(base, { recursive: true, force: true });
});

describe('withdrawn and retracted releases', () => {
  it('names bd 1.0.5 (data corruption) and the retracted 1.2.1, 1.2.0 and 1.1.1, with the reason', () => {
    expect(withdrawnWarning('bd', '1.0.5')).toBe('bd 1.0.5 is withdrawn for data corruption; upgrade to 1.3.1.');
    for (const version of ['1.2.1', '1.2.0', 'v1.1.1']) expect(withdrawnReason('bd', version)).toMatch(/^retracted by the beads project \(go\.mod retract\)/);
    for (const version of ['1.0.4', '1.2.2', '1.3.0', '1.3.1']) expect(withdrawnReason('bd', version)).toBeUndefined();
    expect(withdrawnReason('br', '1.0.5')).toBeUndefined();
  });

  it('compares versions by number, not by text', () => {
    expect(compareVersions('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareVersions('v1.3.0', '1.3')).toBe(0);
    expect(compareVersions('1.2', '1.3.0')).toBeLessThan(0);
    expect(compareVersions('0.5.8-dev', '0.5.7')).toBeGreaterThan(0);
  });

  it('is said once per user and release', async () => {
    expect(await releaseWarningOnce('bd', '1.0.5')).toMatch(/withdrawn for data corruption/);
    expect(await releaseWarningOnce('bd', '1.0.5')).toBeUndefined();
    expect(await releaseWarningOnce('bd', '1.2.1')).toMatch(/retracted/);
    expect(await releaseWarningOnce('bd', '1.3.1')).toBeUndefined();
  });

  it('the command line and hooks warn on stderr when bd 1.0.5 last ran the store, once', async () => {
    const root = join(base, `ws-${++counter}`);
    mkdirSync(join(root, '.beads'), { recursive: true });
    writeFileSync(join(root, '.beads', 'issues.jsonl'), JSON.stringify({ id: 'w-1', title: 'One', status: 'in_progress', priority: 2, issue_type: 'task', created_at: '2026-02-01T10:00:00Z', updated_at: '2026-02-01T10:00:00Z' }) + '\n');
    const saved = process.env.PATH;
    process.env.PATH = `${BIN}${delimiter}${saved ?? ''}`;
    try {
      const env = { ...process.env, BEADS_RECOVERY_CLI: 'bd', BEADS_STANDIN_BD_VERSION: '1.0.5' };
      const first: string[] = [];
      const second: string[] = [];
      // The first run records bd's version (.beads/.local_version); the next ones see it.
      await recoveryContextFor(root, { env, warn: () => undefined });
      await recoveryContextFor(root, { env, warn: (line) => first.push(line) });
      await recoveryContextFor(root, { env, warn: (line) => second.push(line) });
      expect(first).toContain('bd 1.0.5 is withdrawn for data corruption; upgrade to 1.3.1.');
      expect(second.join('\n')).not.toMatch(/withdrawn/);
    } finally {
      process.env.PATH = saved;
    }
  }, 30_000);
});
