// What resuming needs, as an agent reads it: issue text byte for byte, titles in any script
// under a small budget, an epic's children, acceptance criteria and notes, the claim, and no
// beads store files passed off as work. Goldens pin the exact text (goldenFiles.ts).

import { describe, expect, it } from 'vitest';
import { buildContinuePrompt, buildRecoveryContext, type RecoveryInput } from '../../../src/core/recovery';
import { shellWord } from '../../../src/core/markdown';
import { expectGolden } from '../support/goldenFiles';
import { structureOf } from '../support/markdownStructure';
import { NOW, comment, details, issue, link, minutesAgo, noneInput, resumeInput } from '../support/recoveryFixtures';

function resumeOf(focused: ReturnType<typeof issue>, parts: Parameters<typeof details>[1] = {}, overrides: Partial<RecoveryInput> = {}) {
  return buildRecoveryContext(
    resumeInput({ inProgress: { ok: true, value: [focused] }, details: { ok: true, value: [details(focused, parts)] }, ledger: undefined, uncommitted: { ok: true, value: [] }, ...overrides }),
  );
}

describe('issue text arrives byte for byte', () => {
  const title = 'Fix parse_config in src/my_mod/__init__.py and *ptr deref';
  const description = 'Call `load_cfg()` from src/my_mod/__init__.py.\n\n# Not a heading\n- not a list\n```\nnot a fence\n</div>\n\ttabbed  two  spaces';
  const focused = issue('proj_x.1', title, {
    status: 'in_progress',
    updatedAt: minutesAgo(5),
    description,
    acceptanceCriteria: '- [ ] `parse_config("a_b.toml")` returns a *Config*\n- [ ] no \\escaped\\ paths',
  });
  const result = resumeOf(focused, { comments: [comment('1', 'Checkpoint: fixed src/my_mod/__init__.py; Next: test **kwargs handling', 10)] }, {
    uncommitted: { ok: true, value: [{ path: 'src/my_mod/__init__.py', status: ' M' }, { path: 'docs/two  spaces_[x].md', status: '??' }] },
    budget: 8192,
  });

  it('keeps titles, ids, paths and code exactly as written', () => {
    expect(result.markdown).toContain(`## Resuming: proj_x.1 — ${title}\n`);
    expect(result.markdown).toContain('    Call `load_cfg()` from src/my_mod/__init__.py.\n');
    expect(result.markdown).toContain('    Checkpoint: fixed src/my_mod/__init__.py; Next: test **kwargs handling\n');
    expect(result.markdown).toContain('- `src/my_mod/__init__.py` (M)');
    expect(result.markdown).toContain('- `docs/two  spaces_[x].md` (??)');
    expect(result.markdown).toContain('    - [ ] `parse_config("a_b.toml")` returns a *Config*\n    - [ ] no \\escaped\\ paths');
    expect(result.markdown).not.toMatch(/\\_|\\\*|\\`/);
  });

  it('keeps every multi-line field whole inside code blocks, so none of it is structure', () => {
    const structure = structureOf(result.markdown);
    expect(structure.codeBlocks).toContain(`${description}\n`);
    expect(structure.headings.filter((heading) => heading.includes('Not a heading'))).toEqual([]);
    for (const type of ['html_block', 'fence', 'hr', 'blockquote']) expect(structure.blockTypes).not.toContain(type);
    expectGolden('verbatim', result.markdown);
  });
});

describe('ids in commands are quoted for a POSIX shell', () => {
  it('quotes an id that a shell would read, and only then', () => {
    expect(shellWord('bd-a1b')).toBe('bd-a1b');
    expect(shellWord('proj_x.1')).toBe('proj_x.1');
    expect(shellWord('x; touch pwned #')).toBe("'x; touch pwned #'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('$(id)')).toBe("'$(id)'");
    expect(shellWord('=cmd')).toBe("'=cmd'");
    expect(shellWord('')).toBe("''");
  });

  it.each(['bd', 'br'] as const)('never prints a hostile id unquoted (%s)', (cli) => {
    const hostile = issue('x; touch pwned #', 'Hostile id', { status: 'in_progress' });
    const markdown = resumeOf(hostile, {}, { project: { cli, readOnly: false }, budget: 8192 }).markdown;
    expect(markdown).toContain(`\`${cli} comments add -- 'x; touch pwned #' "Done: …; Next: …"\``);
    expect(markdown).toContain(`\`${cli} close --reason "Verified: …" -- 'x; touch pwned #'\``);
    expect(markdown).toContain(`checkpoint with \`${cli} comments add -- 'x; touch pwned #' "…"\``);
    expect(markdown).not.toMatch(/(?:add|close) x; touch/);
  });
});

