// br 0.5 as people run it (docs/BEADS_CONTRACT.md §9): which of its files mean "a writer holds the
// store" before issues.jsonl is trusted as current, and writes that never overwrite a field.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliBackend, DIALECT_ARGS } from '../../../src/beads/cliBackend';
import { brJsonlIsCurrent } from '../../../src/beads/currentJsonl';
import { detectProject } from '../../../src/beads/detect';
import { runJson } from '../../fixtures/standin/harness';

const BIN = resolve(__dirname, '../..', 'fixtures', 'bin');
const base = mkdtempSync(join(tmpdir(), 'br05-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

const at = '2026-02-01T10:00:00Z';
const issue = (id: string, fields: Record<string, unknown> = {}) => ({ id, title: `Title of ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: at, updated_at: at, ...fields });

function brStore(records: unknown[]): { root: string; beads: string; jsonl: string } {
  const root = join(base, `ws-${++counter}`);
  const beads = join(root, '.beads');
  mkdirSync(beads, { recursive: true });
  const jsonl = join(beads, 'issues.jsonl');
  writeFileSync(join(beads, 'beads.db'), '');
  writeFileSync(join(beads, 'metadata.json'), JSON.stringify({ database: 'beads.db', jsonl_export: 'issues.jsonl' }));
  writeFileSync(jsonl, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
  // The database written first, the JSONL flushed after it: current.
  const then = new Date(Date.now() - 60_000);
  utimesSync(join(beads, 'beads.db'), then, then);
  return { root, beads, jsonl };
}

describe("br 0.5's files and a current issues.jsonl", () => {
  it('a reader holding the openers lease, and the sidecars and -shm a read touches, do not stop the file being trusted; .write.lock does', async () => {
    const { root, beads, jsonl } = brStore([issue('c-1', { status: 'in_progress' })]);
    expect(await brJsonlIsCurrent(beads, jsonl)).toBe(true);
    // A br 0.5.7 read: its lease and sidecars, touched after the JSONL.
    runJson('br', ['list', '--json'], { cwd: root, env: { BEADS_STANDIN_BR_VERSION: '0.5.7' } });
    writeFileSync(join(beads, '.br-db-openers-4242.lock'), '4242\n');
    expect(await brJsonlIsCurrent(beads, jsonl)).toBe(true);
    writeFileSync(join(beads, '.write.lock'), '4243\n');
    expect(await brJsonlIsCurrent(beads, jsonl)).toBe(false);
  }, 30_000);

  it('so the extension reads a br 0.5.7 store from its file while a long reader runs, with no process', async () => {
    const { root, beads } = brStore([issue('c-2', { status: 'in_progress' })]);
    writeFileSync(join(beads, '.br-db-openers-4242.lock'), '4242\n');
    const log = join(root, 'calls.log');
    const detection = await detectProject(root, { trusted: true, timeoutMs: 10_000, pathEnv: BIN, preferred: 'br', skipWhere: true, env: { BEADS_STANDIN_BR_VERSION: '0.5.7', BEADS_STANDIN_LOG: log } });
    if (detection.kind !== 'cli') throw new Error('expected br');
    expect((await detection.backend.listInProgress()).map((found) => found.id)).toEqual(['c-2']);
    expect(() => readFileSync(log, 'utf8')).toThrow();
  }, 30_000);
});

describe('writes never overwrite a field (br main #467: update refuses to without --force)', () => {
  it("no write's arguments name a free-text field: checkpoints are comments", () => {
    const argv = (dialect: 'bd' | 'br') => [
      ...DIALECT_ARGS[dialect].claim('x-1'),
      ...DIALECT_ARGS[dialect].addComment('x-1', 'Checkpoint: text'),
      ...DIALECT_ARGS[dialect].close('x-1', 'Done', { force: true }),
    ];
    for (const dialect of ['bd', 'br'] as const) {
      for (const flag of ['--description', '--design', '--acceptance-criteria', '--notes', '--agent-context', '--append-notes']) {
        expect(argv(dialect).some((arg) => arg === flag || arg.startsWith(`${flag}=`))).toBe(false);
      }
    }
  });

  it('on br main, claim, a checkpoint and close of an issue with every free-text field land and leave the fields as they were', async () => {
    const fields = { description: 'The whole story.', design: 'A design.', acceptance_criteria: '- [ ] works', notes: 'First note.', agent_context: 'Run the tests.' };
    const { root } = brStore([issue('w-1', fields)]);
    const backend = createCliBackend({ dialect: 'br', command: join(BIN, 'br'), root, timeoutMs: 10_000, env: { BEADS_STANDIN_BR_VERSION: 'main' } });
    await backend.claim('w-1');
    await backend.addComment('w-1', 'Checkpoint: halfway');
    await backend.close('w-1', 'Done');
    const [after] = runJson('br', ['show', 'w-1', '--json'], { cwd: root, env: { BEADS_STANDIN_BR_VERSION: 'main' } }) as Record<string, unknown>[];
    expect(after).toMatchObject({ ...fields, status: 'closed' });
    expect((after?.comments as { text: string }[]).map((comment) => comment.text)).toEqual(['Checkpoint: halfway']);
  }, 30_000);
});
