// The queries of one refresh start together; the read-only backend reads its file once for all of
// them (two reads side by side held every issue twice: 3.1 times the file's size at peak).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CliError } from '../../../src/beads/errors';
import { createJsonlBackend } from '../../../src/beads/jsonlBackend';
import * as safeRead from '../../../src/io/safeRead';

vi.mock('../../../src/io/safeRead', async (original) => {
  const actual = await original<typeof safeRead>();
  return { ...actual, readLines: vi.fn(actual.readLines) };
});

const base = mkdtempSync(join(tmpdir(), 'beads-jsonl-once-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function project(name: string): string {
  const root = join(base, name);
  mkdirSync(join(root, '.beads'), { recursive: true });
  const issue = (id: string, status: string) => JSON.stringify({ id, title: `Title of ${id}`, status, priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z' });
  writeFileSync(join(root, '.beads', 'issues.jsonl'), `${issue('o-1', 'in_progress')}\n${issue('o-2', 'open')}\n`);
  return root;
}

describe('jsonl backend, queries started together', () => {
  it('reads the file once for the lists and show started at the same time', async () => {
    const readLines = vi.mocked(safeRead.readLines);
    readLines.mockClear();
    const backend = createJsonlBackend({ root: project('together') });
    const [inProgress, ready, shown] = await Promise.all([backend.listInProgress(), backend.listReady(), backend.show(['o-1'])]);
    expect([inProgress.map((issue) => issue.id), ready.map((issue) => issue.id), shown.map((issue) => issue.id)]).toEqual([['o-1'], ['o-2'], ['o-1']]);
    expect(readLines).toHaveBeenCalledTimes(1);
  });

  it('goes on for a query still waiting when another is canceled, and reads again after all were', async () => {
    const backend = createJsonlBackend({ root: project('canceled') });
    const cancel = new AbortController();
    const canceled = backend.listInProgress(cancel.signal);
    const kept = backend.listReady();
    cancel.abort();
    await expect(canceled).rejects.toBeInstanceOf(CliError);
    expect((await kept).map((issue) => issue.id)).toEqual(['o-2']);

    const alone = new AbortController();
    const gone = createJsonlBackend({ root: project('all-canceled') });
    const first = gone.listInProgress(alone.signal);
    alone.abort();
    await expect(first).rejects.toMatchObject({ kind: 'canceled' });
    expect((await gone.listInProgress()).map((issue) => issue.id)).toEqual(['o-1']);
  });
});
