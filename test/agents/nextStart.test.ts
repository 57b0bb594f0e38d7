// A session's end makes the next new session's start block ahead (issue 28), in the real agents
// whose end runs our hook: the session's edits change what the block lists, so the block its own
// start kept is stale; its end keeps the new one, and the next session's start answers with it
// instead of computing it (a start that computes rewrites the kept entry; one that hits does not).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, type AgentHarness, type AgentKind } from './harness';
import { ok, SCRIPT } from './scenario';

interface KeptEntry {
  writtenAt: number;
}

function keptEntries(harness: AgentHarness): KeptEntry[] {
  const file = path.join(harness.dir, '.git', 'beads-recovery', 'start-block.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: KeptEntry[] }).entries : [];
}

const harnesses: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

describe.each([['claude'], ['gemini']] as [AgentKind][])("%s: a session's end keeps the next start's block", (agent) => {
  it('the next session starts from the block its predecessor left, and is given it once', async () => {
    // br's export current beside its database: the hooks read it, and a block read so is kept.
    const harness = await createAgentHarness({ agent, script: SCRIPT, brDatabase: true });
    harnesses.push(harness);
    // The scripted edit and command make two new files: what the block lists changes mid-session.
    ok(await harness.start('STEP1 write the notes'));
    const ends = harness.hookRuns().filter((run) => run.event === 'SessionEnd');
    expect(ends.length, 'the session ran our end hook').toBe(1);
    const [kept] = keptEntries(harness);
    expect(kept, 'a block is kept').toBeDefined();
    expect(kept?.writtenAt, 'kept by the session end').toBeGreaterThanOrEqual(ends[0]?.startedAt ?? Number.POSITIVE_INFINITY);

    const next = ok(await harness.start('STEP2 go on'));
    expect(next.requests.filter((request) => request.kind === 'turn').map(blockCount)[0]).toBe(1);
    // Neither the next start (a hit) nor its own end (nothing changed) made the block again.
    expect(keptEntries(harness).map((entry) => entry.writtenAt)).toEqual([kept?.writtenAt]);
  });
});
