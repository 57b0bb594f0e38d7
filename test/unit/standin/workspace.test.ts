// make-workspace.mjs: the fixture workspaces every harness, the demo and the benchmarks start
// from, and what the stand-ins make of them (the scenario's dependency context per dialect, and
// the large data set's cost per call).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_DIR, type Dialect, runJson, tempDir } from '../../fixtures/standin/harness';
import { SCENARIO, STANDIN_BIN_DIR, makeWorkspace } from '../../fixtures/make-workspace.mjs';

const TIMEOUT = 120_000;
type Json = Record<string, unknown>;

function ids(value: unknown): string[] {
  const items = Array.isArray(value) ? value : ((value as Json).issues as Json[]);
  return (items as Json[]).map((item) => item.id as string);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

describe('makeWorkspace', () => {
  it('writes br\'s usual .beads files and a one-commit git repository with a local identity', () => {
    const ws = makeWorkspace({ dir: path.join(tempDir('mk'), 'project'), dialect: 'br', data: 'scenario' });
    expect(fs.readdirSync(ws.beadsDir).sort()).toEqual(['.gitignore', 'config.yaml', 'issues.jsonl', 'metadata.json']);
    expect(JSON.parse(fs.readFileSync(path.join(ws.beadsDir, 'metadata.json'), 'utf8'))).toEqual({ database: 'beads.db', jsonl_export: 'issues.jsonl' });
    expect(fs.readFileSync(path.join(ws.beadsDir, 'config.yaml'), 'utf8')).toContain('issue_prefix: demo');
    expect(git(ws.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(ws.dir, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(ws.dir, 'config', '--local', 'user.name')).not.toBe('');
    expect(git(ws.dir, 'config', '--local', 'user.email')).not.toBe('');
    expect(git(ws.dir, 'status', '--porcelain')).toBe('');
    expect(git(ws.dir, 'ls-files').split('\n').sort()).toEqual(['.beads/.gitignore', '.beads/config.yaml', '.beads/issues.jsonl', '.beads/metadata.json', 'README.md']);
  }, TIMEOUT);

  it('writes bd\'s metadata (dolt backend) and config; no git when asked', () => {
    const ws = makeWorkspace({ dir: tempDir('mk-bd'), dialect: 'bd', data: 'empty', git: false });
    const metadata = JSON.parse(fs.readFileSync(path.join(ws.beadsDir, 'metadata.json'), 'utf8')) as Json;
    expect(metadata).toMatchObject({ backend: 'dolt', dolt_mode: 'embedded' });
    expect(fs.readFileSync(path.join(ws.beadsDir, 'config.yaml'), 'utf8')).toContain('issue-prefix: "demo"');
    expect(fs.existsSync(path.join(ws.dir, '.git'))).toBe(false);
    expect(fs.readFileSync(ws.issuesPath, 'utf8')).toBe('');
    expect(ws.issueCount).toBe(0);
    const created = runJson('bd', ['create', 'First', '--json'], { cwd: ws.dir }) as Json;
    expect(created.id).toMatch(/^demo-[0-9a-z]{3}$/);
  }, TIMEOUT);

  it('copies the data sets line for line', () => {
    const source = fs.readFileSync(path.join(DATA_DIR, 'bd_3rdparty_jkarasha-fastapi-todo-api-beads_e3314363_small.issues.jsonl'), 'utf8').split('\n').filter(Boolean);
    const ws = makeWorkspace({ dir: tempDir('mk-small'), dialect: 'br', data: 'small', git: false });
    expect(fs.readFileSync(ws.issuesPath, 'utf8').split('\n').filter(Boolean)).toEqual(source);
    expect(ws.issueCount).toBe(64);
    expect(ws.prefix).toBeUndefined();
  }, TIMEOUT);

  it('is deterministic and refuses to overwrite an existing .beads', () => {
    const a = makeWorkspace({ dir: tempDir('mk-a'), dialect: 'bd', data: 'scenario', git: false });
    const b = makeWorkspace({ dir: tempDir('mk-b'), dialect: 'bd', data: 'scenario', git: false });
    expect(fs.readFileSync(a.issuesPath, 'utf8')).toBe(fs.readFileSync(b.issuesPath, 'utf8'));
    expect(() => makeWorkspace({ dir: a.dir, dialect: 'bd', data: 'empty', git: false })).toThrow(/already exists/);
  }, TIMEOUT);

  it('moves the scenario into the day before `now` when asked, keeping its order and everything else', () => {
    const now = Date.parse('2026-11-23T19:00:00Z');
    const fixed = makeWorkspace({ dir: tempDir('mk-fixed'), dialect: 'br', data: 'scenario' });
    const moved = makeWorkspace({ dir: tempDir('mk-now'), dialect: 'br', data: 'scenario', now });
    const issue = (ws: { issuesPath: string }, id: string) =>
      fs.readFileSync(ws.issuesPath, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json).find((record) => record.id === id) as Json;
    const trail = (ws: { issuesPath: string }) => (issue(ws, 'demo-1').comments as { created_at: string; text: string }[]);
    expect(trail(fixed).map((comment) => comment.created_at)).toEqual(['2026-01-05T10:00:00Z', '2026-01-05T11:30:00Z', '2026-01-05T12:45:00Z']);
    const times = trail(moved).map((comment) => Date.parse(comment.created_at));
    expect(times.every((time) => time < now && time > now - 24 * 3_600_000)).toBe(true);
    expect(times[2] - times[0]).toBe(Date.parse('2026-01-05T12:45:00Z') - Date.parse('2026-01-05T10:00:00Z'));
    expect(trail(moved).map((comment) => comment.text)).toEqual(trail(fixed).map((comment) => comment.text));
    expect(trail(moved)[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const commitTime = Date.parse(git(moved.dir, 'log', '-1', '--format=%cI'));
    expect(commitTime).toBeLessThan(now);
    expect(commitTime).toBeGreaterThan(times[2]);
    // The small project's own issues are data, not the scenario: they stay as they are.
    const untouched = fs.readFileSync(fixed.issuesPath, 'utf8').split('\n').filter((line) => line && !line.includes('"id":"demo-'));
    expect(fs.readFileSync(moved.issuesPath, 'utf8').split('\n').filter((line) => line && !line.includes('"id":"demo-'))).toEqual(untouched);
  }, TIMEOUT);

  it('has a command line that prints the folder', () => {
    const dir = path.join(tempDir('mk-cli'), 'ws');
    const result = spawnSync(process.execPath, [path.join(REPO_DIR, 'test', 'fixtures', 'make-workspace.mjs'), dir, '--dialect', 'br', '--data', 'empty', '--no-git'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${dir}\n`);
    expect(fs.existsSync(path.join(dir, '.beads', 'issues.jsonl'))).toBe(true);
    const bad = spawnSync(process.execPath, [path.join(REPO_DIR, 'test', 'fixtures', 'make-workspace.mjs'), dir, '--data', 'huge'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown data set');
  }, TIMEOUT);

  it('exports the stand-in bin folder', () => {
    expect(fs.statSync(path.join(STANDIN_BIN_DIR, 'bd')).mode & 0o111).not.toBe(0);
    expect(fs.statSync(path.join(STANDIN_BIN_DIR, 'br')).mode & 0o111).not.toBe(0);
  });
});

describe.each<Dialect>(['bd', 'br'])('the scenario through the %s stand-in', (dialect) => {
  const showArgs = dialect === 'bd' ? ['--include-comments', '--include-dependents'] : [];

  it('has one in-progress issue with its parent, blockers, children, dependents and checkpoint trail', () => {
    const ws = makeWorkspace({ dir: tempDir(`sc-${dialect}`), dialect, data: 'scenario', git: false });
    const inProgress = runJson(dialect, ['list', '--status', 'in_progress', '--json', '--limit', '0'], { cwd: ws.dir });
    expect(ids(inProgress)).toEqual([SCENARIO.inProgress]);
    const [detail] = runJson(dialect, ['show', SCENARIO.inProgress, '--json', ...showArgs], { cwd: ws.dir }) as Json[];
    expect(detail).toMatchObject({ title: 'Parse widget config', status: 'in_progress', priority: 1, parent: SCENARIO.epic });
    const links = (key: string) => ((detail[key] as Json[]) ?? []).map((l) => `${l.dependency_type}:${l.id}:${l.status}`).sort();
    expect(links('dependencies')).toEqual(['blocks:demo-2:open', 'blocks:demo-3:open', 'blocks:demo-4:closed', 'parent-child:demo-epic:open']);
    expect(links('dependents')).toEqual(['blocks:demo-5:open', 'blocks:demo-6:open', 'parent-child:demo-1.1:closed', 'parent-child:demo-1.2:open']);
    const comments = detail.comments as Json[];
    expect(comments.map((c) => c.created_at)).toEqual(['2026-01-05T10:00:00Z', '2026-01-05T11:30:00Z', '2026-01-05T12:45:00Z']);
    expect(comments[1].text).toBe(SCENARIO.commitComment);
    expect(comments.filter((c) => String(c.text).startsWith('Checkpoint: '))).toHaveLength(2);
    expect(typeof comments[0].id).toBe(dialect === 'br' ? 'number' : 'string');
    const [blockedByTwo] = runJson(dialect, ['show', SCENARIO.stillBlockedAfterClose, '--json'], { cwd: ws.dir }) as Json[];
    expect(((blockedByTwo.dependencies as Json[]) ?? []).map((l) => l.id).sort()).toEqual([SCENARIO.inProgress, SCENARIO.otherBlocker]);
  }, TIMEOUT);

  it('ready follows the dialect: br leaves out epics with open children and sorts hybrid, bd sorts by priority', () => {
    const ws = makeWorkspace({ dir: tempDir(`rd-${dialect}`), dialect, data: 'scenario', git: false });
    const ready = ids(runJson(dialect, ['ready', '--json', '--limit', '0'], { cwd: ws.dir }));
    if (dialect === 'br') expect(ready).toEqual(['demo-2', 'demo-3', 'demo-7', 'demo-8', 'demo-9', 'demo-10']);
    else expect(ready).toEqual(['demo-2', 'demo-epic', 'demo-8', 'demo-3', 'demo-10', 'demo-9', 'demo-7', 'demo-ops']);
    for (const id of SCENARIO.readyWithParent) expect(ready).toContain(id);
    expect(ready).not.toContain(SCENARIO.openChild);
    expect(ready).not.toContain(SCENARIO.unblockedByClose);
  }, TIMEOUT);

  it('closing the in-progress issue unblocks exactly the dependent with no other open blocker', () => {
    const ws = makeWorkspace({ dir: tempDir(`cl-${dialect}`), dialect, data: 'scenario', git: false });
    runJson(dialect, ['close', SCENARIO.inProgress, '--reason', 'Parser done', '--force', '--json'], { cwd: ws.dir });
    const ready = ids(runJson(dialect, ['ready', '--json', '--limit', '0'], { cwd: ws.dir }));
    expect(ready).toContain(SCENARIO.unblockedByClose);
    expect(ready).not.toContain(SCENARIO.stillBlockedAfterClose);
  }, TIMEOUT);

  it('stays fast on the 5,722-issue data set', () => {
    const ws = makeWorkspace({ dir: tempDir(`lg-${dialect}`), dialect, data: 'large', git: false });
    // The data set has no in_progress issues (its live ones are open or hooked), so list those;
    // bd's list hides infrastructure types (agent, rig, ...) that br lists.
    const calls: [string, string[], number][] = [
      ['list open', ['list', dialect === 'bd' ? '--status' : '-s', 'open', '--json', '--limit', '0'], dialect === 'bd' ? 117 : 131],
      ['ready', ['ready', '--json', '--limit', '0'], dialect === 'bd' ? 87 : 105],
      ['show', ['show', 'bd-34q1', '--json', ...showArgs], 1],
    ];
    const timings: string[] = [];
    for (const [label, args, count] of calls) {
      const runs = [0, 1, 2].map(() => {
        const started = performance.now();
        const value = runJson(dialect, args, { cwd: ws.dir });
        return { ms: performance.now() - started, value };
      });
      const median = runs.map((r) => r.ms).sort((a, b) => a - b)[1];
      timings.push(`${label} ${median.toFixed(0)} ms`);
      expect(ids(runs[0].value)).toHaveLength(count);
      expect(median).toBeLessThan(3000);
    }
    console.info(`${dialect} stand-in on 5,722 issues (median of 3, wall clock incl. process start): ${timings.join(', ')}`);
  }, TIMEOUT);
});
