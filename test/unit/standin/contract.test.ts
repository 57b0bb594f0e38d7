// Holds the stand-in `bd` and `br` executables (test/fixtures/bin) to the real CLIs' captured
// output in test/fixtures/beads/fixtures (vendored; see its SOURCES.md), so they cannot drift into a convenient fiction:
// every comparison checks the top-level kind, the key set of every object and the JSON type of
// every value; where the fixture is un-normalized (br_representative_*) the values too.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  RFC3339,
  fixtureJson,
  fixtureText,
  keysOf,
  readIssuesFile,
  runJson,
  runStandin,
  shapeDiff,
  storeWith,
} from '../../fixtures/standin/harness';

const TIMEOUT = 60_000;

type Json = Record<string, unknown>;

function br(args: string[], cwd: string): unknown {
  return runJson('br', args, { cwd });
}

function bd(args: string[], cwd: string, env?: Record<string, string>): unknown {
  return runJson('bd', args, { cwd, env });
}

function createdId(output: unknown): string {
  return (output as Json).id as string;
}

describe('br stand-in against the captured br fixtures', () => {
  it('list: envelope with IssueWithCounts items, default limit 50, newest first within a priority', () => {
    const ws = storeWith();
    br(['create', 'Issue one', '--json'], ws);
    br(['create', 'Issue two', '--json'], ws);
    const out = br(['list', '--json'], ws);
    expect(shapeDiff(out, fixtureJson('br', 'br_list.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('list on an empty store equals br_list_empty.json exactly', () => {
    expect(br(['list', '--json'], storeWith())).toEqual(fixtureJson('br', 'br_list_empty.json'));
  }, TIMEOUT);

  it('list orders by priority, then newest first (br_list_priority_ordering.json)', () => {
    const ws = storeWith();
    const low = createdId(br(['create', 'Low priority task', '--json'], ws));
    const high = createdId(br(['create', 'High priority task', '--json'], ws));
    const crit = createdId(br(['create', 'Critical task', '--json'], ws));
    br(['update', low, '--priority', '3', '--json'], ws);
    br(['update', high, '--priority', '1', '--json'], ws);
    br(['update', crit, '--priority', '0', '--json'], ws);
    expect(shapeDiff(br(['list', '--json'], ws), fixtureJson('br', 'br_list_priority_ordering.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('list --limit 3 matches the agent baseline (br_agent_baseline_list_limit3.json)', () => {
    const ws = storeWith();
    br(['create', 'One', '-d', 'Short desc', '--json'], ws);
    br(['create', 'Two', '-t', 'bug', '-p', '0', '--json'], ws);
    br(['create', 'Three', '-t', 'feature', '-p', '1', '--json'], ws);
    expect(shapeDiff(br(['list', '--limit', '3', '--json'], ws), fixtureJson('br', 'br_agent_baseline_list_limit3.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('ready: reduced ReadyIssue fields with labels always present, no counts (br_ready.json)', () => {
    const ws = storeWith();
    br(['create', 'Ready issue', '--json'], ws);
    expect(shapeDiff(br(['ready', '--json'], ws), fixtureJson('br', 'br_ready.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('ready on an empty store is [] (br_ready_empty.json)', () => {
    expect(br(['ready', '--json'], storeWith())).toEqual(fixtureJson('br', 'br_ready_empty.json'));
  }, TIMEOUT);

  it('ready sorts hybrid by default: P0/P1 first, then oldest first (br_ready_priority_ordering.json)', () => {
    const ws = storeWith();
    const p3 = createdId(br(['create', 'Backlog ready task', '--json'], ws));
    const p1 = createdId(br(['create', 'Urgent ready task', '--json'], ws));
    const p2 = createdId(br(['create', 'Normal ready task', '--json'], ws));
    br(['update', p3, '--priority', '3', '--json'], ws);
    br(['update', p1, '--priority', '1', '--json'], ws);
    br(['update', p2, '--priority', '2', '--json'], ws);
    expect(shapeDiff(br(['ready', '--json'], ws), fixtureJson('br', 'br_ready_priority_ordering.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('ready matches the agent baseline except `labels`, which br added to ReadyIssue after it was captured', () => {
    const ws = storeWith();
    br(['create', 'One', '-d', 'Short desc', '--json'], ws);
    br(['create', 'Two', '-t', 'bug', '-p', '0', '--json'], ws);
    br(['create', 'Three', '-t', 'feature', '-p', '1', '--json'], ws);
    const baseline = fixtureJson('br', 'br_agent_baseline_ready.json') as Json[];
    const withLabels = baseline.map((item) => ({ ...item, labels: [] }));
    expect(shapeDiff(br(['ready', '--json'], ws), withLabels, { values: true })).toEqual([]);
  }, TIMEOUT);

  it('show: an array even for one id, empty relations omitted (br_show.json, br_agent_baseline_show_one.json)', () => {
    const ws = storeWith();
    const id = createdId(br(['create', 'Detailed issue', '--json'], ws));
    expect(shapeDiff(br(['show', id, '--json'], ws), fixtureJson('br', 'br_show.json'), { values: true })).toEqual([]);
    const two = createdId(br(['create', 'Two', '-t', 'bug', '-p', '0', '--json'], ws));
    expect(shapeDiff(br(['show', two, '--json'], ws), fixtureJson('br', 'br_agent_baseline_show_one.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('show with several ids keeps the requested order (br_show_multiple_ids.json)', () => {
    const ws = storeWith();
    const first = createdId(br(['create', 'First detailed issue', '--json'], ws));
    const second = createdId(br(['create', 'Second detailed issue', '--json'], ws));
    expect(shapeDiff(br(['show', first, second, '--json'], ws), fixtureJson('br', 'br_show_multiple_ids.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  describe('the un-normalized representative fixtures, value for value', () => {
    // The input the upstream test imports before capturing br_representative_{show,list}.json.
    const records = [
      { id: 'bd-golden-parent', title: '01 Parent Epic', description: 'Parent description', status: 'open', priority: 1, issue_type: 'epic', assignee: 'alice', owner: 'owner@example.com', created_at: '2026-01-01T00:00:00Z', created_by: 'fixture', updated_at: '2026-01-01T00:00:00Z', due_at: '2026-07-01T00:00:00Z', source_repo: '.', compaction_level: 0, original_size: 0, labels: ['ops', 'ux'] },
      { id: 'bd-golden-child', title: '02 Child Task', description: 'Child description', design: 'Design notes', acceptance_criteria: 'Acceptance text', notes: 'Operator notes', status: 'in_progress', priority: 2, issue_type: 'task', assignee: 'bob', owner: 'child@example.com', created_at: '2026-01-02T00:00:00Z', created_by: 'fixture', updated_at: '2026-01-02T01:00:00Z', defer_until: '2026-07-03T00:00:00Z', source_repo: '.', compaction_level: 0, original_size: 0, labels: ['backend'], dependencies: [{ issue_id: 'bd-golden-child', depends_on_id: 'bd-golden-parent', type: 'parent-child', created_at: '2026-01-02T00:00:00Z', created_by: 'fixture', metadata: '{}', thread_id: '' }], comments: [{ id: 1, issue_id: 'bd-golden-child', author: 'fixture', text: 'first comment', created_at: '2026-01-02T02:00:00Z' }] },
      { id: 'bd-golden-closed', title: '03 Closed Bug', description: 'Closed bug description', status: 'closed', priority: 0, issue_type: 'bug', assignee: 'carol', owner: 'owner@example.com', created_at: '2026-01-03T00:00:00Z', created_by: 'fixture', updated_at: '2026-01-03T03:00:00Z', closed_at: '2026-01-03T03:00:00Z', close_reason: 'fixed', closed_by_session: 'session-1', source_repo: '.', compaction_level: 0, original_size: 0, labels: ['bugfix'] },
      { id: 'bd-golden-deleted', title: '04 Deleted Cleanup', status: 'tombstone', priority: 3, issue_type: 'task', created_at: '2026-01-04T00:00:00Z', created_by: 'fixture', updated_at: '2026-01-04T04:00:00Z', deleted_at: '2026-01-04T04:00:00Z', deleted_by: 'fixture', delete_reason: 'fixture tombstone', original_type: 'task', source_repo: '.', compaction_level: 0, original_size: 0 },
    ];

    it('show of parent, child, closed and tombstone equals br_representative_show.json', () => {
      const ws = storeWith(records);
      const out = br(['show', 'bd-golden-parent', 'bd-golden-child', 'bd-golden-closed', 'bd-golden-deleted', '--json'], ws);
      expect(out).toEqual(fixtureJson('br', 'br_representative_show.json'));
    }, TIMEOUT);

    it('list --all --sort title equals br_representative_list.json (tombstones excluded)', () => {
      const ws = storeWith(records);
      expect(br(['list', '--all', '--sort', 'title', '--json'], ws)).toEqual(fixtureJson('br', 'br_representative_list.json'));
    }, TIMEOUT);

    it('prints compact JSON on stdout, as the representative fixtures were captured', () => {
      const ws = storeWith(records);
      const result = runStandin('br', ['list', '--all', '--sort', 'title', '--json'], { cwd: ws });
      expect(result.stdout.trimEnd()).toBe(fixtureText('br', 'br_representative_list.json').trimEnd());
    }, TIMEOUT);
  });

  it('comments add prints one Comment object; comments list an array; ids are integers', () => {
    const ws = storeWith();
    const id = createdId(br(['create', 'Commented issue', '--json'], ws));
    const types = { '$.id': 'number', '$[].id': 'number' };
    const added = br(['comments', 'add', id, 'First comment', '--json'], ws);
    expect(shapeDiff(added, fixtureJson('br', 'br_comments_add.json'), { values: true, types })).toEqual([]);
    expect(shapeDiff(br(['comments', 'list', id, '--json'], ws), fixtureJson('br', 'br_comments_list.json'), { values: true, types })).toEqual([]);
    expect(br(['comments', id, '--json'], ws)).toEqual(br(['comments', 'list', id, '--json'], ws));
  }, TIMEOUT);

  it('update prints [{id,title,status,priority,updated_at}] (br_update.json)', () => {
    const ws = storeWith();
    const id = createdId(br(['create', 'Issue to update', '--json'], ws));
    expect(shapeDiff(br(['update', id, '--status', 'in_progress', '--json'], ws), fixtureJson('br', 'br_update.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('close prints [{id,title,status,closed_at,close_reason}] (br_close.json)', () => {
    const ws = storeWith();
    const id = createdId(br(['create', 'Issue to close', '--json'], ws));
    const out = br(['close', id, '--reason', 'Done', '--json'], ws) as Json[];
    expect(shapeDiff(out, fixtureJson('br', 'br_close.json'), { values: true })).toEqual([]);
    expect(out[0].closed_at).toMatch(RFC3339);
  }, TIMEOUT);

  it('create prints the full Issue object (br_create.json)', () => {
    const ws = storeWith();
    const out = br(['create', 'New feature request', '--type', 'feature', '--priority', '1', '--json'], ws);
    expect(shapeDiff(out, fixtureJson('br', 'br_create.json'), { values: true })).toEqual([]);
  }, TIMEOUT);

  it('dep list prints {issue_id,depends_on_id,type,title,status,priority} rows (br_dep_list.json)', () => {
    const ws = storeWith();
    const parent = createdId(br(['create', 'Parent issue', '--json'], ws));
    const child = createdId(br(['create', 'Child issue', '--json'], ws));
    const added = br(['dep', 'add', child, parent, '--json'], ws);
    expect(added).toEqual({ status: 'ok', issue_id: child, depends_on_id: parent, type: 'blocks', action: 'added' });
    const out = br(['dep', 'list', child, '--json'], ws) as Json[];
    expect(shapeDiff(out, fixtureJson('br', 'br_dep_list.json'), { values: true })).toEqual([]);
    expect(out[0]).toMatchObject({ issue_id: child, depends_on_id: parent });
    const up = br(['dep', 'list', parent, '--direction', 'up', '--json'], ws) as Json[];
    expect(up).toEqual([{ issue_id: child, depends_on_id: parent, type: 'blocks', title: 'Child issue', status: 'open', priority: 2 }]);
  }, TIMEOUT);

  it('the JSONL it writes has the export line format (br_issues_jsonl_export.jsonl)', () => {
    const ws = storeWith();
    br(['create', 'JSONL issue one', '--json'], ws);
    br(['create', 'JSONL issue two', '--json'], ws);
    const expected = fixtureText('br', 'br_issues_jsonl_export.jsonl').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const lines = readIssuesFile(ws).map((line) => JSON.parse(line));
    const byTitle = (a: Json, b: Json) => String(a.title).localeCompare(String(b.title));
    expect(shapeDiff(lines.sort(byTitle), expected.sort(byTitle), { values: true })).toEqual([]);
    const ids = readIssuesFile(ws).map((line) => JSON.parse(line).id as string);
    expect(ids).toEqual([...ids].sort());
  }, TIMEOUT);

  it('where: {path, prefix, database_path} as captured, plus jsonl_path that br 0.2.x added', () => {
    const ws = storeWith();
    fs.writeFileSync(path.join(ws, '.beads', 'config.yaml'), 'issue_prefix: bd\n');
    const out = br(['where', '--json'], ws) as Json;
    const expected = { ...(fixtureJson('br', 'br_where.json') as Json), jsonl_path: '/WORKSPACE/.beads' };
    expect(shapeDiff(out, expected)).toEqual([]);
    expect(out.prefix).toBe('bd');
    expect(out.path).toBe(fs.realpathSync(path.join(ws, '.beads')));
  }, TIMEOUT);

  it('where without a workspace fails with an `error` object (the fixture predates structured errors), exit 2', () => {
    const result = runStandin('br', ['where', '--json'], { cwd: fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'no-beads-')) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const err = JSON.parse(result.stderr) as Json;
    expect(keysOf(err)).toEqual(keysOf(fixtureJson('br', 'br_where_error.json')));
    const structured = (fixtureJson('br', 'br_error_show_not_found.json') as Json).error as Json;
    expect(keysOf(err.error)).toEqual(keysOf(structured));
    expect((err.error as Json).code).toBe('NOT_INITIALIZED');
  }, TIMEOUT);

  it('show of an unknown id prints exactly br_error_show_not_found.json on stderr and exits 3', () => {
    const ws = storeWith();
    br(['create', 'Something', '--json'], ws);
    const result = runStandin('br', ['show', 'bd-NOTEXIST', '--json'], { cwd: ws });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual(fixtureJson('br', 'br_error_show_not_found.json'));
  }, TIMEOUT);

  it('version has the agent baseline keys (br_agent_baseline_version.json)', () => {
    const out = br(['version', '--json'], storeWith());
    expect(shapeDiff(out, fixtureJson('br', 'br_agent_baseline_version.json'), { types: { '$.version': 'string' } })).toEqual([]);
  }, TIMEOUT);

  it('reads real br JSONL records (comments, deps, tombstone) and keeps them byte for byte on writes', () => {
    const records = ['br_jsonl_record_in_progress.json', 'br_jsonl_record_with_comments_deps.json', 'br_jsonl_record_tombstone.json'].map(
      (name) => JSON.stringify(fixtureJson('br', name)),
    );
    const ws = storeWith(records);
    const shown = br(['show', 'beads_rust-fudw', '--json'], ws) as Json[];
    const comments = shown[0].comments as Json[];
    expect(comments.length).toBe((fixtureJson('br', 'br_jsonl_record_in_progress.json') as Json & { comments: unknown[] }).comments.length);
    expect(typeof comments[0].id).toBe('number');
    expect(shown[0]).not.toHaveProperty('dependents');
    const list = br(['list', '--json', '--limit', '0', '--all'], ws) as Json;
    expect((list.issues as Json[]).map((i) => i.id)).toEqual(['beads_rust-fudw', 'beads_rust-0k65']);
    br(['comments', 'add', 'beads_rust-0k65', 'another', 'note', '--json'], ws);
    const after = readIssuesFile(ws);
    expect(after).toContain(records[0]);
    expect(after).toContain(records[2]);
    const changed = JSON.parse(after.find((line) => line.includes('"id":"beads_rust-0k65"'))!) as Json & { comments: Json[] };
    const highest = Math.max(...records.flatMap((line) => ((JSON.parse(line) as { comments?: { id: number }[] }).comments ?? []).map((c) => c.id)));
    expect(changed.comments.at(-1)).toMatchObject({ id: highest + 1, text: 'another note' });
  }, TIMEOUT);
});

describe('bd stand-in against the bd fixtures and the Go structs', () => {
  const GO_ISSUE_KEYS = new Set([
    'id', 'title', 'description', 'design', 'acceptance_criteria', 'notes', 'spec_id', 'status', 'priority', 'issue_type', 'assignee', 'owner',
    'estimated_minutes', 'created_at', 'created_by', 'updated_at', 'started_at', 'closed_at', 'close_reason', 'closed_by_session', 'due_at',
    'defer_until', 'external_ref', 'source_system', 'metadata', 'compaction_level', 'compacted_at', 'compacted_at_commit', 'original_size',
    'labels', 'dependencies', 'comments', 'sender', 'ephemeral', 'no_history', 'wisp_type', 'pinned', 'is_template', 'bonded_from', 'await_type',
    'await_id', 'timeout', 'waiters', 'source_formula', 'source_location', 'mol_type', 'work_type', 'event_kind', 'actor', 'target', 'payload',
  ]);

  it('create prints one object with schema_version injected and Go-map-sorted keys (docs example 03)', () => {
    const ws = storeWith();
    const result = runStandin('bd', ['create', 'Example issue', '-p', '1', '--json'], { cwd: ws });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('{\n  "')).toBe(true);
    const out = JSON.parse(result.stdout) as Json;
    const example = fixtureJson('bd', 'bd_docs_json_schema_03_legacy_object_show_create_close_update.json') as Json;
    for (const key of Object.keys(example)) {
      expect(out, key).toHaveProperty(key);
      expect(typeof out[key], key).toBe(typeof example[key]);
    }
    expect(Object.keys(out)).toEqual([...Object.keys(out)].sort());
    expect(out.schema_version).toBe(1);
    expect([...Object.keys(out)].filter((k) => k !== 'schema_version' && !GO_ISSUE_KEYS.has(k))).toEqual([]);
  }, TIMEOUT);

  it('BD_JSON_ENVELOPE=1 wraps objects and arrays in {schema_version, data} (docs examples 01, 02)', () => {
    const ws = storeWith();
    const env = { BD_JSON_ENVELOPE: '1' };
    const created = bd(['create', 'Example issue', '--json'], ws, env) as Json;
    const objectExample = fixtureJson('bd', 'bd_docs_json_schema_01_envelope_object_example.json') as Json;
    expect(keysOf(created)).toEqual(keysOf(objectExample));
    expect(typeof created.data).toBe('object');
    const id = (created.data as Json).id as string;
    const listed = bd(['list', '--json'], ws, env) as Json;
    const arrayExample = fixtureJson('bd', 'bd_docs_json_schema_02_envelope_array_example.json') as Json;
    expect(keysOf(listed)).toEqual(keysOf(arrayExample));
    expect(Array.isArray(listed.data)).toBe(true);
    expect(((listed.data as Json[])[0] as Json).id).toBe(id);
  }, TIMEOUT);

  it('errors: {error, schema_version} (+hint) on stderr, exit 1 (docs example 05)', () => {
    const ws = storeWith();
    const result = runStandin('bd', ['list', '--sort', 'updated_at', '--json'], { cwd: ws });
    expect(result.code).toBe(1);
    const err = JSON.parse(result.stderr) as Json;
    const example = fixtureJson('bd', 'bd_docs_json_schema_05_error_stderr.json') as Json;
    expect(Object.keys(err).every((key) => key in example || key === 'hint')).toBe(true);
    expect(err.schema_version).toBe(1);
    expect(err.error).toBe('invalid sort field "updated_at" (valid: priority, created, updated, closed, status, id, title, type, assignee)');
  }, TIMEOUT);

  it('list items are IssueWithCounts: a real 1.0.x export line round-trips to the same object', () => {
    const line = fixtureText('bd', 'bd_export_line_v1_0_x_root_issues.jsonl').trim();
    const ws = storeWith([line]);
    const out = bd(['list', '--json'], ws) as Json[];
    expect(out).toEqual([JSON.parse(line)]);
  }, TIMEOUT);

  it('list items carry dependency records, blocks-only counts and the computed parent (Dolt export record)', () => {
    const record = fixtureJson('bd', 'bd_jsonl_record_dolt_export_with_parent_deps.json') as Json;
    const ws = storeWith([record]);
    const out = bd(['list', '--all', '--json'], ws) as Json[];
    expect(out).toEqual([record]);
  }, TIMEOUT);

  it('show is an array; counts only by default, dependents and comments with the include flags', () => {
    const withComments = fixtureJson('bd', 'bd_jsonl_record_sqlite_era_with_comments.json');
    const withDeps = fixtureJson('bd', 'bd_jsonl_record_sqlite_era_with_deps_labels.json');
    const target = { id: 'bd-mypl', title: 'Default list to non-closed', status: 'closed', priority: 2, issue_type: 'feature', created_at: '2025-12-29T15:00:00-08:00', updated_at: '2025-12-29T16:00:00-08:00', closed_at: '2025-12-29T16:00:00-08:00', labels: ['gh:788'] };
    const ws = storeWith([withComments, withDeps, target, fixtureJson('bd', 'bd_jsonl_record_sqlite_era_tombstone.json'), fixtureJson('bd', 'bd_jsonl_record_sqlite_era_closed.json')]);

    const plain = bd(['show', 'bd-03z45', '--json'], ws) as Json[];
    expect(plain).toHaveLength(1);
    expect(plain[0]).not.toHaveProperty('comments');
    expect(plain[0]).toMatchObject({ comment_count: 1, dependent_count: 0, dependency_count: 0 });
    expect(plain[0].created_at).toBe('2026-01-12T02:14:20.034175Z');

    const full = bd(['show', 'bd-03z45', '--json', '--include-comments', '--include-dependents'], ws) as Json[];
    expect(full[0].comments).toEqual([{ id: '1', issue_id: 'bd-03z45', author: 'beads/crew/giles', text: (withComments as Json & { comments: Json[] }).comments[0].text, created_at: '2026-01-12T02:16:51Z' }]);

    const linked = bd(['show', 'bd-34q1', '--json'], ws) as Json[];
    const deps = linked[0].dependencies as Json[];
    expect(deps).toHaveLength(1);
    expect(deps[0]).toMatchObject({ id: 'bd-mypl', title: target.title, labels: ['gh:788'], dependency_type: 'blocks' });
    expect(Object.keys(deps[0]).filter((k) => k !== 'dependency_type' && !GO_ISSUE_KEYS.has(k))).toEqual([]);
    expect(linked[0]).toMatchObject({ labels: ['gh:788'], dependency_count: 1, dependent_count: 0 });

    const up = bd(['show', 'bd-mypl', '--json', '--include-dependents'], ws) as Json[];
    expect(up[0].dependents).toEqual([{ id: 'bd-34q1', title: 'Give --all flag actual meaning in bd list', status: 'closed', priority: 2, issue_type: 'feature', dependency_type: 'blocks' }]);
  }, TIMEOUT);

  it('show with only unknown ids fails with JSON on stdout and exit 1; unknown ids among known ones are skipped', () => {
    const ws = storeWith([fixtureJson('bd', 'bd_jsonl_record_sqlite_era_closed.json')]);
    const none = runStandin('bd', ['show', 'bd-nope', '--json'], { cwd: ws });
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toEqual({ error: 'no issues found matching the provided IDs', schema_version: 1 });
    const some = runStandin('bd', ['show', 'bd-nope', 'bd-02gts', '--json'], { cwd: ws });
    expect(some.code).toBe(0);
    expect((JSON.parse(some.stdout) as Json[]).map((i) => i.id)).toEqual(['bd-02gts']);
    expect(some.stderr).toContain('bd-nope');
  }, TIMEOUT);

  it('comments: array of Comment; add uses only the first text argument and makes a UUIDv7 id', () => {
    const ws = storeWith([fixtureJson('bd', 'bd_import_minimal_line.jsonl')]);
    expect(bd(['comments', 'test-99', '--json'], ws)).toEqual([]);
    const added = bd(['comments', 'add', 'test-99', 'first words', 'ignored words', '--json'], ws) as Json;
    expect(keysOf(added)).toEqual(['author', 'created_at', 'id', 'issue_id', 'schema_version', 'text']);
    expect(added.text).toBe('first words');
    expect(added.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(added.author).toBe('standin-tester');
    const listed = bd(['comments', 'test-99', '--json'], ws) as Json[];
    expect(listed).toEqual([{ id: added.id, issue_id: 'test-99', author: 'standin-tester', text: 'first words', created_at: added.created_at }]);
  }, TIMEOUT);

  it('where: sorted {database_path, path, prefix, schema_version}; without a workspace an error on stdout, exit 1', () => {
    const ws = storeWith([fixtureJson('bd', 'bd_jsonl_record_sqlite_era_closed.json')]);
    const out = bd(['where', '--json'], ws) as Json;
    expect(Object.keys(out)).toEqual(['database_path', 'path', 'prefix', 'schema_version']);
    expect(out.prefix).toBe('bd');
    const none = runStandin('bd', ['where', '--json'], { cwd: fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'no-beads-')) });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('');
    expect(Object.keys(JSON.parse(none.stdout))).toEqual(['error', 'hint', 'message', 'schema_version']);
    expect(JSON.parse(none.stdout).error).toBe('no_beads_directory');
  }, TIMEOUT);

  it('version: {build, schema_version, version}', () => {
    expect(keysOf(bd(['version', '--json'], storeWith()))).toEqual(['build', 'schema_version', 'version']);
  }, TIMEOUT);

  it('update and close print arrays of full Issue objects', () => {
    const ws = storeWith();
    const id = createdId(bd(['create', 'Work item', '--json'], ws));
    const claimed = bd(['update', id, '--claim', '--json'], ws) as Json[];
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ id, status: 'in_progress', assignee: 'standin-tester' });
    expect(claimed[0].started_at).toMatch(RFC3339);
    expect(Object.keys(claimed[0]).every((k) => GO_ISSUE_KEYS.has(k))).toBe(true);
    const closed = bd(['close', id, '--reason', 'Done', '--json'], ws) as Json[];
    expect(closed[0]).toMatchObject({ id, status: 'closed', close_reason: 'Done' });
    expect(closed[0].closed_at).toMatch(RFC3339);
  }, TIMEOUT);

  it('dep add prints a sorted status object; dep list prints full issues plus dependency_type', () => {
    const ws = storeWith();
    const a = createdId(bd(['create', 'Parent issue', '--json'], ws));
    const b = createdId(bd(['create', 'Child issue', '--json'], ws));
    expect(bd(['dep', 'add', b, a, '--json'], ws)).toEqual({ depends_on_id: a, issue_id: b, schema_version: 1, status: 'added', type: 'blocks' });
    const down = bd(['dep', 'list', b, '--json'], ws) as Json[];
    expect(down).toHaveLength(1);
    expect(down[0]).toMatchObject({ id: a, title: 'Parent issue', dependency_type: 'blocks' });
    const up = bd(['dep', 'list', a, '--direction', 'up', '--json'], ws) as Json[];
    expect(up.map((i) => [i.id, i.dependency_type])).toEqual([[b, 'blocks']]);
    const batch = bd(['dep', 'list', b, a, '--json'], ws) as Json[];
    expect(keysOf(batch[0])).toEqual(['created_at', 'created_by', 'depends_on_id', 'issue_id', 'metadata', 'type']);
  }, TIMEOUT);

  it('escapes <, > and & like Go and pretty-prints with two spaces', () => {
    const ws = storeWith();
    const result = runStandin('bd', ['create', 'Fix <br> & friends', '--json'], { cwd: ws });
    expect(result.stdout).toContain('"title": "Fix \\u003cbr\\u003e \\u0026 friends"');
    expect((JSON.parse(result.stdout) as Json).title).toBe('Fix <br> & friends');
  }, TIMEOUT);
});

// The version differences of docs/BEADS_CONTRACT.md §8 that change what the extension must do: each behaviour
// sits behind a switch (BEADS_STANDIN_BD_VERSION, BEADS_STANDIN_BR_ERROR_STREAM) and is held here
// to what the cited sources print.
describe('version differences and refusals (docs/BEADS_CONTRACT.md §8: C1, C4, C6, C7, C8, C9)', () => {
  const at = '2026-03-01T10:00:00Z';
  const record = (id: string, fields: Json = {}) => ({ id, title: `Title ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: at, updated_at: at, ...fields });
  const dep = (from: string, to: string, type: string) => ({ issue_id: from, depends_on_id: to, type, created_at: at });
  const comment = { id: 1, issue_id: 'c-work', author: 'me', text: 'a checkpoint', created_at: at };
  /** c-work in progress (mine) with a comment; c-blocked waits for it; c-epic has an open child; c-theirs is someone else's. */
  const store = () =>
    storeWith([
      record('c-epic', { issue_type: 'epic' }),
      record('c-work', { status: 'in_progress', assignee: 'standin-tester', comments: [comment] }),
      record('c-child', { dependencies: [dep('c-child', 'c-epic', 'parent-child')] }),
      record('c-blocked', { dependencies: [dep('c-blocked', 'c-work', 'blocks')] }),
      record('c-theirs', { assignee: 'someone-else' }),
    ]);
  const bd104 = { BEADS_STANDIN_BD_VERSION: '1.0.4' };
  const bd12 = { BEADS_STANDIN_BD_VERSION: '1.2' };

  it('C1: bd 1.0.4 rejects show --include-* as cobra does, and its plain show carries comments and dependents', () => {
    const ws = store();
    const rejected = runStandin('bd', ['show', '--json', '--include-comments', '--include-dependents', '--', 'c-work'], { cwd: ws, env: bd104 });
    expect(rejected).toMatchObject({ code: 1, stdout: '', stderr: "Error: unknown flag: --include-comments\nRun 'bd --help' for usage.\n" });
    const [old] = bd(['show', '--json', '--', 'c-work'], ws, bd104) as Json[];
    expect((old?.comments as Json[]).map((c) => c.text)).toEqual(['a checkpoint']);
    expect((old?.dependents as Json[]).map((d) => [d.id, d.dependency_type])).toEqual([['c-blocked', 'blocks']]);
    expect((bd(['version', '--json'], ws, bd104) as Json).version).toBe('1.0.4');
    // 1.0.5 leaves both out unless asked.
    const [plain] = bd(['show', '--json', '--', 'c-work'], ws) as Json[];
    expect(plain).not.toHaveProperty('comments');
    expect(plain).not.toHaveProperty('dependents');
    const [full] = bd(['show', '--json', '--include-comments', '--include-dependents', '--', 'c-work'], ws) as Json[];
    expect(keysOf(full)).toEqual(keysOf(old));
  }, TIMEOUT);

  it('C4/C9: bd refuses a claim in plain text on stderr, exit 1, and is idempotent for the same actor', () => {
    const ws = store();
    const theirs = runStandin('bd', ['update', '--claim', '--json', '--', 'c-theirs'], { cwd: ws });
    expect(theirs).toMatchObject({ code: 1, stdout: '', stderr: 'Error claiming c-theirs: issue already claimed by someone-else\n' });
    const notOpen = runStandin('bd', ['update', '--claim', '--json', '--', 'c-blocked'], { cwd: ws, env: { BEADS_ACTOR: 'another' } });
    expect(notOpen.code).toBe(0);
    const taken = runStandin('bd', ['update', '--claim', '--json', '--', 'c-blocked'], { cwd: ws });
    expect(taken).toMatchObject({ code: 1, stderr: 'Error claiming c-blocked: issue already claimed by another\n' });
    // bd checks no blockers, and claiming one's own in-progress issue again succeeds.
    expect((bd(['update', '--claim', '--json', '--', 'c-work'], ws) as Json[])[0]).toMatchObject({ id: 'c-work', status: 'in_progress' });
  }, TIMEOUT);

  it('C4: bd refuses to close a blocked issue and an epic with open children, in plain text; --force closes', () => {
    const ws = store();
    const blocked = runStandin('bd', ['close', '--reason=done', '--json', '--', 'c-blocked'], { cwd: ws });
    expect(blocked).toMatchObject({ code: 1, stdout: '', stderr: 'cannot close c-blocked: blocked by open issues [c-work] (use --force to override)\n' });
    const epic = runStandin('bd', ['close', '--reason=done', '--json', '--', 'c-epic'], { cwd: ws });
    expect(epic).toMatchObject({ code: 1, stdout: '', stderr: 'cannot close epic c-epic: 1 open child issue(s); close children first or use --force to override\n' });
    expect(() => JSON.parse(epic.stderr)).toThrow();
    expect((bd(['close', '--reason=done', '--force', '--json', '--', 'c-epic'], ws) as Json[])[0]).toMatchObject({ id: 'c-epic', status: 'closed' });
  }, TIMEOUT);

  it('C6: bd 1.2 ends a failed update with one compact {error, failed[{id,error}], schema_version} line on stderr', () => {
    const ws = store();
    const result = runStandin('bd', ['update', '--claim', '--json', '--', 'c-theirs'], { cwd: ws, env: bd12 });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('Error claiming c-theirs: issue already claimed by someone-else');
    expect(JSON.parse(lines.at(-1) as string)).toEqual({
      error: '1 of 1 issues failed to update',
      failed: [{ id: 'c-theirs', error: 'claiming issue: issue already claimed by someone-else' }],
      schema_version: 1,
    });
  }, TIMEOUT);

  it('C7: br prints {closed:[], skipped:[{id,reason}]} then fails NOTHING_TO_DO, exit 3, for a blocked issue and an epic with open children', () => {
    const ws = store();
    const structured = keysOf((fixtureJson('br', 'br_error_show_not_found.json') as Json).error);
    for (const [id, reason] of [
      ['c-blocked', 'blocked by: c-work'],
      ['c-epic', 'epic has 1/1 open children (use --force to close anyway)'],
    ] as const) {
      const result = runStandin('br', ['close', '--reason=done', '--json', '--', id], { cwd: ws });
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stdout)).toEqual({ closed: [], skipped: [{ id, reason }] });
      const error = (JSON.parse(result.stderr) as Json).error as Json;
      expect(keysOf(error)).toEqual(structured);
      expect(error).toMatchObject({ code: 'NOTHING_TO_DO', hint: 'All specified issues were already closed or not found.' });
    }
    const forced = br(['close', '--reason=done', '--force', '--json', '--', 'c-epic'], ws) as Json[];
    expect(forced.map((issue) => [issue.id, issue.status])).toEqual([['c-epic', 'closed']]);
  }, TIMEOUT);

  it('C8: with errors on stdout (br after 0.2.15) the same error JSON moves to stdout, after what close skipped', () => {
    const ws = store();
    const env = { BEADS_STANDIN_BR_ERROR_STREAM: 'stdout' };
    const missing = runStandin('br', ['show', '--json', '--', 'bd-NOTEXIST'], { cwd: ws, env });
    expect(missing).toMatchObject({ code: 3, stderr: '' });
    expect(JSON.parse(missing.stdout)).toEqual(fixtureJson('br', 'br_error_show_not_found.json'));
    const refused = runStandin('br', ['close', '--reason=done', '--json', '--', 'c-blocked'], { cwd: ws, env });
    expect(refused).toMatchObject({ code: 3, stderr: '' });
    const [skipped, ...rest] = refused.stdout.split('\n');
    expect(JSON.parse(skipped as string)).toEqual({ closed: [], skipped: [{ id: 'c-blocked', reason: 'blocked by: c-work' }] });
    expect((JSON.parse(rest.join('\n')) as Json).error).toMatchObject({ code: 'NOTHING_TO_DO' });
  }, TIMEOUT);

  it("C9: br refuses a claim of someone else's or a blocked issue with VALIDATION_FAILED, exit 4", () => {
    const ws = store();
    const theirs = runStandin('br', ['update', '--claim', '--json', '--', 'c-theirs'], { cwd: ws });
    expect(theirs.code).toBe(4);
    expect((JSON.parse(theirs.stderr) as Json).error).toMatchObject({ code: 'VALIDATION_FAILED', message: 'Validation failed: claim: issue c-theirs already assigned to someone-else' });
    const blocked = runStandin('br', ['update', '--claim', '--json', '--', 'c-blocked'], { cwd: ws });
    expect(blocked.code).toBe(4);
    expect((JSON.parse(blocked.stderr) as Json).error).toMatchObject({ code: 'VALIDATION_FAILED', message: 'Validation failed: claim: cannot claim blocked issue: c-work' });
  }, TIMEOUT);

  it('C12: a br claim is made by --actor, config actor or BD_ACTOR, then $USER, then "unknown" (BEADS_ACTOR and LOGNAME count only for a comment\'s author)', () => {
    const ws = storeWith();
    const create = (title: string) => createdId(br(['create', title, '--json'], ws));
    const claimedBy = (id: string, env: Record<string, string>) => {
      const result = runStandin('br', ['update', id, '--claim', '--json'], { cwd: ws, env: { USER: '', LOGNAME: '', USERNAME: '', BD_ACTOR: '', BEADS_ACTOR: '', ...env } });
      expect(result.code).toBe(0);
      return (runJson('br', ['show', id, '--json'], { cwd: ws }) as Json[])[0]?.assignee;
    };
    expect(claimedBy(create('one'), { BEADS_ACTOR: 'beads-actor', LOGNAME: 'login' })).toBe('unknown');
    expect(claimedBy(create('two'), { BEADS_ACTOR: 'beads-actor', USER: 'alice' })).toBe('alice');
    expect(claimedBy(create('three'), { BD_ACTOR: 'bd-actor', USER: 'alice' })).toBe('bd-actor');
    const author = runStandin('br', ['comments', 'add', create('four'), 'a note', '--json'], { cwd: ws, env: { USER: '', BD_ACTOR: '', BEADS_ACTOR: 'beads-actor' } });
    expect((JSON.parse(author.stdout) as Json).author).toBe('beads-actor');
  }, TIMEOUT);
});
