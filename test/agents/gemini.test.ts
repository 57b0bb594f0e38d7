// Gemini CLI, for real, against the Gemini API stand-in (see ./harness.ts, ./scenario.ts). It
// compresses by its own measure: an answer whose usage reports a prompt over its compression
// threshold (`-p /compress` reaches the model as text).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, REPO, type AgentHarness, type AgentTurn } from './harness';
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
// session's too, and that session then records its first prompt in a new file without its first
// record: it cannot be resumed ("Invalid session identifier"), and its first turn is gone from
// its thread (docs/gemini-session-race.md). Our hooks write the record back: BeforeAgent when the
// file is gone before it reads it or while it runs, BeforeModel when it went after.
// A session is lost when `--resume <its id>` fails, or its resumed conversation no longer holds its
// own first prompt (and, with our hooks, our block exactly once): what a user would lose.
const raceRounds = Number(process.env.GEMINI_RACE_ROUNDS) || 0;
const HOLD_HOOK = path.join(REPO, 'test', 'agents', 'bin', 'gemini-hold-prompt.cjs');

interface SessionFate {
  session: string;
  lost: string | undefined;
}

/** Resumes a session and says whether, and how, it was lost. */
async function fateOf(harness: AgentHarness, turn: AgentTurn, firstPrompt: string, hooks: boolean): Promise<SessionFate> {
  const resumed = await harness.resume(turn.session, 'STEP2 go on');
  const request = resumed.requests.find((each) => each.kind === 'turn');
  const lost =
    resumed.exitCode !== 0 ? `resume exited ${resumed.exitCode}: ${resumed.stderr.trim().split('\n').slice(-1)[0] ?? ''}`
    : !request?.text.includes(firstPrompt) ? 'its first prompt is gone from its resumed conversation'
    : hooks && blockCount(request) !== 1 ? `its resumed conversation holds our block ${blockCount(request)} times`
    : undefined;
  return { session: turn.session, lost };
}

async function until(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 110_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`waited 110 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Made to happen every time: a hook of the test's own (bin/gemini-hold-prompt.cjs) holds session
// one's first prompt, as any slow BeforeAgent hook would, while session two starts and runs.
describe('Gemini CLI, a session whose first prompt is held while another session starts in its folder', () => {
  let harness: AgentHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** `order`: the holding hook before ours, run one after the other (ours finds the file gone), or beside ours (the file goes after ours answered). */
  const race = async (hooks: boolean, order: 'before' | 'beside') => {
    harness = await createAgentHarness({ agent: 'gemini', script: SCRIPT, hooks });
    const { dir } = harness;
    const settingsFile = path.join(dir, '.gemini', 'settings.json');
    const settings = (existsSync(settingsFile) ? JSON.parse(readFileSync(settingsFile, 'utf8')) : {}) as { hooks?: Record<string, unknown[]> };
    const hold = { matcher: '*', ...(order === 'before' ? { sequential: true } : {}), hooks: [{ type: 'command', command: `"${process.execPath}" "${HOLD_HOOK}"`, timeout: 120_000 }] };
    const before = settings.hooks?.BeforeAgent ?? [];
    settings.hooks = { ...settings.hooks, BeforeAgent: order === 'before' ? [hold, ...before] : [...before, hold] };
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);

    const firstPrompt = 'STEP2 session one HOLD';
    const one = harness.start(firstPrompt);
    const h = harness;
    await until('session one to reach its first prompt', () => existsSync(path.join(dir, '.held')) && (!hooks || order === 'before' || h.hookRuns().some((run) => run.event === 'BeforeAgent')));
    // The only chat file yet: session one's, made at its start.
    const chats = path.join(h.home, '.gemini', 'tmp');
    const oneFile = path.join(chats, readdirSync(chats, { recursive: true }).map(String).find((name) => /session-[^/\\]*\.jsonl$/.test(name))!);
    const two = ok(await harness.start('STEP3 session two'));
    // Session two's start-up cleanup took session one's chat file, which held no turn yet.
    const deleted = !existsSync(oneFile);
    writeFileSync(path.join(dir, '.release'), '');
    const first = ok(await one);
    const fates = [await fateOf(harness, first, firstPrompt, hooks), await fateOf(harness, two, 'STEP3 session two', hooks)];
    console.log(`session one held ${order} ${hooks ? 'our hooks' : 'no hooks of ours'}: its chat file ${deleted ? 'deleted' : 'kept'} by session two's start; lost:`, fates.map((fate) => fate.lost ?? 'no'));
    return { deleted, fates };
  };

  it('with the holding hook run before ours, ours finds the chat file gone and writes its first record back: neither session is lost', async () => {
    const { deleted, fates } = await race(true, 'before');
    expect(deleted).toBe(true);
    expect(fates.filter((fate) => fate.lost)).toEqual([]);
  }, 600_000);

  it('with the holding hook beside ours, the chat file goes after ours answered, and BeforeModel writes its first record back: neither session is lost', async () => {
    const { deleted, fates } = await race(true, 'beside');
    expect(deleted).toBe(true);
    expect(fates.filter((fate) => fate.lost)).toEqual([]);
  }, 600_000);

  // The control, run beside the rounds below (GEMINI_RACE_ROUNDS): what the two above would lose without us.
  it.skipIf(!raceRounds)('without our hooks the held session is lost, as Gemini CLI 0.61 does it', async () => {
    const { deleted, fates } = await race(false, 'before');
    expect(deleted).toBe(true);
    expect(fates[0]?.lost).toBeDefined();
    expect(fates[1]?.lost).toBeUndefined();
  }, 600_000);
});

// Left to chance: two sessions started together, round after round. GEMINI_RACE_ROUNDS sets how
// many (default 1, with our hooks only, to keep the suite's time); set, the same rounds also run
// without our hooks, and both counts are printed.
describe('Gemini CLI, two sessions started together in one folder', () => {
  const lost = async (hooks: boolean, rounds: number): Promise<string[]> => {
    const losses: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const harness = await createAgentHarness({ agent: 'gemini', script: SCRIPT, hooks });
      try {
        const [one, two] = (await Promise.all([harness.start('STEP2 session one'), harness.start('STEP3 session two')])).map(ok);
        const fates = [await fateOf(harness, one!, 'STEP2 session one', hooks), await fateOf(harness, two!, 'STEP3 session two', hooks)];
        const lostHere = fates.filter((fate) => fate.lost).map((fate) => `round ${round + 1}: ${fate.session}: ${fate.lost}`);
        console.log(`two Gemini CLI sessions started together, ${hooks ? 'with' : 'without'} our hooks, round ${round + 1}: ${lostHere.length} lost`);
        losses.push(...lostHere);
      } finally {
        await harness.close();
      }
    }
    return losses;
  };

  it('with our hooks installed no session is lost, round after round', async () => {
    const withHooks = await lost(true, raceRounds || 1);
    const without = raceRounds ? await lost(false, raceRounds) : [];
    console.log(`two Gemini CLI sessions started together, ${raceRounds || 1} rounds: sessions lost with our hooks ${withHooks.length}${raceRounds ? `, without hooks ${without.length}` : ''}`, [...withHooks, ...without]);
    expect(withHooks).toEqual([]);
  }, 1_800_000);
});