describe('titles in any script under a small budget', () => {
  const titles = {
    cjk: '修复配置解析器在嵌套表格中的错误并添加回归测试'.repeat(7).slice(0, 160),
    emoji: '👩🏽‍💻 Fix 🏳️‍🌈 flag rendering 👨‍👩‍👧‍👦 family emoji '.repeat(6),
    rtl: 'إصلاح محلل الإعدادات עבור טבלאות מקוננות '.repeat(6),
  };
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

  for (const [script, title] of Object.entries(titles)) {
    for (const budget of [256, 400, 512]) {
      it(`${script} title at ${budget} bytes: the heading survives, cut between characters with an ellipsis`, () => {
        const focused = issue('bd-t1', title, { status: 'in_progress', description: 'Some description.' });
        const result = resumeOf(focused, { comments: [comment('1', 'Checkpoint: halfway. Next: the rest.', 30)] }, { budget });
        expect(result.bytes).toBeLessThanOrEqual(budget);
        expect(result.dropped).not.toContain('the end of the text (cut at the byte limit)');
        const heading = result.markdown.split('\n').find((line) => line.startsWith('## Resuming: bd-t1 — '));
        expect(heading).toBeDefined();
        const shown = (heading as string).slice('## Resuming: bd-t1 — '.length);
        expect(shown.endsWith('…')).toBe(true);
        const kept = shown.slice(0, -1);
        expect(title.startsWith(kept)).toBe(true);
        // The cut falls on a grapheme boundary of the original title.
        const boundaries = new Set([...segmenter.segment(title)].map((segment) => segment.index));
        expect(boundaries.has(kept.length)).toBe(true);
        expect(result.markdown).not.toContain('\ufffd');
        expect(result.markdown).toMatch(/_Trimmed to fit \d+ bytes; dropped .+\._$/);
        expectGolden(`title-${script}-${budget}`, result.markdown);
      });
    }
  }
});

