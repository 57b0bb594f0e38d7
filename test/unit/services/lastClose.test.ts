import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastCloseBesideLedger, LAST_CLOSE_FILE } from '../../../src/services/lastClose';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'last-close-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const closed = { id: 'wf-2', title: 'Load widgets.yaml', status: 'closed', priority: 2, issueType: 'task' };

describe('LastCloseStore', () => {
  it('keeps the last close beside the ledger until it is cleared', async () => {
    const store = lastCloseBesideLedger(join(dir, 'ledger.json'));
    expect(store.file).toBe(join(dir, LAST_CLOSE_FILE));
    expect(await store.read()).toBeUndefined();
    await store.record({ closed, unblocked: ['wf-3'], inProgressAfter: [] });
    // Another process (the command line) reads the same answer.
    expect(await lastCloseBesideLedger(join(dir, 'ledger.json')).read()).toEqual({ closed, unblocked: ['wf-3'], inProgressAfter: [] });
    await store.clear();
    expect(await store.read()).toBeUndefined();
  });

  it('sets aside a damaged entry and keeps what can be read', async () => {
    const damage: string[] = [];
    const store = lastCloseBesideLedger(join(dir, 'ledger.json'), (report) => damage.push(JSON.stringify(report)));
    writeFileSync(store.file, JSON.stringify({ lastClose: { closed: { title: 'no id' }, unblocked: ['x'] } }));
    expect(await store.read()).toBeUndefined();
    writeFileSync(store.file, JSON.stringify({ lastClose: { closed: { id: 'wf-2' }, unblocked: ['wf-3', 7, null], inProgressAfter: 'wf-9' } }));
    expect(await store.read()).toMatchObject({ closed: { id: 'wf-2', status: 'closed' }, unblocked: ['wf-3'], inProgressAfter: [] });
    writeFileSync(store.file, '{ not json');
    expect(await store.read()).toBeUndefined();
    expect(readFileSync(store.file, 'utf8')).toBe('{ not json');
    expect(damage.length).toBeGreaterThan(0);
  });
});
