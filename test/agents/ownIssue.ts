// Every session its own issue, from its first claim (issue 30): the cases people meet, run in a real
// agent the way people run it. The demo workspace has demo-1 in progress from before any session
// (nobody's live session holds it), so a new session's start block resumes demo-1; the sessions
// then claim their own issues (demo-8, demo-9) as work goes on.
//
// - claim-then-resume: a claim made mid-session after start, then a resume without a compaction:
//   the resumed session's newest block names its own issue (a correction of the start block).
// - overlapping: two sessions in one folder, overlapping in time (the stand-in holds one session's
//   answer while the other starts, compacts or resumes): each claims its own issue, and neither is
//   handed the other's issue, its commands or its files, before a compaction and after one.
// - shared: two sessions overlapping in time on one issue that neither claims (the folder's older
//   one, handed to both): each pre-compaction checkpoint names only its own session's file, the
//   other's at most on its "Also changed here" line.
// - ended: a session claims, works and ends (the agent's end-of-session hook, or the stated live
//   limit where the agent has none); the next new session resumes its issue.
// - fork: a session forked from an ended one (Claude Code's `--resume <id> --fork-session`, SessionStart
//   source `fork`, a new session id whose conversation is a copy of its parent's): it gets a block
//   of its own, naming the issue its parent claimed, not the parent's start block.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createAgentHarness, type AgentHarness, type AgentKind, type AgentTurn, type HarnessOptions } from './harness';
import type { RecordedRequest, ScriptStep } from './modelStandin';
import { expectHooksAnsweredInTime, expectNoEgress, ok } from './scenario';

/** In progress from before any session (test/fixtures/make-workspace.mjs SCENARIO.inProgress). */
const OLDER = 'demo-1';
/** Ready issues of the demo workspace (SCENARIO.readyWithParent): the sessions' own. */
const ALPHA = 'demo-8';
const BETA = 'demo-9';

const claimAndWrite = (issue: string, file: string) => [{ shell: `br update ${issue} --claim --json` }, { write: { path: file, content: `${file} work\n` } }];

// Each prompt's first word is its step (./modelStandin.ts); no word is the start of another.
const SCRIPT: ScriptStep[] = [
  { when: 'ALPHACLAIM', turns: [...claimAndWrite(ALPHA, 'alpha.txt'), { text: `Claimed ${ALPHA} and wrote alpha.txt.` }] },
  { when: 'ALPHAHELD', turns: [...claimAndWrite(ALPHA, 'alpha.txt'), { text: `Claimed ${ALPHA} and wrote alpha.txt.`, gate: 'alpha-claim' }] },
  { when: 'BETAHELD', turns: [...claimAndWrite(BETA, 'beta.txt'), { text: `Claimed ${BETA} and wrote beta.txt.`, gate: 'beta-claim' }] },
  { when: 'ALPHASHARE', turns: [{ write: { path: 'alpha.txt', content: 'alpha.txt work\n' } }, { text: 'Wrote alpha.txt.', gate: 'alpha-share' }] },
  { when: 'BETASHARE', turns: [{ write: { path: 'beta.txt', content: 'beta.txt work\n' } }, { text: 'Wrote beta.txt.', gate: 'beta-share' }] },
  { when: 'ALPHAWAIT', turns: [{ text: 'Still on my issue.', gate: 'alpha-wait' }] },
  { when: 'ALPHANEXT', turns: [{ text: 'Going on with my issue.' }] },
  { when: 'BETANEXT', turns: [{ text: 'Going on with my issue.' }] },
  { when: 'NEWCHAT', turns: [{ text: 'Picking the work up.' }] },
  { when: 'FORKED', turns: [{ text: 'Going on from the fork.' }] },
];

/**
 * The issue the newest recovery block of a request names: a block's "Resuming: <id>", or a
 * correction's "this session's issue is now <id>"; null for a correction that names none, undefined
 * for a request with no block.
 */