describe('what resuming needs', () => {
  it('an epic names its open children with their status, marking the ones in progress', () => {
    const epic = issue('bd-ep', 'Widget epic', { status: 'in_progress', issueType: 'epic', priority: 1, assignee: 'alice', startedAt: minutesAgo(180) });
    const children = [
      issue('bd-ep.1', 'Tokenizer', { status: 'closed' }),
      issue('bd-ep.2', 'Parser', { status: 'in_progress' }),
      issue('bd-ep.3', 'Renderer', { status: 'open' }),
      issue('bd-ep.4', 'Docs', { status: 'blocked' }),
      issue('bd-ep.5', 'Old spike', { status: 'closed' }),
      issue('bd-ep.6', 'Linter', { status: 'hooked' }),
    ].map((child) => link(child, 'parent-child'));
    const result = resumeOf(epic, { dependents: children }, { budget: 4096 });
    // bd's `hooked` (an agent holds the child) is in progress too: listed first and marked.
    expect(result.markdown).toContain(
      '### Open Children (4 open, 2 closed)\n- bd-ep.2 — Parser (in_progress) ← in progress\n- bd-ep.6 — Linter (hooked) ← in progress\n- bd-ep.3 — Renderer (open)\n- bd-ep.4 — Docs (blocked)',
    );
    expect(result.markdown).toContain('| claimed 3h ago by alice');
    expectGolden('epic', result.markdown);
    // br and bd record "unknown" when a claim had no actor: that names nobody.
    expect(resumeOf({ ...epic, assignee: 'unknown' }, { dependents: children }, { budget: 4096 }).markdown).toContain('| claimed 3h ago\n');
  });

  it('says "ready once this closes" only of an open dependent, not of one already in progress', () => {
    const focused = issue('bd-f', 'Focused', { status: 'in_progress' });
    const waiting = issue('bd-w', 'Waiting');
    const started = issue('bd-s', 'Started early', { status: 'in_progress' });
    const result = buildRecoveryContext(
      resumeInput({
        inProgress: { ok: true, value: [focused] },
        details: {
          ok: true,
          value: [
            details(focused, { dependents: [link(waiting, 'blocks'), link(started, 'blocks')] }),
            details(waiting, { dependencies: [link(focused, 'blocks')] }),
            details(started, { dependencies: [link(focused, 'blocks')] }),
          ],
        },
        ledger: undefined,
        uncommitted: { ok: true, value: [] },
      }),
    );
    expect(result.markdown).toContain('bd-w — Waiting (ready once this closes)');
    expect(result.markdown).toMatch(/bd-s — Started early(?! \(ready once this closes\))/);
  });

  it('shows acceptance criteria, then notes, then design, each whole', () => {
    const focused = issue('bd-ac', 'Config loader', {
      status: 'in_progress',
      assignee: 'bob',
      description: 'Load the config from disk.',
      acceptanceCriteria: '- [ ] missing file gives a clear error\n- [ ] unknown keys are reported with their line',
      notes: 'Talked to Ana: keep TOML only.\nThe old INI path is gone.',
      design: 'One pure parse function; the reader is a thin shell.',
    });
    const result = resumeOf(focused, {}, { budget: 4096 });
    const order = ['### Description', '### Acceptance Criteria', '### Notes', '### Design'].map((heading) => result.markdown.indexOf(heading));
    expect(order.every((at, index) => at > 0 && (index === 0 || at > (order[index - 1] as number)))).toBe(true);
    expect(result.markdown).toContain('### Notes\n    Talked to Ana: keep TOML only.\n    The old INI path is gone.');
    expect(result.markdown).toContain('| claimed by bob');
    expectGolden('acceptance-notes', result.markdown);
  });

  it('keeps the latest checkpoint whole and, when it is too long, its Next: part', () => {
    const long = `Checkpoint: ${'did a thing. '.repeat(200)}Next: wire LineError into parse() & tests`;
    const focused = issue('bd-l', 'Long checkpoint', { status: 'in_progress' });
    const result = resumeOf(focused, { comments: [comment('1', long, 5)] }, { budget: 4096 });
    expect(result.markdown).toContain('    Next: wire LineError into parse() & tests');
    expect(result.markdown).toContain('    Checkpoint: did a thing.');
  });

  it("leaves beads' own store files out of the uncommitted changes and the touched files", () => {
    const result = buildRecoveryContext(
      resumeInput({
        budget: 8192,
        uncommitted: {
          ok: true,
          value: [
            { path: '.beads/issues.jsonl', status: ' M' },
            { path: '.beads/beads.db', status: '??' },
            { path: 'sub/.beads/issues.jsonl', status: ' M' },
            { path: 'src/.beadsrc.ts', status: ' M' },
            { path: 'src/parser.ts', status: ' M' },
          ],
        },
        ledger: { issueId: 'bd-a1b', files: ['.beads/issues.jsonl', 'src/parser.ts'], commits: [], edits: 3, lastCheckpointAt: NOW - 60_000 },
      }),
    );
    expect(result.markdown).not.toContain('issues.jsonl');
    expect(result.markdown).not.toContain('beads.db');
    expect(result.markdown).toContain('### Uncommitted Changes\n- `src/.beadsrc.ts` (M)\n- `src/parser.ts` (M)');
    expect(result.markdown).toContain('- 3 edits, 1 file: `src/parser.ts`');
    expectGolden('beads-filtered', result.markdown);
  });
});

