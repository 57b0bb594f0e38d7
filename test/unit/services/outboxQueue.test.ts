// The outbox's durable queue on its own, without a drainer: what it keeps, in which order it hands
// writes out, and how a landing frees what waited (src/services/outboxQueue.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxQueue } from '../../../src/services/outboxQueue';

let dir: string;
let clock = 1_000_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'outbox-queue-'));
  clock = 1_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function queue(): OutboxQueue {
  return new OutboxQueue({ file: join(dir, 'outbox.json'), root: '/project', now: () => clock });
}

const comment = (key: string, issueId: string) => ({ key, kind: 'comment' as const, issueId, text: `text of ${key}` });

describe('OutboxQueue', () => {
  it('claims a write for an attempt only as it was read: another drainer\'s claim, try or landing since refuses it', async () => {
    const mine = queue();
    const theirs = queue();
    await mine.add(comment('a', 'demo-1'));
    await theirs.reload();
    const seenByMine = (await mine.nextDue()) as NonNullable<Awaited<ReturnType<OutboxQueue['nextDue']>>>;
    const seenByTheirs = (await theirs.nextDue()) as typeof seenByMine;
    expect(await theirs.markInFlight('a', 'theirs', seenByTheirs)).toBe(true);
    // Decided on a reading from before their claim: sending now would send it twice.
    expect(await mine.markInFlight('a', 'mine', seenByMine)).toBe(false);
    // Their attempt timed out: it may have landed, and a claim from the older reading would skip the check.
    await theirs.recordRetry('a', { attempts: 1, at: clock, error: 'timed out', reason: 'timeout', mayHaveLanded: true, everyWriteWaits: false });
    expect(await mine.markInFlight('a', 'mine', seenByMine)).toBe(false);
    // Read again, it is claimed, as a write that may have landed.
    const fresh = (await mine.nextDue()) as typeof seenByMine;
    expect(fresh.mayHaveLanded).toBe(true);
    expect(await mine.markInFlight('a', 'mine', fresh)).toBe(true);
    // Landed by them meanwhile: nothing left to claim.
    await theirs.reload();
    await theirs.markDone(fresh.write, 'found');
    expect(await mine.markInFlight('a', 'mine', fresh)).toBe(false);
  });

  it('keeps a key once, and hands out the first due write of each issue in the order queued', async () => {
    const q = queue();
    expect(await q.add(comment('a', 'demo-1'))).toBe(true);
    expect(await q.add(comment('a', 'demo-1'))).toBe(false);
    await q.add(comment('b', 'demo-1'));
    await q.add(comment('c', 'demo-2'));
    await q.recordRetry('a', { attempts: 1, at: clock + 5_000, error: 'exit 1', reason: 'failed', mayHaveLanded: false, everyWriteWaits: false });
    // demo-1's first write waits, and b waits behind it; demo-2 goes.
    expect((await q.nextDue())?.write.key).toBe('c');
    // Another process reading the same file sees the same.
    expect((await queue().nextDue())?.write.key).toBe('c');
    clock += 5_000;
    expect((await q.nextDue())?.write.key).toBe('a');
  });

  it("an issue's oldest write still in its backoff is handed out only when the drainer says so, and only while a later write of its issue is due", async () => {
    const q = queue();
    await q.add(comment('old', 'demo-1'));
    await q.recordRetry('old', { attempts: 10, at: clock + 30 * 60_000, error: 'exit 1', reason: 'failed', mayHaveLanded: false, everyWriteWaits: false });
    expect(q.pending[0]?.lastTriedAt).toBe(clock);
    const asked: string[] = [];
    const sendsAhead = (head: { write: { key: string } }) => {
      asked.push(head.write.key);
      return true;
    };
    // Nothing waits behind it: its backoff holds, and the drainer is not asked.
    expect(await q.nextDue(sendsAhead)).toBeUndefined();
    expect(asked).toEqual([]);
    await q.add(comment('new', 'demo-1'));
    expect(await q.nextDue()).toBeUndefined();
    expect((await q.nextDue(sendsAhead))?.write.key).toBe('old');
    expect(asked).toEqual(['old']);
  });

  it('remembers when the CLI last landed a write it was sent, in the file', async () => {
    const q = queue();
    await q.add(comment('a', 'demo-1'));
    await q.add(comment('b', 'demo-1'));
    await q.markDone(comment('a', 'demo-1'), 'found');
    expect(q.lastLandedAt).toBeUndefined();
    clock += 1_000;
    await q.markDone(comment('b', 'demo-1'), 'sent');
    const again = queue();
    await again.reload();
    expect(again.lastLandedAt).toBe(clock);
  });

  it('a landing frees the writes that waited for the CLI as a whole, never one that failed for its own reasons', async () => {
    const q = queue();
    await q.add(comment('locked', 'demo-1'));
    await q.add(comment('odd', 'demo-2'));
    await q.add(comment('ok', 'demo-3'));
    await q.recordRetry('locked', { attempts: 1, at: clock + 60_000, error: 'database is locked', reason: 'locked', mayHaveLanded: false, everyWriteWaits: false });
    await q.recordRetry('odd', { attempts: 3, at: clock + 60_000, error: 'exit 1', reason: 'failed', mayHaveLanded: false, everyWriteWaits: false });
    await q.markDone(comment('ok', 'demo-3'), 'sent');
    const byKey = new Map(q.pending.map((entry) => [entry.write.key, entry.nextAttemptAt]));
    expect(byKey.get('locked')).toBe(clock);
    expect(byKey.get('odd')).toBe(clock + 60_000);
    expect(q.status('ok')).toBe('done');
  });

  it('sends again or forgets only the parked writes it is named, and leaves the others parked', async () => {
    const q = queue();
    for (const key of ['a', 'b', 'c']) {
      await q.add(comment(key, 'demo-1'));
      await q.park(key, 'rejected', `refused ${key}`);
    }
    expect(await q.requeueFailed(['b'])).toBe(1);
    expect(q.pending.map((entry) => [entry.write.key, entry.mayHaveLanded])).toEqual([['b', true]]);
    expect(await q.discardFailed(['c', 'unknown'])).toBe(1);
    expect(q.failed.map((entry) => entry.write.key)).toEqual(['a']);
    // A discarded key counts as done: the same write queued again is not brought back.
    expect(await q.add(comment('c', 'demo-1'))).toBe(false);
    // Without keys, every parked write of the project.
    expect(await q.requeueFailed()).toBe(1);
    expect(q.failed).toEqual([]);
  });
});
