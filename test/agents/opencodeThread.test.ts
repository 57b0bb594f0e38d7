// opencode's own thread across a real compaction (issue 30, item 4): opencode, for real, against the
// Anthropic stand-in, with our plugin. The session claims its own issue (demo-8, while demo-1 is
// the folder's older in-progress issue), runs the parser's tests (a real Python run: `1 failed,
// 9 passed`, a KeyError), edits the parser, asks the user a question; then opencode compacts by
// its own measure. The checkpoint written before the compaction is on the session's own issue and
// carries its request, failing command, question and file; the block after it resumes that issue,
// and so does what a later resume of the session sends.
//
// With BEADS_RECOVERY_RECORD_TRANSCRIPTS=1 the run also saves the transcript our plugin wrote for
// the hook (the session's messages as opencode's SDK gives them), machine paths scrubbed, as
// test/fixtures/transcripts/opencode/nested-keys.jsonl (the reader's fixture).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHarness, REPO, type AgentHarness } from './harness';
import type { ScriptStep } from './modelStandin';
import { expectHooksAnsweredInTime, expectNoEgress, ok } from './scenario';
import { NESTED_KEYS_PROJECT as PROJECT, NESTED_KEYS_QUESTION as QUESTION, NESTED_PARSER } from './nestedKeys';
import { scrubTranscript } from './transcriptFixtures';

// A ready issue of the demo workspace (test/fixtures/make-workspace.mjs SCENARIO.readyWithParent);
// demo-1 is in progress from before the session.
const OWN = 'demo-8';
// The same request as the other agents' thread scenario (./thread.test.ts), so the recorded
// transcript is read by the same fixture tests (test/unit/core/transcript.test.ts).
const REQUEST = 'NESTED Make the parser accept nested keys like a.b = 1 (get(config, "a.b") must work). Claim your issue first.';

const SCRIPT: ScriptStep[] = [
  {
    when: 'NESTED',
    turns: [
      { shell: `br update ${OWN} --claim --json` },
      { shell: 'python3 test_parser.py' },
      { write: { path: 'parser.py', content: NESTED_PARSER } },
      { text: QUESTION },
    ],
  },
  { when: 'RESUME', turns: [{ text: 'Picking the work up again.' }] },
];

const FACTS = ['accept nested keys', 'python3 test_parser.py', '1 failed, 9 passed', "KeyError: 'a'", 'rejected or flattened?', 'parser.py'];

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('opencode: its own thread and its own issue across a real compaction', () => {
  it('the pre-compaction checkpoint is on its claimed issue with its request, failing command, question and file; the block after it and a later resume name that issue', async () => {
    harness = await createAgentHarness({ agent: 'opencode', dialect: 'br', script: SCRIPT });
    for (const name of ['parser.py', 'test_parser.py']) fs.copyFileSync(path.join(PROJECT, name), path.join(harness.dir, name));
    const { session } = ok(await harness.start(REQUEST));
    const compacted = ok(await harness.compact(session));

    // The transcript our plugin wrote for the hook: the session's messages, one a line.
    const transcript = path.join(os.tmpdir(), `beads-recovery-${process.getuid?.() ?? 'user'}`, 'transcripts', `opencode-${session}.jsonl`);
    expect(fs.existsSync(transcript), 'the plugin wrote the session transcript').toBe(true);
    if (process.env.BEADS_RECOVERY_RECORD_TRANSCRIPTS) {
      const target = path.join(REPO, 'test', 'fixtures', 'transcripts', 'opencode', 'nested-keys.jsonl');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const machine = { [harness.dir]: '/project', [harness.home]: '/home', [REPO]: '/repo' };
      fs.writeFileSync(target, scrubTranscript(fs.readFileSync(transcript, 'utf8'), machine));
    }

    const checkpoints = harness.comments(OWN).filter((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
    expect(checkpoints, `${OWN}'s comments: ${JSON.stringify(harness.comments(OWN))}`).toHaveLength(1);
    for (const fact of FACTS) expect(checkpoints[0]?.text, `the checkpoint carries ${fact}`).toContain(fact);
    // Not on the folder's older in-progress issue, which this session never claimed.
    expect(harness.comments('demo-1').filter((comment) => comment.text.startsWith('Auto-checkpoint'))).toEqual([]);

    // The request right after the summary carries the block, and it resumes the session's own issue.
    const afterSummary = compacted.requests.filter((request) => request.kind === 'turn').at(-1)?.text ?? '';
    const resuming = [...afterSummary.matchAll(/## Resuming: (\S+)/g)].map((match) => match[1]);
    expect(resuming.at(-1), afterSummary.slice(-3000)).toBe(OWN);
    for (const fact of ['accept nested keys', '1 failed, 9 passed', 'rejected or flattened?']) expect(afterSummary, `the block after the compaction carries ${fact}`).toContain(fact);

    // Resumed later (a new `opencode run --session`): every block the conversation it sends holds
    // resumes the session's own issue, never the folder's older one.
    const resumed = ok(await harness.resume(session, 'RESUME go on'));
    const first = resumed.requests.find((request) => request.kind === 'turn')?.text ?? '';
    expect(new Set([...first.matchAll(/## Resuming: (\S+)/g)].map((match) => match[1])), first.slice(-3000)).toEqual(new Set([OWN]));
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
    fs.rmSync(transcript, { force: true });
  });
});
