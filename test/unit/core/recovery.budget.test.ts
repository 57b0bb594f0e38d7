// The budget and determinism properties of the recovery context, over many seeded random inputs:
// the output never exceeds the budget, a smaller budget only ever drops more (and in the fixed
// order), and unordered input in any order gives the same bytes.

import { describe, expect, it } from 'vitest';
import { cutToUtf8Bytes, cutWithNotice, fitToBudget, utf8Length } from '../../../src/core/budget';
import type { Comment, Issue, IssueDetails, LinkedIssue } from '../../../src/core/model';
import type { GitChange } from '../../../src/core/porcelain';
import { RECOVERY_DROP_ORDER, buildRecoveryContext, type RecoveryInput } from '../../../src/core/recovery';
import { NOW, cache, comment, flaky, parser, parserComments, parserDetails, readyDetails, readyQueue, rendererDetails, resumeInput, widgetTestsDetails } from '../support/recoveryFixtures';

const CUT = 'the end of the text (cut at the byte limit)';

/** mulberry32: a tiny seeded generator, so every run sees the same "random" inputs. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['parser', 'widget', 'Done:', 'Next:', 'naïve', 'über', '日本語', '😀', '`tick`', '<b>', '# hash', '\n', '\u0000', '|', '_x_', 'fix', 'escape', 'tests', 'ok'];

function randomInput(seed: number): RecoveryInput {
  const random = generator(seed);
  const int = (max: number) => Math.floor(random() * (max + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const text = (maxWords: number) => Array.from({ length: 1 + int(maxWords) }, () => pick(WORDS)).join(' ');
  const id = (n: number) => `bd-${n.toString(36)}`;
  const makeIssue = (n: number, status: string): Issue => ({
    id: id(n),
    title: text(12),
    status,
    priority: int(4),
    issueType: pick(['task', 'bug', 'feature', 'epic']),
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: new Date(NOW - int(10_000) * 60_000).toISOString(),
    labels: [],
    ...(random() < 0.5 ? { description: text(80) } : {}),
  });
  const linkTo = (n: number, type: string): LinkedIssue => ({ ...makeIssue(n, pick(['open', 'closed', 'unknown', 'in_progress'])), dependencyType: type });

  const inProgress = Array.from({ length: int(4) }, (_, index) => makeIssue(index + 1, 'in_progress'));
  const details: IssueDetails[] = inProgress.map((issue) => ({
    ...issue,
    dependencies: Array.from({ length: int(5) }, () => linkTo(100 + int(20), pick(['parent-child', 'blocks', 'waits-for', 'related']))),
    dependents: Array.from({ length: int(8) }, () => linkTo(200 + int(20), pick(['parent-child', 'blocks', 'conditional-blocks']))),
    comments: Array.from({ length: int(12) }, (_, index): Comment => ({
      id: String(index + 1),
      author: 'agent',
      text: text(60),
      createdAt: new Date(NOW - int(5_000) * 60_000).toISOString(),
    })),
  }));
  const ready = Array.from({ length: int(9) }, (_, index) => makeIssue(300 + index, 'open'));
  const changes: GitChange[] = Array.from({ length: int(30) }, (_, index) => ({ path: `src/${text(2).replace(/\s/g, '_')}/${index}.ts`, status: pick([' M', 'M ', '??', 'A ', 'R ']) }));
  const focus = inProgress[0];
  return {
    now: NOW,
    budget: 2048,
    project: random() < 0.05 ? null : { cli: pick(['bd', 'br'] as const), readOnly: random() < 0.3 },
    focusedId: random() < 0.3 ? focus?.id : undefined,
    inProgress: random() < 0.1 ? { ok: false, error: text(10) } : { ok: true, value: inProgress },
    details: random() < 0.1 ? { ok: false, error: text(10) } : { ok: true, value: details },
    ready: random() < 0.1 ? { ok: false, error: text(10) } : { ok: true, value: ready },
    ...(focus && random() < 0.7
      ? {
          ledger: {
            issueId: focus.id,
            files: Array.from({ length: int(15) }, () => `lib/${pick(WORDS)}.ts`),
            commits: Array.from({ length: int(8) }, (_, index) => ({ hash: `${index}abcdef0123456789`, subject: text(10) })),
            edits: int(50),
            ...(random() < 0.8 ? { lastCheckpointAt: NOW - int(600) * 60_000 } : {}),
          },
        }
      : {}),
    uncommitted: random() < 0.1 ? { ok: false, error: 'not a git repository' } : { ok: true, value: changes },
  };
}

const BUDGETS = [8192, 4096, 2048, 1500, 1024, 800, 600, 400, 256, 128, 64, 16, 1, 0];

/** "4 trail entries" → ["trail entr", 4]; "description" → ["description", 1]. */
function droppedCounts(dropped: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of dropped) {
    // The latest checkpoint is cut to its first line and Next line (one unit), then dropped (two).
    if (entry === 'most of the latest checkpoint' || entry === 'latest checkpoint') {
      counts.set('latest checkpoint', entry === 'latest checkpoint' ? 2 : 1);
      continue;
    }
    const match = /^(\d+) (.+?)(?:y|ies|s)?$/.exec(entry);
    if (match) counts.set((match[2] as string).replace(/child(?:ren)?$/, 'child'), Number(match[1]));
    else counts.set(entry, 1);
  }
  return counts;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

