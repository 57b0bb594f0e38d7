// Two real Claude Code sessions in one beads folder, each claiming its own issue and editing its
// own file (issue 19). Each compaction checkpoints the session's own issue naming only its own
// file, and the next turn resumes that same issue — also for the first session, whose issue is
// the older one. The sessions are told apart by nothing but what Claude Code sends our hooks (the
// session id and transcript path) and what it records in its transcript.
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHarness, type AgentHarness } from './harness';
import type { ScriptStep } from './modelStandin';
import { ok } from './scenario';

// Ready issues of the demo workspace (test/fixtures/make-workspace.mjs SCENARIO.readyWithParent).
const ALPHA = 'demo-8';
const BETA = 'demo-9';

const SCRIPT: ScriptStep[] = [
  { when: 'ALPHA1', turns: [{ shell: `br update ${ALPHA} --claim --json` }, { write: { path: 'alpha.txt', content: 'alpha work\n' } }, { text: `Claimed ${ALPHA} and wrote alpha.txt.` }] },
  { when: 'BETA1', turns: [{ shell: `br update ${BETA} --claim --json` }, { write: { path: 'beta.txt', content: 'beta work\n' } }, { text: `Claimed ${BETA} and wrote beta.txt.` }] },
  { when: 'ALPHA2', turns: [{ text: 'Going on with my issue.' }] },
  { when: 'BETA2', turns: [{ text: 'Going on with my issue.' }] },
];

const resumingIn = (text: string) => [...text.matchAll(/## Resuming: (\S+)/g)].map((match) => match[1]);

describe('Claude Code: two sessions in one folder', () => {
  let harness: AgentHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('each compaction checkpoints the session’s own issue with only its own file, and hands that issue back though the other is newer', async () => {
    harness = await createAgentHarness({ agent: 'claude', dialect: 'br', script: SCRIPT });
    const alpha = ok(await harness.start('ALPHA1 claim your issue and write alpha.txt'));
    // The second session claims later: its issue is the most recently updated one from now on.
    const beta = ok(await harness.start('BETA1 claim your issue and write beta.txt'));
    expect(alpha.session).not.toBe(beta.session);

    for (const [turn, own, ownFile, otherFile, next] of [
      [alpha, ALPHA, 'alpha.txt', 'beta.txt', 'ALPHA2 go on'],
      [beta, BETA, 'beta.txt', 'alpha.txt', 'BETA2 go on'],
    ] as const) {
      ok(await harness.compact(turn.session));
      const checkpoints = harness.comments(own).filter((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
      expect(checkpoints, `${own}'s comments: ${JSON.stringify(harness.comments(own))}`).toHaveLength(1);
      expect(checkpoints[0]?.text).toContain(ownFile);
      expect(checkpoints[0]?.text).not.toContain(otherFile);
      const resumed = ok(await harness.resume(turn.session, next));
      const first = resumed.requests.find((request) => request.kind === 'turn');
      // Every block the conversation holds (the one handed after the compaction, and any the summary
      // kept) resumes the session's own issue, never the other's.
      expect(new Set(resumingIn(first?.text ?? '')), `what ${own}'s session was handed`).toEqual(new Set([own]));
    }
    // Neither session's checkpoint landed on the other's issue, nor on the demo's own issue.
    for (const issue of ['demo-1']) expect(harness.comments(issue).filter((comment) => comment.text.startsWith('Auto-checkpoint'))).toEqual([]);
  });
});