export function newestBlockIssue(text: string): string | null | undefined {
  const marks = [...text.matchAll(/## (?:Resuming: |Correction: this session's issue is now )([A-Za-z0-9._-]+)|## Correction: \S+ is no longer this session's issue/g)];
  const newest = marks.at(-1);
  return newest ? (newest[1] ?? null) : undefined;
}

/** The commands a block offers for an issue: its checkpoint and its close. */
const commandsFor = (issue: string) => new RegExp(`comments add -- ${issue}\\b|close --reason.{0,40}?-- ${issue}\\b`);

/** A session's own turn requests in a run: the ones whose conversation holds its step word. */
const turnsIn = (requests: RecordedRequest[], word: string) => requests.filter((request) => request.kind === 'turn' && request.text.includes(word));
const turnsOf = (turn: AgentTurn, word: string) => turnsIn(turn.requests, word);
const firstTurn = (turn: AgentTurn, word: string): RecordedRequest => {
  const first = turnsOf(turn, word)[0];
  expect(first, `a request of ${word}`).toBeDefined();
  return first as RecordedRequest;
};

/** A session's pre-compaction checkpoints on an issue. */
const checkpointsOn = (harness: AgentHarness, issue: string) => harness.comments(issue).filter((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));

/** The checkpoint's own lines: everything but the line of changes it does not attribute to the session. */
const ownLines = (text: string) => text.split('\n').filter((line) => !line.startsWith('- Also changed here')).join('\n');

/** One of the two overlapping sessions: its issue, its file, the gate holding its first answer and its step word after a compaction. */
interface OverlapSide {
  name: string;
  issue: string;
  file: string;
  gate: string;
  next: string;
}
const ALPHA_SIDE: OverlapSide = { name: 'alpha', issue: ALPHA, file: 'alpha.txt', gate: 'alpha-claim', next: 'ALPHANEXT' };
const BETA_SIDE: OverlapSide = { name: 'beta', issue: BETA, file: 'beta.txt', gate: 'beta-claim', next: 'BETANEXT' };

/**
 * One session compacts while the other is live (its answer held): the session's first run, held at
 * its gate, is let finish and compacted. Its one checkpoint is on its own issue with its own file and
 * not the other's (outside the "Also changed here" line); resumed, its newest block names its own
 * issue and offers none of the other's commands. Returns the session's first run.
 */
async function compactWhileOtherLive(harness: AgentHarness, run: Promise<AgentTurn>, own: OverlapSide, other: OverlapSide): Promise<AgentTurn> {
  harness.standin.open(own.gate);
  const started = ok(await run);
  ok(await harness.compact(started.session));
  const checkpoints = checkpointsOn(harness, own.issue);
  expect(checkpoints, `${own.issue}'s comments: ${JSON.stringify(harness.comments(own.issue))}`).toHaveLength(1);
  expect(checkpoints[0]?.text).toContain(own.file);
  expect(ownLines(checkpoints[0]?.text ?? '')).not.toContain(other.file);
  const next = ok(await harness.resume(started.session, `${own.next} go on`));
  expect(newestBlockIssue(firstTurn(next, own.next).text), `${own.name}'s newest block after its compaction`).toBe(own.issue);
  for (const request of turnsOf(next, own.next)) expect(request.text).not.toMatch(commandsFor(other.issue));
  return started;
}

export interface OwnIssueOptions {
  /**
   * How a session ends for our hooks: 'hook', the agent's own end-of-session hook (Claude Code and
   * Gemini CLI SessionEnd); 'idle', the stated live limit (BEADS_RECOVERY_SESSION_LIVE_MINUTES)
   * where the agent has no such hook.
   */
  ends: 'hook' | 'idle';
  /** Cases the agent cannot express, each with the reason: reported as skipped with it. */
  cannot?: Partial<Record<CaseId, string>>;
  /** Cases the product does not pass yet in this agent, each with what was seen: reported as pending (todo), not run. */
  pending?: Partial<Record<CaseId, string>>;
}

type CaseId = 'claim-then-resume' | 'overlapping' | 'shared' | 'ended' | 'fork';

/** Registers the cases for one agent. */
export function describeOwnIssueScenarios(agent: AgentKind, options: OwnIssueOptions): void {
  const harnesses: AgentHarness[] = [];
  const harnessFor = async (extra: Partial<HarnessOptions> = {}) => {
    const harness = await createAgentHarness({ agent, dialect: 'br', script: SCRIPT, ...extra });
    harnesses.push(harness);
    return harness;
  };
  const scenario = (id: CaseId, title: string, body: (context: { harnesses: AgentHarness[] }) => Promise<void>) => {
    const reason = options.cannot?.[id];
    const pending = options.pending?.[id];
    if (reason) it.skip(`${title} (cannot: ${reason})`, () => undefined);
    else if (pending) it.todo(`${title} (pending: ${pending})`);
    else
      it(title, async () => {
        try {
          await body({ harnesses });
        } finally {
          await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
        }
      });
  };

  scenario('claim-then-resume', 'a claim after start, then a resume without a compaction: the newest block names the claimed issue', async () => {
    const harness = await harnessFor();
    const start = ok(await harness.start('ALPHACLAIM claim your issue and write alpha.txt'));
    // The start block resumed the folder's older in-progress issue: the claim came after it.
    expect(newestBlockIssue(firstTurn(start, 'ALPHACLAIM').text)).toBe(OLDER);
    const resumed = ok(await harness.resume(start.session, 'ALPHANEXT go on'));
    const first = firstTurn(resumed, 'ALPHANEXT');
    expect(newestBlockIssue(first.text), 'the newest block of the resumed session').toBe(ALPHA);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  scenario('overlapping', 'two sessions overlapping in one folder: each claims its own issue, and neither is handed the other’s issue, commands or files, before a compaction and after one', async () => {
    const harness = await harnessFor();
    const { standin } = harness;
    // Session alpha claims demo-8 and writes alpha.txt; its model is still answering (held) when beta starts.
    const alphaRun = harness.start('ALPHAHELD claim your issue and write alpha.txt');
    await standin.reached('alpha-claim');
    const betaRun = harness.start('BETAHELD claim your issue and write beta.txt');
    await standin.reached('beta-claim');
    // Both sessions are live and each holds its claim. Beta's start block does not hand it alpha's issue.
    const betaStarted = turnsIn(standin.conversationRequests(), 'BETAHELD');
    expect(betaStarted.length).toBeGreaterThan(0);
    expect(newestBlockIssue(betaStarted[0]?.text ?? ''), 'what beta was handed at its start').not.toBe(ALPHA);
    for (const request of betaStarted) expect(request.text, "beta's requests offer alpha's commands").not.toMatch(commandsFor(ALPHA));
    expect(betaStarted[0]?.text, "alpha's issue is listed as held by a live session").toMatch(new RegExp(`(?:in progress in other live sessions|In Progress in Other Live Sessions)[^#]*${ALPHA}`, 'i'));

    // Alpha compacts while beta is live (held), then beta while alpha is live again (held).
    const alpha = await compactWhileOtherLive(harness, alphaRun, ALPHA_SIDE, BETA_SIDE);
    const alphaWait = harness.resume(alpha.session, 'ALPHAWAIT keep going');
    await standin.reached('alpha-wait');
    const beta = await compactWhileOtherLive(harness, betaRun, BETA_SIDE, ALPHA_SIDE);
    expect(beta.session).not.toBe(alpha.session);
    standin.open('alpha-wait');
    ok(await alphaWait);

    // No checkpoint landed on the other's issue or on the older one.
    expect(checkpointsOn(harness, ALPHA)).toHaveLength(1);
    expect(checkpointsOn(harness, OLDER)).toEqual([]);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  scenario('shared', 'two sessions overlapping on one issue neither claimed: each checkpoint names only its own session’s file', async () => {
    const harness = await harnessFor();
    const { standin } = harness;
    // Both are handed the folder's older in-progress issue; each writes its file, its answer held.
    const alphaRun = harness.start('ALPHASHARE work on the issue and write alpha.txt');
    await standin.reached('alpha-share');
    const betaRun = harness.start('BETASHARE work on the issue and write beta.txt');
    await standin.reached('beta-share');
    expect(newestBlockIssue(turnsIn(standin.conversationRequests(), 'BETASHARE')[0]?.text ?? ''), 'what beta was handed at its start').toBe(OLDER);

    expect(fs.existsSync(path.join(harness.dir, 'beta.txt')), 'beta wrote its file before alpha compacts').toBe(true);
    // Alpha compacts while beta is live: its checkpoint holds alpha.txt, and beta.txt only as a change it does not attribute.
    standin.open('alpha-share');
    const alpha = ok(await alphaRun);
    ok(await harness.compact(alpha.session));
    const afterAlpha = checkpointsOn(harness, OLDER);
    expect(afterAlpha, `${OLDER}'s comments: ${JSON.stringify(harness.comments(OLDER))}`).toHaveLength(1);
    expect(afterAlpha[0]?.text).toContain('alpha.txt');
    expect(ownLines(afterAlpha[0]?.text ?? '')).not.toContain('beta.txt');

    // Then beta: its own checkpoint holds beta.txt, and alpha.txt only on that line.
    standin.open('beta-share');
    const beta = ok(await betaRun);
    expect(beta.session).not.toBe(alpha.session);
    ok(await harness.compact(beta.session));
    const betaCheckpoints = checkpointsOn(harness, OLDER).filter((comment) => comment.text !== afterAlpha[0]?.text);
    expect(betaCheckpoints, `${OLDER}'s comments: ${JSON.stringify(harness.comments(OLDER))}`).toHaveLength(1);
    expect(betaCheckpoints[0]?.text).toContain('beta.txt');
    expect(ownLines(betaCheckpoints[0]?.text ?? '')).not.toContain('alpha.txt');
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  scenario('fork', 'a fork of an ended session gets a block of its own, naming the issue its parent claimed', async () => {
    const harness = await harnessFor();
    const parent = ok(await harness.start('ALPHACLAIM claim your issue and write alpha.txt'));
    const fork = ok(await harness.fork(parent.session, 'FORKED go on from here'));
    expect(fork.session, 'the fork is a session of its own').not.toBe(parent.session);
    expect(fork.session).not.toBe('');
    // Its copy of the parent's conversation holds the parent's start block (demo-1); the newest is the fork's own.
    expect(newestBlockIssue(firstTurn(fork, 'FORKED').text), "the fork's newest block").toBe(ALPHA);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  scenario('ended', 'a session that ended: the next new session resumes its issue', async () => {
    // Where the agent has no end-of-session hook, a session is live until the stated limit passes.
    const liveSeconds = 3;
    const harness = await harnessFor(options.ends === 'idle' ? { env: { BEADS_RECOVERY_SESSION_LIVE_MINUTES: String(liveSeconds / 60) } } : {});
    const first = ok(await harness.start('ALPHACLAIM claim your issue and write alpha.txt'));
    expect(harness.comments(ALPHA)).toBeDefined();
    if (options.ends === 'idle') await new Promise((resolve) => setTimeout(resolve, (liveSeconds + 1) * 1000));
    else expect(harness.hookRuns().map((run) => run.event), 'the end-of-session hook ran').toContain('SessionEnd');
    const next = ok(await harness.start('NEWCHAT pick the work up'));
    expect(next.session).not.toBe(first.session);
    expect(newestBlockIssue(firstTurn(next, 'NEWCHAT').text), 'what the new session was handed').toBe(ALPHA);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });
}
