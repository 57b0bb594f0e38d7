// The whole real-transcript corpus (test/fixtures/transcripts/real/, METHOD.md there) through the
// readers and the thread, in the command line's recovery context at each agent's hook limit, as
// `npm run bench thread` measures it. A false statement fails the test; so does recall below the
// floor: the figure the corpus reached when this floor was last raised. Raise the floor when the
// thread carries more; never lower it to let a change through.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookSurfaceBudget } from '../../../src/core/agents';
import { recoveryContextFor } from '../../../src/bin/context';
import { caseThread, corpusCases, judge, loadTranscript, understoodBy } from '../../../scripts/bench/realTranscripts';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';

const REPO = path.join(__dirname, '..', '..', '..');

/** Facts carried at each agent's limit, of all the corpus's facts, when the floor was last raised. */
const RECALL_FLOOR = { carried: 72, of: 81 };

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'beads-corpus-test-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('the thread on the real-transcript corpus, at each agent limit', () => {
  it(`makes no false statement and carries at least ${RECALL_FLOOR.carried} of ${RECALL_FLOOR.of} facts`, async () => {
    const dir = makeWorkspace({ dir: path.join(scratch, 'scenario'), dialect: 'br', data: 'scenario', git: true }).dir;
    const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
    const falseSaid: string[] = [];
    const missing: string[] = [];
    const notRead: string[] = [];
    let facts = 0;
    for (const item of corpusCases(REPO)) {
      const label = `${item.agent}/${item.name}`;
      const loaded = loadTranscript(REPO, item);
      if ('unavailable' in loaded) {
        notRead.push(`${label}: ${loaded.unavailable}`);
        continue;
      }
      const { events, thread } = caseThread(item, loaded.records);
      if (!understoodBy(events)) notRead.push(`${label}: neither a request nor a tool call read`);
      const budget = hookSurfaceBudget(item.agent).bytes;
      const withThread = (await recoveryContextFor(dir, { budget, env, thread })).markdown;
      const withoutThread = (await recoveryContextFor(dir, { budget, env })).markdown;
      const row = judge(item, withThread, withoutThread);
      facts += item.facts.length;
      falseSaid.push(...row.falseSaid.map((statement) => `${label}: ${statement}`));
      missing.push(...row.missing.map((fact) => `${label}: ${fact}`));
    }
    expect(notRead).toEqual([]);
    expect(falseSaid).toEqual([]);
    expect(facts).toBeGreaterThanOrEqual(RECALL_FLOOR.of);
    const carried = facts - missing.length;
    const report = `carried ${carried} of ${facts}; missing:\n${missing.join('\n')}`;
    expect(carried, report).toBeGreaterThanOrEqual(RECALL_FLOOR.carried);
    expect(carried / facts, report).toBeGreaterThanOrEqual(RECALL_FLOOR.carried / RECALL_FLOOR.of);
  }, 300_000);
});