describe('UTF-8 budget helpers', () => {
  const samples = ['', 'ascii', 'naïve über', '日本語', '😀 emoji 👍🏽', 'lone \ud800 high', 'lone \udc00 low', 'é'.repeat(50)];

  it('utf8Length agrees with the platform encoder, lone surrogates included', () => {
    for (const sample of samples) expect(utf8Length(sample), sample).toBe(Buffer.byteLength(sample, 'utf8'));
  });

  it('cutToUtf8Bytes returns the longest prefix that fits, never half a character', () => {
    for (const sample of samples) {
      for (let limit = 0; limit <= Buffer.byteLength(sample) + 1; limit++) {
        const cut = cutToUtf8Bytes(sample, limit);
        expect(sample.startsWith(cut)).toBe(true);
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(limit);
        const next = Array.from(sample.slice(cut.length))[0];
        if (next !== undefined) expect(Buffer.byteLength(cut + next)).toBeGreaterThan(limit);
      }
    }
  });

  it('cutWithNotice cuts at a line end when one fits, else inside the first line', () => {
    expect(cutWithNotice('first line\nsecond line\nthird', 30, '[cut]')).toBe('first line\nsecond line\n\n[cut]');
    expect(cutWithNotice('a very long first line', 12, '[cut]')).toBe('a ver\n\n[cut]');
    expect(cutWithNotice('anything', 3, '[cut]')).toBe('any');
  });

  it('fitToBudget takes the first prefix of the drop order that fits', () => {
    const render = (kept: Record<string, number>) => `${'a'.repeat((kept.a ?? 0) * 10)}|${'b'.repeat((kept.b ?? 0) * 10)}`;
    const fitted = fitToBudget({
      budget: 30,
      full: { a: 3, b: 2 },
      steps: [{ part: 'a', downTo: 1 }, { part: 'b', downTo: 0 }],
      render,
      notice: (dropped) => dropped.map((entry) => `${entry.part}${entry.count}`).join(','),
      cutNotice: 'cut',
    });
    expect(fitted.kept).toEqual({ a: 1, b: 1 });
    expect(fitted.dropped).toEqual([{ part: 'a', count: 2 }, { part: 'b', count: 1 }]);
    expect(fitted.text).toBe(`${'a'.repeat(10)}|${'b'.repeat(10)}\n\na2,b1`);
    expect(fitted.cut).toBe(false);
  });
});

