// The session's thread on real transcripts (issue 26): for each case of the corpus
// (test/fixtures/transcripts/real/, METHOD.md there), the facts a colleague taking over needs —
// written by hand before our code ran on them — that the recovery context carries, and the false
// statements it makes, at the 2 KB default and at the agent's own hook limit. The context is the
// command line's over the scenario workspace (stand-in br), with the thread read from the
// transcript as a hook reads it (the session's own lines, its files relative to its folder).
// Figures per agent and in total; then every case that falls short, and why.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TRANSCRIPT_AGENTS } from '../../src/core/agentEvents';
import { hookSurfaceBudget } from '../../src/core/agents';
import { recoveryContextFor } from '../../src/bin/context';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';
import { caseThread, corpusCases, judge, loadTranscript, understoodBy } from './realTranscripts';

interface Tally {
  facts: number;
  carried: number;
  falseSaid: number;
  /** Cases whose transcript the reader did not understand (the context says "thread unavailable"). */
  notUnderstood: number;
}

const BUDGETS = ['2 KB', 'limit'] as const;

export async function benchThreadCorpus({ repo }: { repo: string }): Promise<void> {
  const cases = corpusCases(repo);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'beads-bench-corpus-'));
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
  const tallies = new Map<string, Record<(typeof BUDGETS)[number], Tally>>();
  const tally = (key: string) => {
    let found = tallies.get(key);
    if (!found) tallies.set(key, (found = { '2 KB': { facts: 0, carried: 0, falseSaid: 0, notUnderstood: 0 }, limit: { facts: 0, carried: 0, falseSaid: 0, notUnderstood: 0 } }));
    return found;
  };
  const unavailable: string[] = [];
  const notUnderstood: string[] = [];
  const shortfalls: string[] = [];
  try {
    const dir = makeWorkspace({ dir: path.join(scratch, 'scenario'), dialect: 'br', data: 'scenario', git: true }).dir;
    console.log(`real transcripts: ${cases.length} cases (facts written by hand before our code ran on them; METHOD.md beside the corpus)`);
    console.log(`${'case'.padEnd(40)} ${'2 KB: facts, false'.padEnd(22)} agent's limit: facts, false`);
    for (const item of cases) {
      const label = `${item.agent}/${item.name}`;
      const loaded = loadTranscript(repo, item);
      if ('unavailable' in loaded) {
        unavailable.push(`${label}: ${loaded.unavailable}`);
        continue;
      }
      const { events, thread } = caseThread(item, loaded.records);
      const limit = hookSurfaceBudget(item.agent).bytes;
      const context = async (budget: number, withThread: boolean) => (await recoveryContextFor(dir, { budget, env, thread: withThread ? thread : undefined })).markdown;
      const rows = {
        '2 KB': judge(item, await context(2048, true), await context(2048, false)),
        limit: judge(item, await context(limit, true), await context(limit, false)),
      };
      // BEADS_RECOVERY_CORPUS_SHOW=<agent>/<name> prints that case's context at the agent's limit, to see why it falls short.
      if (process.env.BEADS_RECOVERY_CORPUS_SHOW === label) console.log(`--- context of ${label} at ${limit} bytes ---\n${await context(limit, true)}\n---`);
      const understood = understoodBy(events) && !/thread unavailable/i.test(await context(limit, true));
      if (!understood) notUnderstood.push(label);
      for (const budget of BUDGETS) {
        for (const key of [item.agent, 'total']) {
          const counts = tally(key)[budget];
          counts.facts += item.facts.length;
          counts.carried += item.facts.length - rows[budget].missing.length;
          counts.falseSaid += rows[budget].falseSaid.length;
          if (!understood) counts.notUnderstood += 1;
        }
      }
      const cell = (budget: (typeof BUDGETS)[number]) => `${item.facts.length - rows[budget].missing.length}/${item.facts.length}, ${rows[budget].falseSaid.length}`;
      console.log(`${label.padEnd(40)} ${cell('2 KB').padEnd(22)} ${cell('limit')} (${limit} bytes)${understood ? '' : ' — not understood'}`);
      const reasons = [
        ...new Set([
          ...rows.limit.missing.map((fact) => `missing at the limit: ${fact}`),
          ...rows['2 KB'].missing.filter((fact) => !rows.limit.missing.includes(fact)).map((fact) => `missing at 2 KB: ${fact}`),
          ...rows.limit.falseSaid.map((fact) => `false at the limit: ${fact}`),
          ...rows['2 KB'].falseSaid.filter((fact) => !rows.limit.falseSaid.includes(fact)).map((fact) => `false at 2 KB: ${fact}`),
        ]),
      ];
      if (reasons.length > 0 || !understood) shortfalls.push(`${label}${understood ? '' : ' (not understood: no request and no tool call read)'}${reasons.map((reason) => `\n    - ${reason}`).join('')}`);
    }
    console.log('');
    console.log(`${'agent'.padEnd(12)} ${'recall at 2 KB'.padEnd(20)} ${'false at 2 KB'.padEnd(15)} ${'recall at limit'.padEnd(20)} ${'false at limit'.padEnd(16)} not understood`);
    for (const key of [...TRANSCRIPT_AGENTS, 'total']) {
      const found = tallies.get(key);
      if (!found) continue;
      const recall = (counts: Tally) => `${counts.carried}/${counts.facts} = ${percent(counts.carried, counts.facts)}`;
      console.log(`${key.padEnd(12)} ${recall(found['2 KB']).padEnd(20)} ${String(found['2 KB'].falseSaid).padEnd(15)} ${recall(found.limit).padEnd(20)} ${String(found.limit.falseSaid).padEnd(16)} ${found.limit.notUnderstood}`);
    }
    console.log(`transcripts not understood: ${notUnderstood.length}${notUnderstood.length > 0 ? ` (${notUnderstood.join(', ')})` : ''}`);
    if (unavailable.length > 0) console.log(`cases not run (${unavailable.length}):\n  ${unavailable.join('\n  ')}`);
    if (shortfalls.length > 0) console.log(`\ncases that fall short (${shortfalls.length}):\n  ${shortfalls.join('\n  ')}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function percent(count: number, of: number): string {
  return of === 0 ? '—' : `${Math.round((100 * count) / of)} %`;
}