describe('the Ready list and Next say the same', () => {
  // The report: after a close, Next said wf-3 while the list read wf-6, wf-1 (the epic), wf-7, wf-3.
  const ready = [issue('wf-6', 'Fix flaky dashboard', { priority: 1 }), issue('wf-1', 'Workflow epic', { priority: 0, issueType: 'epic' }), issue('wf-7', 'Add dark-mode toggle'), issue('wf-3', 'Render widgets')];
  const closed = issue('wf-2', 'Parse widgets', { status: 'closed' });

  it('the recovery context lists the next issue first and no epic', () => {
    const result = buildRecoveryContext(noneInput({
      ready: { ok: true, value: ready },
      details: { ok: true, value: [] },
      lastClose: { closed, unblocked: ['wf-3'], inProgressAfter: [] },
    }));
    const listed = [...result.markdown.matchAll(/^- (wf-\d+) —/gm)].map((match) => match[1]);
    expect(listed).toEqual(['wf-3', 'wf-6', 'wf-7']);
    expect(result.markdown).toContain('**Next:** wf-3 — Render widgets (just unblocked)');
  });

  it('the continue prompt lists the next issue first and no epic', () => {
    const result = buildContinuePrompt({ closed, unblocked: [ready[3]!], ready: ready.map((entry) => ({ issue: entry, unblocks: [] })), cli: 'br' });
    const listed = [...result.markdown.matchAll(/^- (wf-\d+) —/gm)].map((match) => match[1]);
    expect(listed).toEqual(['wf-3', 'wf-6', 'wf-7']);
    expect(result.markdown).toContain('**Next:** wf-3 — Render widgets (just unblocked)');
  });
});

describe('issues other live sessions hold (issue 30)', () => {
  const mine = issue('bd-m1', 'My own work', { status: 'in_progress', updatedAt: minutesAgo(30) });
  const theirs = issue('bd-t2', 'Their work', { status: 'in_progress', updatedAt: minutesAgo(2) });
  const held = [{ issueId: theirs.id, agent: 'codex', sessionId: 'codex-1', since: NOW - 25 * 60_000, lastActive: NOW - 2 * 60_000, issue: theirs }];

  it('beside the session’s own issue: listed as theirs, with agent and times, and not as also in progress', () => {
    const result = buildRecoveryContext(
      resumeInput({ inProgress: { ok: true, value: [mine, theirs] }, focusedId: mine.id, details: { ok: true, value: [details(mine)] }, ledger: undefined, uncommitted: { ok: true, value: [] }, heldByLive: held, budget: 8192 }),
    );
    expect(result.markdown).toContain('## Resuming: bd-m1 — My own work');
    expect(result.markdown).toContain("- **In progress in other live sessions** (theirs: not this session's to checkpoint or close):\n  - bd-t2 — Their work — a live codex session's, since 25m ago, last active 2m ago");
    expect(result.markdown).not.toContain('Also in progress');
    // Its commands name its own issue only.
    expect(result.markdown).toContain('comments add -- bd-m1');
    expect(result.markdown).not.toMatch(/(?:comments add|close)\b[^`\n]*bd-t2/);
  });

  it('when every in-progress issue is held elsewhere: none is resumed, they are listed, and the commands name no issue', () => {
    const result = buildRecoveryContext(resumeInput({ inProgress: { ok: true, value: [] }, details: { ok: true, value: [] }, ledger: undefined, uncommitted: { ok: true, value: [] }, heldByLive: held, budget: 8192 }));
    expect(result.state).toBe('none');
    expect(result.markdown).not.toContain('## Resuming');
    expect(result.markdown).toContain("## In Progress in Other Live Sessions (theirs: do not checkpoint or close them)\n- bd-t2 — Their work — a live codex session's, since 25m ago, last active 2m ago");
    expect(result.markdown).not.toMatch(/(?:comments add|close)\b[^`\n]*bd-t2/);
  });
});
