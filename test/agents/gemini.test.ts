// Gemini CLI, for real, against the Gemini API stand-in (see ./harness.ts, ./scenario.ts). It
// compresses by its own measure: an answer whose usage reports a prompt over its compression
// threshold (`-p /compress` reaches the model as text).
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, type AgentHarness, type AgentTurn } from './harness';
import { describeAgentScenarios, ok, SCRIPT } from './scenario';

describe('Gemini CLI', () => describeAgentScenarios('gemini', { concurrentSessions: false }));

// Gemini CLI fires PreCompress before every model request and drops SessionStart's context at a
// resume (test/agents/README.md): its hooks read the session's chat file instead. What that must
// never do: a checkpoint for a turn that did not compress, or a second block in a request.
describe('Gemini CLI, turn by turn', () => {
  let harness: AgentHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  const blocks = (turn: AgentTurn) => turn.requests.filter((request) => request.kind === 'turn').map(blockCount);
  const checkpoints = (from: AgentHarness) => from.comments('demo-1').filter((comment) => comment.text.startsWith('Auto-checkpoint'));

  it('turns with tool calls and resumes but no compression: no checkpoint, and every request holds the block exactly once', async () => {
    harness = await createAgentHarness({ agent: 'gemini', script: SCRIPT });
    const start = ok(await harness.start('STEP1 write the notes'));
    expect(blocks(start)).toEqual([1, 1, 1]);
    expect(blocks(ok(await harness.resume(start.session, 'STEP4 more work')))).toEqual([1, 1]);
    expect(blocks(ok(await harness.resume(start.session, 'STEP2 go on')))).toEqual([1]);
    expect(checkpoints(harness)).toEqual([]);
  });

  it("a compression's checkpoint holds the work it compressed, and no request ever holds two blocks", async () => {
    harness = await createAgentHarness({ agent: 'gemini', script: SCRIPT });
    const start = ok(await harness.start('STEP1 write the notes'));
    const compact = ok(await harness.compact(start.session));
    expect(compact.requests.filter((request) => request.kind === 'compaction').length).toBeGreaterThan(0);
    const [checkpoint, ...more] = checkpoints(harness);
    expect(more).toEqual([]);
    expect(checkpoint?.text).toContain('notes.txt');
    const next = ok(await harness.resume(start.session, 'STEP4 more work'));
    expect(blocks(next)).toEqual([1, 1]);
    for (const turn of [start, compact, next]) for (const count of blocks(turn)) expect(count).toBeLessThanOrEqual(1);
  });
});

// Gemini CLI's start-up cleanup deletes every chat file that holds no turn yet, another live
// session's too; that session then appends its first prompt to a new file without its first
// record, and cannot be resumed ("Invalid session identifier"). Our BeforeAgent hook holds the
// first turn back while it works (docs/gemini-session-race.md). Two sessions started together in
// one folder, round after round (GEMINI_RACE_ROUNDS), with our hooks and without.
// Not in `npm test` yet: the hook now writes back a chat file deleted while it runs, but a file
// deleted before the hook reads it is still lost, and a run of the suite at load 14 lost one
// session with our hooks installed (issue 30, item 5, open). Run it with GEMINI_RACE_ROUNDS=8.
const raceRounds = Number(process.env.GEMINI_RACE_ROUNDS) || 0;
describe.skipIf(raceRounds === 0)('Gemini CLI, two sessions started together in one folder', () => {
  const rounds = raceRounds;
  const lost = async (hooks: boolean): Promise<string[]> => {
    const losses: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const harness = await createAgentHarness({ agent: 'gemini', script: SCRIPT, hooks });
      try {
        const both = await Promise.all([harness.start('STEP2 session one'), harness.start('STEP3 session two')]);
        for (const turn of both) {
          ok(turn);
          // A chat file deleted and never written again is lost as surely as one without its header.
          const first = turn.transcriptPath && existsSync(turn.transcriptPath) ? readFileSync(turn.transcriptPath, 'utf8').split('\n')[0] : undefined;
          const header = first ? (JSON.parse(first) as { sessionId?: string }) : undefined;
          const resumed = await harness.resume(turn.session, 'STEP2 go on');
          if (header?.sessionId !== turn.session || resumed.exitCode !== 0) losses.push(`round ${round + 1}: ${turn.session} ${header?.sessionId === turn.session ? '' : 'lost its first record; '}${resumed.exitCode === 0 ? '' : `resume exited ${resumed.exitCode}: ${resumed.stderr.trim().split('\n').slice(-1)[0] ?? ''}`}`);
        }
      } finally {
        await harness.close();
      }
    }
    return losses;
  };

  it('with our hooks installed no session is lost, round after round', async () => {
    const withHooks = await lost(true);
    const without = await lost(false);
    console.log(`two Gemini CLI sessions started together, ${rounds} rounds: sessions lost with our hooks ${withHooks.length}, without hooks ${without.length}`);
    expect(withHooks).toEqual([]);
  }, 1_200_000);
});
