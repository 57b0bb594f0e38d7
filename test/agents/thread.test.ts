// The session's thread survives a real compaction (issue: the agent's own thread). Claude Code,
// for real, against the Anthropic stand-in: asked to make a parser accept nested keys, it runs the
// parser's tests (a real Python run: `1 failed, 9 passed`, a KeyError), edits the parser, asks the
// user whether deeper keys should be rejected or flattened; then /compact. The checkpoint written
// before the compaction and the context the model gets after it carry those facts.
//
// With BEADS_RECOVERY_RECORD_TRANSCRIPTS=1 each run also saves its transcript, machine paths
// scrubbed, as test/fixtures/transcripts/<agent>/nested-keys.* (the readers' and the bench's fixtures).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHarness, REPO, type AgentHarness, type AgentKind } from './harness';
import type { ScriptStep } from './modelStandin';
import { expectHooksAnsweredInTime, expectNoEgress, ok } from './scenario';
import { NESTED_KEYS_PROJECT as PROJECT, NESTED_KEYS_QUESTION as QUESTION, NESTED_PARSER } from './nestedKeys';
import { scrubTranscript } from './transcriptFixtures';
import { sessionThread } from '../../src/core/transcriptThread';
import { readTranscript } from '../../src/services/transcripts/readTranscript';

const REQUEST = 'NESTED Make the parser accept nested keys like a.b = 1 (get(config, "a.b") must work).';

export const NESTED_KEYS_SCRIPT: ScriptStep[] = [
  {
    when: 'NESTED',
    turns: [
      { shell: 'python3 test_parser.py' },
      { write: { path: 'parser.py', content: NESTED_PARSER } },
      { text: QUESTION },
    ],
  },
  {
    when: 'FIXED',
    turns: [
      { shell: 'python3 test_parser.py' },
      { write: { path: 'parser.py', content: NESTED_PARSER } },
      { shell: 'python3 test_parser.py' },
      { text: QUESTION },
    ],
  },
  { when: 'RESUME', turns: [{ text: 'Picking the work up again.' }] },
];

const harnesses: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

/** Runs the scenario: the request, its turns, /compact, then a new prompt. Saves the transcript as a fixture when asked. */
async function nestedKeysSession(agent: AgentKind, request = REQUEST) {
  const harness = await createAgentHarness({ agent, script: NESTED_KEYS_SCRIPT });
  harnesses.push(harness);
  for (const name of ['parser.py', 'test_parser.py']) fs.copyFileSync(path.join(PROJECT, name), path.join(harness.dir, name));
  const { session } = ok(await harness.start(request));
  ok(await harness.compact(session));
  const resumed = ok(await harness.resume(session, 'RESUME go on'));
  if (process.env.BEADS_RECOVERY_RECORD_TRANSCRIPTS && request === REQUEST) {
    const transcript = harness.transcriptPath(session);
    expect(transcript, `${agent} names its transcript`).toBeDefined();
    const target = path.join(REPO, 'test', 'fixtures', 'transcripts', agent, `nested-keys${path.extname(transcript as string)}`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const machine = { [harness.dir]: '/project', [harness.dir.replace(/[^A-Za-z0-9]/g, '-')]: '-project', [harness.home]: '/home', [REPO]: '/repo' };
    fs.writeFileSync(target, scrubTranscript(fs.readFileSync(transcript as string, 'utf8'), machine));
  }
  return { harness, session, resumed };
}

const FACTS = ['Make the parser accept nested keys', '1 failed, 9 passed', 'test_nested_keys', "KeyError: 'a'", 'rejected or flattened?', 'parser.py'];

describe('the session thread across a real compaction', () => {
  // Claude Code and Codex hand their hooks the transcript before a compaction (PreCompact) and the
  // context after it (SessionStart, source compact).
  it.each(['claude', 'codex'] as const)('%s: the request, the failing test, the open question and the edited file are in the checkpoint and reach the model after the compaction', async (agent) => {
    const { harness, resumed } = await nestedKeysSession(agent);
    // Codex compacts inside a turn the user starts (the harness's "COMPACT-NOW" prompt): its
    // question is then the last one, with that reply beside it, rather than an open one.
    const facts = FACTS;
    const checkpoint = [...harness.comments('demo-1')].reverse().find((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
    for (const fact of facts) expect(checkpoint?.text, `the checkpoint carries ${fact}`).toContain(fact);
    const request = resumed.requests[0]?.text ?? '';
    for (const fact of facts) expect(request, `the model's request after the compaction carries ${fact}`).toContain(fact);
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  // Failed, then fixed, then asked (issue 26): the resumed agent knows the fix, gets the question,
  // and is not told that the test it fixed still fails.
  it('claude: a failure fixed before the question is known as fixed after the compaction, and nothing stale is said', async () => {
    const { harness, resumed } = await nestedKeysSession('claude', REQUEST.replace('NESTED', 'FIXED'));
    const checkpoint = [...harness.comments('demo-1')].reverse().find((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
    const request = resumed.requests[0]?.text ?? '';
    for (const [where, text] of [['the checkpoint', checkpoint?.text ?? ''], ["the model's request after the compaction", request]] as const) {
      for (const fact of ['Make the parser accept nested keys', '10 passed', 'rejected or flattened?', 'parser.py']) expect(text, `${where} carries ${fact}`).toContain(fact);
      expect(text, `${where} does not call the fixed test failing`).not.toMatch(/Failing:/);
      expect(text, `${where} does not repeat the fixed error`).not.toContain("KeyError: 'a'");
    }
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);
  });

  // Gemini CLI and Copilot CLI: their transcripts are read into the same thread (recorded as
  // fixtures with BEADS_RECOVERY_RECORD_TRANSCRIPTS=1); how their hooks deliver is the hooks' suite.
  it.each(['gemini', 'copilot'] as const)('%s: the transcript it writes gives the request and the failing run; Copilot CLI\'s checkpoint carries the whole thread', async (agent) => {
    const { harness, session } = await nestedKeysSession(agent);
    const read = await readTranscript(harness.transcriptPath(session), 'auto');
    expect(read.agent).toBe(agent);
    // What the PreCompact checkpoint reads: the events before the compaction (Copilot CLI applies
    // its compaction within the run now, so the transcript holds one) or, where none was applied,
    // before the next prompt.
    const end = read.events.findIndex((event) => event.type === 'compaction' || (event.type === 'user' && event.text.startsWith('RESUME')));
    const thread = sessionThread(read.events.slice(0, end));
    expect(thread.requests.join('\n')).toContain('Make the parser accept nested keys');
    expect(thread.commands.find((run) => run.failed)).toMatchObject({ tests: { failed: 1, passed: 9 }, errorLine: "KeyError: 'a'" });
    if (agent === 'copilot') {
      // Copilot CLI names its session log to PreCompact: the checkpoint carries the thread too.
      const checkpoint = [...harness.comments('demo-1')].reverse().find((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
      for (const fact of FACTS) expect(checkpoint?.text, `the checkpoint carries ${fact}`).toContain(fact);
    }
  });
});
