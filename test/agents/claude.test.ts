// Claude Code, for real, against the Anthropic Messages stand-in (see ./harness.ts): what reached
// the model, what the hooks wrote and how they answered.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, rulesCount, type AgentHarness, type AgentTurn } from './harness';
import { expectHooksAnsweredInTime, expectNoEgress, SCRIPT } from './scenario';

const harnesses: AgentHarness[] = [];
async function harnessFor(options: Parameters<typeof createAgentHarness>[0]): Promise<AgentHarness> {
  const harness = await createAgentHarness(options);
  harnesses.push(harness);
  return harness;
}
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

function ok(turn: AgentTurn): AgentTurn {
  expect(turn.exitCode, `claude exited ${turn.exitCode}\n${turn.stderr}\n${turn.stdout}`).toBe(0);
  return turn;
}

const checkpointsOf = (harness: AgentHarness) => harness.comments('demo-1').filter((comment) => comment.text.startsWith('Auto-checkpoint'));

describe('Claude Code in a beads folder', () => {
  it('start: the block reaches the model once; the scripted edit and command ran', async () => {
    const harness = await harnessFor({ agent: 'claude', script: SCRIPT });
    const start = ok(await harness.start('STEP1 write the notes'));
    // The prompt, then the answer to each tool call.
    expect(start.requests.map((request) => request.kind)).toEqual(['turn', 'turn', 'turn']);
    expect(start.requests.map(blockCount)).toEqual([1, 1, 1]);
    expect(fs.readFileSync(path.join(harness.dir, 'notes.txt'), 'utf8')).toBe('first notes\n');
    expect(fs.readFileSync(path.join(harness.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    const transcript = fs.readFileSync(start.transcriptPath ?? '', 'utf8');
    expect(transcript).toContain('"name":"Write"');
    expect(transcript).toContain('"name":"Bash"');
    expect(harness.hookRuns().map((run) => `${run.event}:${run.exitCode}`)).toEqual(['SessionStart:0']);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  it('/compact writes one checkpoint; the next turn gets the block once', async () => {
    const harness = await harnessFor({ agent: 'claude', script: SCRIPT });
    const { session } = ok(await harness.start('STEP1 write the notes'));
    const before = checkpointsOf(harness).length;
    const compact = ok(await harness.compact(session));
    expect(compact.requests.map((request) => request.kind)).toEqual(['compaction']);
    expect(checkpointsOf(harness).length).toBe(before + 1);
    expect(harness.hookRuns().filter((run) => run.event === 'PreCompact').map((run) => run.exitCode)).toEqual([0]);
    const next = ok(await harness.resume(session, 'STEP2 go on'));
    expect(next.requests.map(blockCount)).toEqual([1]);
    expectHooksAnsweredInTime(harness);
  });

  it('--resume of a session that already holds the current block adds nothing, after a compaction too', async () => {
    const harness = await harnessFor({ agent: 'claude', script: SCRIPT });
    const { session } = ok(await harness.start('STEP1 write the notes'));
    const resumed = ok(await harness.resume(session, 'STEP2 go on'));
    expect(resumed.requests.map(blockCount)).toEqual([1]);
    ok(await harness.compact(session));
    const afterCompaction = ok(await harness.resume(session, 'STEP3 and on'));
    expect(afterCompaction.requests.map(blockCount)).toEqual([1]);
    const again = ok(await harness.resume(session, 'STEP2 once more'));
    expect(again.requests.map(blockCount)).toEqual([1]);
  });

  it('a second compaction within 60 s gets its own checkpoint and its own block', async () => {
    const harness = await harnessFor({ agent: 'claude', script: SCRIPT });
    const { session } = ok(await harness.start('STEP1 write the notes'));
    ok(await harness.compact(session));
    ok(await harness.resume(session, 'STEP4 more work'));
    const first = checkpointsOf(harness).length;
    const compacted = Date.now();
    ok(await harness.compact(session));
    const next = ok(await harness.resume(session, 'STEP2 go on'));
    expect(Date.now() - compacted).toBeLessThan(60_000);
    expect(checkpointsOf(harness).length).toBe(first + 1);
    expect(next.requests.map(blockCount)).toEqual([1]);
  });

  it('two sessions at once in one folder: each gets the block once, each has its own transcript', async () => {
    const harness = await harnessFor({ agent: 'claude', script: SCRIPT });
    const [one, two] = await Promise.all([harness.start('STEP2 session one'), harness.start('STEP3 session two')]);
    ok(one);
    ok(two);
    expect(one.session).not.toBe(two.session);
    expect(one.requests.map(blockCount)).toEqual([1]);
    expect(two.requests.map(blockCount)).toEqual([1]);
    expect(one.transcriptPath).toBeDefined();
    expect(two.transcriptPath).toBeDefined();
    expect(one.transcriptPath).not.toBe(two.transcriptPath);
  });

  it("bd's own prime hook beside ours: the rules reach the model once", async () => {
    const harness = await harnessFor({ agent: 'claude', dialect: 'bd', bdPrime: true, script: SCRIPT });
    const start = ok(await harness.start('STEP2 go'));
    expect(start.requests.map(rulesCount)).toEqual([1]);
    expect(start.requests.map(blockCount)).toEqual([1]);
  });
});

describe('Claude Code outside a beads folder', () => {
  it('the hooks say nothing at all, at start and at a compaction', async () => {
    const harness = await harnessFor({ agent: 'claude', beads: false, script: SCRIPT });
    const start = ok(await harness.start('STEP1 write the notes'));
    const compact = ok(await harness.compact(start.session));
    const next = ok(await harness.resume(start.session, 'STEP2 go on'));
    for (const request of [...start.requests, ...compact.requests, ...next.requests]) {
      expect(request.text.match(/.{0,80}beads.{0,80}/i)?.[0], 'a request mentions beads').toBeUndefined();
    }
    const runs = harness.hookRuns();
    expect(runs.map((run) => run.event).sort()).toEqual(['PreCompact', 'SessionStart', 'SessionStart', 'SessionStart'].sort());
    for (const run of runs) {
      expect(run.exitCode).toBe(0);
      expect(['', '{}']).toContain(run.stdout.trim());
    }
  });
});
