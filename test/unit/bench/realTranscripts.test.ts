// The measure of the real-transcript benchmark (scripts/bench/threadCorpus.ts, METHOD.md beside
// the corpus): how a fact counts as carried, when a false statement counts, what is masked, and
// that every case of the corpus is well formed.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusCases, judge, loadTranscript, maskSecrets, type CorpusCase } from '../../../scripts/bench/realTranscripts';

const REPO = path.join(__dirname, '..', '..', '..');
const item = (facts: CorpusCase['facts'], statements: CorpusCase['false'] = []): CorpusCase => ({
  agent: 'claude',
  name: 'x',
  source: { repo: 'o/r', path: 'p.jsonl', commit: 'c', license: 'MIT' },
  session: {},
  about: '',
  facts,
  false: statements,
});

describe('the real-transcript measure', () => {
  it('a fact is carried when every `all` text, one `any` text and the pattern are in the context, case aside', () => {
    const facts: CorpusCase['facts'] = [
      { kind: 'request', fact: 'request', all: ['did you PUSH?'] },
      { kind: 'tests', fact: 'tests', any: ['87 passed', '87 tests, 0 failures'] },
      { kind: 'next', fact: 'next', pattern: 'Next[^\\n]*dialyzer' },
      { kind: 'files', fact: 'files', all: ['a.ts', 'b.ts'] },
    ];
    const context = '- Request: did you push?\n- Last test run: 14 doctests, 87 tests, 0 failures\n- Next: make dialyzer pass\n- Files: a.ts (edited)';
    expect(judge(item(facts), context, '').missing).toEqual(['files']);
  });

  it('a false statement counts only when the thread made it: the same context without the thread does not say it', () => {
    const statements = [
      { fact: 'stale failure', pattern: 'Failing:' },
      { fact: 'notice as request', pattern: 'Request[^\\n]*task-notification' },
    ];
    const withThread = '- Failing: x\n- Request: <task-notification> done';
    expect(judge(item([], statements), withThread, '').falseSaid).toEqual(['stale failure («Failing:»)', 'notice as request («Request: <task-notification»)']);
    // The workspace itself says "Failing:": not the thread's doing.
    expect(judge(item([], statements), withThread, 'Checkpoint\n- Failing: old').falseSaid).toEqual(['notice as request («Request: <task-notification»)']);
  });

  it('masks live-looking credentials before anything reads a transcript', () => {
    const text = `token ghp_${'a'.repeat(36)} key AKIA${'B'.repeat(16)} slack xoxb-1234567890-abc`;
    expect(maskSecrets(text)).toBe('token [masked] key [masked] slack [masked]');
  });

  it('says why a case was not run instead of failing: a licence that allows no copy, a copy missing', () => {
    const first = corpusCases(REPO)[0] as CorpusCase;
    expect(loadTranscript(REPO, { ...first, source: { ...first.source, file: undefined, license: 'proprietary' } })).toEqual({ unavailable: 'not in the repo: its licence (proprietary) does not allow a copy here' });
    expect(loadTranscript(REPO, { ...first, source: { ...first.source, file: 'no-such-transcript.jsonl' } })).toEqual({ unavailable: `${first.agent}/no-such-transcript.jsonl is missing from the corpus folder` });
  });

  it('reads a case from its committed copy, cut where the case says', () => {
    const cut = corpusCases(REPO).find((found) => found.source.lines) as CorpusCase;
    const whole = loadTranscript(REPO, { ...cut, source: { ...cut.source, lines: undefined } });
    const part = loadTranscript(REPO, cut);
    if (!('records' in whole) || !('records' in part)) throw new Error(`${cut.name} was not read`);
    expect(part.records).toEqual(whole.records.slice(0, part.records.length));
    expect(part.records.length).toBeLessThan(whole.records.length);
  });

  it('every case cites its source with a licence and holds facts and false statements that compile', () => {
    const cases = corpusCases(REPO);
    expect(cases.length).toBeGreaterThanOrEqual(26);
    for (const found of cases) {
      expect(found.source, found.name).toMatchObject({ repo: expect.stringMatching(/^[\w.-]+\/[\w.-]+$/), path: expect.any(String), commit: expect.stringMatching(/^[0-9a-f]{40}$/), license: expect.any(String) });
      // Every source's licence allows the copy (LICENSES.md holds the notices); each case reads one.
      expect(found.source.file, found.name).toMatch(/^[\w.-]+\.jsonl?$/);
      expect(found.facts.length, found.name).toBeGreaterThan(0);
      for (const fact of found.facts) {
        expect(fact.all ?? fact.any ?? fact.pattern, `${found.name}: ${fact.fact}`).toBeDefined();
        if (fact.pattern) expect(() => new RegExp(fact.pattern as string)).not.toThrow();
      }
      for (const statement of found.false) expect(() => new RegExp(statement.pattern)).not.toThrow();
    }
  });
});