describe('recovery context budget', () => {
  it('never exceeds the budget, for any of 60 seeded inputs and any budget', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomInput(seed);
      for (const budget of BUDGETS) {
        const result = buildRecoveryContext({ ...input, budget });
        expect(result.bytes, `seed ${seed}, budget ${budget}`).toBeLessThanOrEqual(budget);
        expect(result.bytes).toBe(Buffer.byteLength(result.markdown, 'utf8'));
        expect(result.markdown).not.toContain('\ufffd\ufffd');
      }
    }
  });

  it('drops monotonically: a smaller budget drops at least as much, in the same order', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomInput(seed);
      let previous: string[] = [];
      let previousCounts = new Map<string, number>();
      for (const budget of BUDGETS) {
        const dropped = buildRecoveryContext({ ...input, budget }).dropped.filter((entry) => entry !== CUT);
        const counts = droppedCounts(dropped);
        const order = [...counts.keys()];
        expect(order.slice(0, previousCounts.size), `seed ${seed}, budget ${budget}: ${previous} then ${dropped}`).toEqual([...previousCounts.keys()]);
        for (const [part, count] of previousCounts) expect(counts.get(part) ?? 0).toBeGreaterThanOrEqual(count);
        previous = dropped;
        previousCounts = counts;
      }
    }
  });

  it('drops in the documented order on a rich input', () => {
    const input = resumeInput({ inProgress: { ok: true, value: [parser, cache, flaky] } });
    let lastDropped: string[] = [];
    for (let budget = 2100; budget >= 0; budget -= 5) {
      const result = buildRecoveryContext({ ...input, budget });
      if (result.dropped.includes(CUT)) break;
      lastDropped = result.dropped;
    }
    expect(lastDropped).toEqual([
      '3 touched file names',
      '2 commits',
      'work since the last checkpoint',
      'essential commands',
      'unblocks',
      'parent',
      'core rules',
      'workflow heading',
      'other in-progress list',
      '5 trail entries',
      '4 uncommitted paths',
      'open blockers',
      'status line',
      'uncommitted changes',
      'description',
      'latest checkpoint',
    ]);
    expect(RECOVERY_DROP_ORDER.at(-1)).toEqual({ part: 'ready', downTo: 0 });
  });

  it('keeps the Resuming heading at every budget from 256 bytes up', () => {
    for (let budget = 2100; budget >= 256; budget -= 7) {
      const result = buildRecoveryContext(resumeInput({ budget }));
      expect(result.dropped).not.toContain(CUT);
      expect(result.markdown, `budget ${budget}`).toMatch(/^## Resuming: bd-a1b — Implement widget parser$/m);
    }
  });

  it('keeps at least three ready items until the rules are gone', () => {
    const input: RecoveryInput = {
      now: NOW,
      budget: 0,
      project: { cli: 'bd', readOnly: false },
      inProgress: { ok: true, value: [] },
      details: { ok: true, value: readyDetails },
      ready: { ok: true, value: readyQueue },
      uncommitted: { ok: true, value: [] },
    };
    for (let budget = 1400; budget >= 0; budget -= 10) {
      const result = buildRecoveryContext({ ...input, budget });
      const items = result.markdown.split('\n').filter((line) => line.startsWith('- bd-r')).length;
      if (result.markdown.includes('## Core Rules')) expect(items).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('what outlasts what under the budget (live state before history)', () => {
  /** Every budget from a roomy one down to the smallest the heading is kept at, not cut. */
  function* budgets(input: RecoveryInput): Generator<{ budget: number; markdown: string }> {
    for (let budget = 3000; budget >= 256; budget -= 10) {
      const result = buildRecoveryContext({ ...input, budget });
      if (!result.dropped.includes(CUT)) yield { budget, markdown: result.markdown };
    }
  }

  const longCheckpoint = [
    'Checkpoint: bracket parsing works for depth≤3.',
    ...Array.from({ length: 24 }, (_, index) => `- detail ${index + 1}: the case of nested brackets number ${index + 1} is covered by a test`),
    'Next: handle escapes in string literals.',
  ].join('\n');
  const withLongCheckpoint = resumeInput({
    inProgress: { ok: true, value: [parser, cache, flaky] },
    details: { ok: true, value: [{ ...parserDetails, comments: [...parserComments.filter((entry) => entry.id !== '5'), comment('5', longCheckpoint, 45)] }, rendererDetails, widgetTestsDetails] },
  });

  it('cuts the newest checkpoint to its first line and Next line, with its age, rather than drop it', () => {
    let cutSeen = false;
    for (const { budget, markdown } of budgets(withLongCheckpoint)) {
      const whole = markdown.includes('### Latest Checkpoint (45m ago)');
      const brief = markdown.includes('### Latest Checkpoint (45m ago, cut to its first line and Next)');
      // Above the smallest budgets the checkpoint is there, whole or cut; it is never gone while older entries stay.
      if (budget >= 400) expect(whole || brief, `budget ${budget}:\n${markdown}`).toBe(true);
      if (markdown.includes('### Checkpoint Trail')) expect(whole, `budget ${budget}`).toBe(true);
      if (brief) {
        cutSeen = true;
        expect(markdown).toContain('    Checkpoint: bracket parsing works for depth≤3.\n    Next: handle escapes in string literals.');
        expect(markdown).not.toContain('detail 1:');
        expect(markdown).toMatch(/dropped [^\n]*most of the latest checkpoint/);
      }
    }
    expect(cutSeen).toBe(true);
  });

  it('says a stale checkpoint\'s age before its Next line in the cut form too', () => {
    const stale = resumeInput({
      details: { ok: true, value: [{ ...parserDetails, comments: [comment('9', longCheckpoint, 60 * 24 * 3)] }, rendererDetails, widgetTestsDetails] },
    });
    const cut = [...budgets(stale)].find(({ markdown }) => markdown.includes('cut to its first line and Next'));
    expect(cut?.markdown).toContain('    (written 3d ago; may be done since) Next: handle escapes in string literals.');
  });

  it("keeps other sessions' in-progress issues longer than the generic rules", () => {
    const heldElsewhere = { issueId: 'bd-h1', agent: 'codex', sessionId: 's-2', since: NOW - 90 * 60_000, lastActive: NOW - 5 * 60_000, issue: { id: 'bd-h1', title: 'Held by another session', status: 'in_progress', priority: 2, issueType: 'task' } };
    const input = resumeInput({ inProgress: { ok: true, value: [parser, cache, flaky] }, heldByLive: [heldElsewhere] });
    let rulesGoneFirst = false;
    for (const { budget, markdown } of budgets(input)) {
      const rules = markdown.includes('## Core Rules');
      const others = markdown.includes('- **Also in progress:**') && markdown.includes('bd-h1');
      if (!others) expect(rules, `budget ${budget}: the other sessions' issues went while the rules stayed`).toBe(false);
      if (others && !rules) rulesGoneFirst = true;
    }
    expect(rulesGoneFirst).toBe(true);
  });

  it('keeps the uncommitted files longer than the trail entries', () => {
    const input = resumeInput({ inProgress: { ok: true, value: [parser, cache, flaky] } });
    let trailGoneFirst = false;
    for (const { budget, markdown } of budgets(input)) {
      const trail = markdown.includes('### Checkpoint Trail');
      const uncommitted = ['`tests/parser.test.ts` (??)', '`src/parser.ts` (M)', '`src/tokens.ts` (M)'].every((line) => markdown.includes(line));
      if (trail) expect(uncommitted, `budget ${budget}: the uncommitted files went while the trail stayed`).toBe(true);
      if (uncommitted && !trail) trailGoneFirst = true;
    }
    expect(trailGoneFirst).toBe(true);
  });
});

describe('recovery context determinism', () => {
  it('gives the same bytes for the same input', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const input = randomInput(seed);
      expect(buildRecoveryContext(input)).toEqual(buildRecoveryContext(structuredClone(input)));
    }
  });

  it('gives the same bytes whatever order unordered data arrives in', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomInput(seed);
      const random = generator(seed * 7919);
      const reordered: RecoveryInput = {
        ...input,
        inProgress: input.inProgress.ok ? { ok: true, value: shuffled(input.inProgress.value, random) } : input.inProgress,
        details: input.details.ok
          ? {
              ok: true,
              value: shuffled(input.details.value, random).map((entry) => ({
                ...entry,
                dependencies: shuffled(entry.dependencies, random),
                dependents: shuffled(entry.dependents, random),
                comments: shuffled(entry.comments, random),
              })),
            }
          : input.details,
        uncommitted: input.uncommitted.ok ? { ok: true, value: shuffled(input.uncommitted.value, random) } : input.uncommitted,
        ...(input.ledger ? { ledger: { ...input.ledger, files: shuffled(input.ledger.files, random) } } : {}),
      };
      for (const budget of [4096, 2048, 700]) {
        expect(buildRecoveryContext({ ...reordered, budget }).markdown, `seed ${seed}`).toBe(buildRecoveryContext({ ...input, budget }).markdown);
      }
    }
  });

  it('orders the trail by time, not by input order, and keeps the newest last', () => {
    const input = resumeInput({ budget: 8192 });
    const details = input.details.ok ? input.details.value : [];
    const reversed = details.map((entry) => ({ ...entry, comments: [...entry.comments].reverse() }));
    const markdown = buildRecoveryContext({ ...input, details: { ok: true, value: reversed } }).markdown;
    expect(markdown).toBe(buildRecoveryContext(input).markdown);
    const trail = markdown.split('### Checkpoint Trail\n')[1]?.split('\n### ')[0]?.trimEnd().split('\n') ?? [];
    expect(trail.at(-1)).toBe('- [12m ago] Files modified: src/parser.ts, src/tokens.ts');
    expect(trail[0]).toBe('- (1 earlier entry not shown)');
  });
});
