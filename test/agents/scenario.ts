// The scenarios every agent goes through (issue 23): start, a scripted edit and command, the agent's
// own compaction, continue, resume; in a beads folder, in a plain folder, and beside bd's own prime
// hook. Each asserts what reached the model (the stand-in's recorded requests), what the hooks wrote
// (the store's comments) and how they answered (exit code, output, time).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockCount, createAgentHarness, rulesCount, type AgentHarness, type AgentKind, type AgentTurn, type HarnessOptions } from './harness';
import type { ScriptStep } from './modelStandin';

/** STEP1 edits a file and runs a command; STEP4 runs a command; the other steps just answer. */
export const SCRIPT: ScriptStep[] = [
  { when: 'STEP1', turns: [{ write: { path: 'notes.txt', content: 'first notes\n' } }, { shell: 'echo ran > ran.txt && ls' }, { text: 'Wrote the notes and ran the command.' }] },
  { when: 'STEP2', turns: [{ text: 'Continuing.' }] },
  { when: 'STEP3', turns: [{ text: 'Still here.' }] },
  { when: 'STEP4', turns: [{ shell: 'echo more > more.txt' }, { text: 'More work done.' }] },
];

/**
 * The product's promise: a hook answers within 20 seconds, exit 0, with valid JSON or nothing;
 * Claude Code's PreCompact may instead print the plain instructions Claude Code adds to its
 * compaction prompt (threadFacts' compactionInstructions).
 */
const HOOK_DEADLINE_MS = 20_000;

export function expectHooksAnsweredInTime(harness: AgentHarness): void {
  const runs = harness.hookRuns();
  expect(runs.length).toBeGreaterThan(0);
  for (const run of runs) {
    expect(run.exitCode, `${run.event} exit code`).toBe(0);
    expect(run.durationMs, `${run.event} took ${run.durationMs} ms`).toBeLessThan(HOOK_DEADLINE_MS);
    if (run.event === 'PreCompact' && run.stdout.startsWith('Beads recovery: in the summary')) continue;
    if (run.stdout.trim() !== '') expect(() => JSON.parse(run.stdout), `${run.event} printed ${run.stdout}`).not.toThrow();
  }
}

/** Nothing tried to leave 127.0.0.1 through the proxy the agent was given. */
export function expectNoEgress(harness: AgentHarness): void {
  expect(harness.standin.egress).toEqual([]);
}

export function ok(turn: AgentTurn): AgentTurn {
  expect(turn.exitCode, `the agent exited ${turn.exitCode}\n${turn.stderr.slice(-2000)}\n${turn.stdout.slice(-2000)}`).toBe(0);
  return turn;
}

const blocks = (turn: AgentTurn) => turn.requests.filter((request) => request.kind === 'turn').map(blockCount);
const checkpoints = (harness: AgentHarness) => harness.comments('demo-1').filter((comment) => comment.text.startsWith('Auto-checkpoint'));

export type ScenarioId = 'start' | 'compaction' | 'resume' | 'second-compaction' | 'two-sessions' | 'bd-prime' | 'outside-beads';

export interface AgentScenarioOptions {
  /** The agent's requests name their session, so two sessions in one folder can be told apart. */
  concurrentSessions: boolean;
  /**
   * The agent goes on with the turn right after its compaction (opencode's "Continue…" message):
   * the first request after the summary request must already carry the block, once.
   */
  continuesAfterCompaction?: boolean;
  /**
   * Scenarios the product does not pass yet, each with the reason: reported as pending (todo),
   * not run. Each entry names what has to land for it to go.
   */
  pending?: Partial<Record<ScenarioId, string>>;
}

