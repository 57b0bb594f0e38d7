// Recall of the session's thread (issue 20): for each real transcript recorded by the real-agent
// suite (test/fixtures/transcripts/<agent>/*.jsonl), how many of the facts a resuming agent needs
// — written by hand beside it (<name>.facts.json), never derived from our extractor — the
// recovery context carries right after the compaction: without the thread (as before), at the
// 2 KB default, and at the agent's own hook limit (core/budget.ts). The context is the command
// line's, over the scenario workspace the suite ran in (stand-in br) and over the same issue grown
// busy, with the session's thread read from the transcript as it stood before the user wrote again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTranscriptAgent } from '../../src/core/agentEvents';
import { hookSurfaceBudget } from '../../src/core/agents';
import { transcriptEvents } from '../../src/core/transcript';
import { sessionThread, type SessionThread } from '../../src/core/transcriptThread';
import { recoveryContextFor } from '../../src/bin/context';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../test/fixtures/make-workspace.mjs';

interface Fact {
  fact: string;
  all?: string[];
  pattern?: string;
}

interface Carried {
  carried: number;
  of: number;
  missing: string[];
}

export async function benchThreadRecall({ repo }: { repo: string }): Promise<void> {
  const root = path.join(repo, 'test', 'fixtures', 'transcripts');
  const sessions = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isTranscriptAgent(entry.name))
    .flatMap((entry) => fs.readdirSync(path.join(root, entry.name)).filter((name) => name.endsWith('.facts.json')).map((name) => ({ agent: entry.name, name: name.replace(/\.facts\.json$/, '') })));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'beads-bench-recall-'));
  const env = { ...process.env, PATH: `${STANDIN_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, BEADS_RECOVERY_CLI: 'br' };
  const totals = { without: [0, 0], small: [0, 0], limit: [0, 0] };
  try {
    console.log('facts a resuming agent needs, carried by the context right after the compaction (hand-written facts per recorded session)');
    console.log(`${'session'.padEnd(30)} ${'without thread'.padEnd(16)} ${'2 KB'.padEnd(16)} agent's limit`);
    for (const { agent, name } of sessions) {
      if (!isTranscriptAgent(agent)) continue;
      const spec = JSON.parse(fs.readFileSync(path.join(root, agent, `${name}.facts.json`), 'utf8')) as { until?: string; facts: Fact[] };
      const records = fs
        .readFileSync(path.join(root, agent, `${name}.jsonl`), 'utf8')
        .split('\n')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as unknown];
          } catch {
            return [];
          }
        });
      const events = transcriptEvents(agent, records);
      const until = spec.until === undefined ? -1 : events.findIndex((event) => event.type === 'user' && event.text.startsWith(spec.until as string));
      const thread = sessionThread(until < 0 ? events : events.slice(0, until));
      const limit = hookSurfaceBudget(agent).bytes;
      // The workspace the suite ran in, and the same issue grown busy (long text, a months-old trail).
      for (const busy of [false, true]) {
        const dir = makeWorkspace({ dir: path.join(scratch, `${agent}-${name}-${busy ? 'busy' : 'plain'}`), dialect: 'br', data: 'scenario', git: true }).dir;
        if (busy) makeBusy(dir);
        const context = async (budget: number, withThread?: SessionThread) => (await recoveryContextFor(dir, { budget, env, thread: withThread })).markdown;
        const rows = {
          without: carried(spec.facts, await context(limit)),
          small: carried(spec.facts, await context(2048, thread)),
          limit: carried(spec.facts, await context(limit, thread)),
        };
        for (const key of ['without', 'small', 'limit'] as const) {
          totals[key][0] += rows[key].carried;
          totals[key][1] += rows[key].of;
        }
        console.log(`${`${agent}/${name}${busy ? ' (busy)' : ''}`.padEnd(30)} ${figure(rows.without).padEnd(16)} ${figure(rows.small).padEnd(16)} ${figure(rows.limit)} (${limit} bytes)`);
        const missing = [...new Set([...rows.small.missing.map((fact) => `${fact} (2 KB)`), ...rows.limit.missing.map((fact) => `${fact} (limit)`)])];
        if (missing.length > 0) console.log(`${''.padEnd(30)} missing: ${missing.join('; ')}`);
      }
    }
    const total = (pair: number[]) => `${pair[0]}/${pair[1]} = ${percent(pair[0] as number, pair[1] as number)}`;
    console.log(`${'recall, all sessions'.padEnd(30)} ${total(totals.without).padEnd(16)} ${total(totals.small).padEnd(16)} ${total(totals.limit)}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The in-progress issue of the workspace grown busy: long description, acceptance, notes and design, six comments from 24 weeks ago. */
function makeBusy(dir: string): void {
  const file = path.join(dir, '.beads', 'issues.jsonl');
  const records = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  const focused = records.find((record) => record.status === 'in_progress');
  if (focused) {
    focused.description = 'Read widgets.yaml into typed WidgetConfig objects; every error names its line. '.repeat(12);
    focused.acceptance_criteria = '- [ ] nested sections parse\n- [ ] errors carry line numbers\n'.repeat(8);
    focused.notes = 'Spike notes from the first attempt, kept for reference. '.repeat(10);
    focused.design = 'Recursive descent over the token stream; one pass. '.repeat(10);
    const old = Date.now() - 24 * 7 * 24 * 60 * 60 * 1000;
    focused.comments = Array.from({ length: 6 }, (_, index) => ({
      id: 9000 + index,
      issue_id: focused.id,
      author: 'agent',
      text: `Investigated case ${index}: the loader ran while another writer held the lock; see the notes for the sequence of events.`,
      created_at: new Date(old + index * 60_000).toISOString(),
    }));
  }
  fs.writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
}

function carried(facts: readonly Fact[], markdown: string): Carried {
  const missing = facts.filter((fact) => !(fact.all ?? []).every((text) => markdown.includes(text)) || (fact.pattern !== undefined && !new RegExp(fact.pattern, 'i').test(markdown))).map((fact) => fact.fact);
  return { carried: facts.length - missing.length, of: facts.length, missing };
}

function figure({ carried: count, of }: Carried): string {
  return `${count}/${of} ${percent(count, of)}`;
}

function percent(count: number, of: number): string {
  return of === 0 ? '—' : `${Math.round((100 * count) / of)} %`;
}
