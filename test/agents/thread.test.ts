// The session's thread survives a real compaction (issue: the agent's own thread). Claude Code,
// for real, against the Anthropic stand-in: asked to make a parser accept nested keys, it runs the
// parser's tests (a real Python run: `1 failed, 9 passed`, a KeyError), edits the parser, asks the
// user whether deeper keys should be rejected or flattened; then /compact. The checkpoint written
// before the compaction and the context the model gets after it carry those facts.
//
// With BEADS_RECOVERY_RECORD_TRANSCRIPTS=1 the run also saves its transcript, machine paths
// scrubbed, as test/fixtures/transcripts/claude/nested-keys.jsonl (the bench's recall fixture).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHarness, REPO, type AgentHarness, type AgentTurn } from './harness';
import type { ScriptStep } from './modelStandin';
import { expectHooksAnsweredInTime, expectNoEgress } from './scenario';
import { scrubTranscript } from './transcriptFixtures';

const PROJECT = path.join(REPO, 'test', 'agents', 'projects', 'nested-keys');

const REQUEST = 'NESTED Make the parser accept nested keys like a.b = 1 (get(config, "a.b") must work).';
const QUESTION = 'Nested keys of two levels now parse. Should deeper keys like a.b.c.d be rejected or flattened?';
const NESTED_PARSER = `"""A tiny config parser: one \`key = value\` per line; dotted keys nest."""


def parse(text):
    config = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        *parents, leaf = key.strip().split(".")
        node = config
        for part in parents[:1]:
            node = node.setdefault(part, {})
        node[leaf] = value.strip()
    return config


def get(config, dotted):
    node = config
    for part in dotted.split("."):
        node = node[part]
    return node
`;

export const NESTED_KEYS_SCRIPT: ScriptStep[] = [
  {
    when: 'NESTED',
    turns: [
      { shell: 'python3 test_parser.py' },
      { write: { path: 'parser.py', content: NESTED_PARSER } },
      { text: QUESTION },
    ],
  },
  { when: 'RESUME', turns: [{ text: 'Picking the work up again.' }] },
];

const harnesses: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

function ok(turn: AgentTurn): AgentTurn {
  expect(turn.exitCode, `claude exited ${turn.exitCode}\n${turn.stderr}\n${turn.stdout}`).toBe(0);
  return turn;
}

describe('the session thread across a real compaction (Claude Code)', () => {
  it('the request, the failing test, the open question and the edited file are in the checkpoint and reach the model after /compact', async () => {
    const harness = await createAgentHarness({ agent: 'claude', script: NESTED_KEYS_SCRIPT });
    harnesses.push(harness);
    for (const name of ['parser.py', 'test_parser.py']) fs.copyFileSync(path.join(PROJECT, name), path.join(harness.dir, name));

    const { session } = ok(await harness.start(REQUEST));
    ok(await harness.compact(session));
    const resumed = ok(await harness.resume(session, 'RESUME go on'));
    if (process.env.BEADS_RECOVERY_RECORD_TRANSCRIPTS) {
      const transcript = harness.transcriptPath(session);
      expect(transcript).toBeDefined();
      const target = path.join(REPO, 'test', 'fixtures', 'transcripts', 'claude', 'nested-keys.jsonl');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, scrubTranscript(fs.readFileSync(transcript as string, 'utf8'), { [harness.dir]: '/project', [harness.dir.replace(/[^A-Za-z0-9]/g, '-')]: '-project', [harness.home]: '/home', [REPO]: '/repo' }));
    }

    const checkpoint = [...harness.comments('demo-1')].reverse().find((comment) => comment.text.startsWith('Auto-checkpoint (pre-compaction)'));
    expect(checkpoint?.text).toContain('Make the parser accept nested keys');
    expect(checkpoint?.text).toContain('1 failed, 9 passed');
    expect(checkpoint?.text).toContain("KeyError: 'a'");
    expect(checkpoint?.text).toContain('rejected or flattened?');
    expect(checkpoint?.text).toContain('parser.py');

    const request = resumed.requests[0]?.text ?? '';
    for (const fact of ['Make the parser accept nested keys', '1 failed, 9 passed', 'test_nested_keys', "KeyError: 'a'", 'rejected or flattened?', 'parser.py']) {
      expect(request, `the model's request after /compact carries ${fact}`).toContain(fact);
    }
    expectHooksAnsweredInTime(harness);
    expectNoEgress(harness);

  });
});