/** Registers the scenarios of one agent (a describe block per folder kind). */
export function describeAgentScenarios(agent: AgentKind, options: AgentScenarioOptions): void {
  const harnesses: AgentHarness[] = [];
  const harnessFor = async (extra: Partial<HarnessOptions> = {}) => {
    const harness = await createAgentHarness({ agent, script: SCRIPT, ...extra });
    harnesses.push(harness);
    return harness;
  };
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
  });
  const scenario = (id: ScenarioId, title: string, body: () => Promise<void>) => {
    const reason = options.pending?.[id];
    if (reason) it.todo(`${title} (pending: ${reason})`);
    else it(title, body);
  };

  describe('in a beads folder', () => {
    scenario('start', 'start: the block reaches the model once; the scripted edit and command ran; no checkpoint without a compaction', async () => {
      const harness = await harnessFor();
      const start = ok(await harness.start('STEP1 write the notes'));
      // The prompt, then the answer to each of the two tool calls.
      expect(blocks(start)).toEqual([1, 1, 1]);
      expect(fs.readFileSync(path.join(harness.dir, 'notes.txt'), 'utf8')).toBe('first notes\n');
      expect(fs.readFileSync(path.join(harness.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
      expect(start.transcriptPath && fs.existsSync(start.transcriptPath), 'the agent wrote its transcript').toBe(true);
      expect(checkpoints(harness)).toEqual([]);
      expectHooksAnsweredInTime(harness);
      expectNoEgress(harness);
    });

    scenario('compaction', 'a compaction writes one checkpoint; the next turn gets the block once', async () => {
      const harness = await harnessFor();
      const { session } = ok(await harness.start('STEP1 write the notes'));
      const before = checkpoints(harness).length;
      const compact = ok(await harness.compact(session));
      expect(compact.requests.some((request) => request.kind === 'compaction'), 'the agent asked for a summary').toBe(true);
      expect(checkpoints(harness).length).toBe(before + 1);
      if (options.continuesAfterCompaction) {
        const summaryAt = compact.requests.findIndex((request) => request.kind === 'compaction');
        expect(blocks({ ...compact, requests: compact.requests.slice(summaryAt + 1) }), 'the requests after the summary').toEqual([1]);
      }
      const next = ok(await harness.resume(session, 'STEP2 go on'));
      expect(blocks(next)).toEqual([1]);
      expectHooksAnsweredInTime(harness);
      expectNoEgress(harness);
    });

    scenario('resume', 'a resumed session that already holds the current block gets nothing new, after a compaction too', async () => {
      const harness = await harnessFor();
      const { session } = ok(await harness.start('STEP1 write the notes'));
      expect(blocks(ok(await harness.resume(session, 'STEP2 go on')))).toEqual([1]);
      ok(await harness.compact(session));
      expect(blocks(ok(await harness.resume(session, 'STEP3 and on')))).toEqual([1]);
      expect(blocks(ok(await harness.resume(session, 'STEP2 once more')))).toEqual([1]);
    });

    scenario('second-compaction', 'a second compaction within 60 s gets its own checkpoint and its own block', async () => {
      const harness = await harnessFor();
      const { session } = ok(await harness.start('STEP1 write the notes'));
      ok(await harness.compact(session));
      ok(await harness.resume(session, 'STEP4 more work'));
      const first = checkpoints(harness).length;
      const compacted = Date.now();
      ok(await harness.compact(session));
      const next = ok(await harness.resume(session, 'STEP2 go on'));
      expect(Date.now() - compacted).toBeLessThan(60_000);
      expect(checkpoints(harness).length).toBe(first + 1);
      expect(blocks(next)).toEqual([1]);
    });

    if (options.concurrentSessions) scenario('two-sessions', 'two sessions at once in one folder: each gets the block once and has its own transcript', async () => {
      const harness = await harnessFor();
      const [one, two] = await Promise.all([harness.start('STEP2 session one'), harness.start('STEP3 session two')]);
      ok(one);
      ok(two);
      expect(one.session).not.toBe(two.session);
      expect(blocks(one)).toEqual([1]);
      expect(blocks(two)).toEqual([1]);
      expect(one.transcriptPath).toBeDefined();
      expect(two.transcriptPath).toBeDefined();
      expect(one.transcriptPath).not.toBe(two.transcriptPath);
    });

    scenario('bd-prime', "bd's own prime hook beside ours: the rules reach the model once", async () => {
      const harness = await harnessFor({ dialect: 'bd', bdPrime: true });
      const start = ok(await harness.start('STEP2 go'));
      const first = start.requests.find((request) => request.kind === 'turn');
      expect(rulesCount(first)).toBe(1);
      expect(blockCount(first)).toBe(1);
    });
  });

  describe('outside a beads folder', () => {
    scenario('outside-beads', 'the hooks say nothing at all, at start, at a compaction and at a resume', async () => {
      const harness = await harnessFor({ beads: false });
      const start = ok(await harness.start('STEP1 write the notes'));
      const compact = ok(await harness.compact(start.session));
      const next = ok(await harness.resume(start.session, 'STEP2 go on'));
      // What our hooks would say (the block, its rules, "Not a beads project"); the agent may still
      // name the hook's own command line (Claude Code echoes it after /compact).
      for (const request of [...start.requests, ...compact.requests, ...next.requests]) {
        expect(request.text.match(/.{0,80}(Not a beads project|Beads Workflow|## Resuming|recovery context|Core Rules).{0,80}/i)?.[0], 'a request carries our words').toBeUndefined();
      }
      const runs = harness.hookRuns();
      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) {
        expect(run.exitCode).toBe(0);
        expect(['', '{}']).toContain(run.stdout.trim());
      }
      expectNoEgress(harness);
    });
  });
}
