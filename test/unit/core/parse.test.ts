import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCliOwnError } from '../../../src/beads/errors';
import {
  parseComment,
  parseIssueList,
  parsePriority,
  parseShow,
  parseVersion,
  parseWhere,
  unwrapList,
} from '../../../src/core/parse';
import { parseTimestamp } from '../../../src/core/time';

// The captured CLI output lives beside the repository (see the team brief), read-only.
const FIXTURES = resolve(__dirname, '../..', 'fixtures', 'beads', 'fixtures');

function fixture(dialect: 'bd' | 'br', name: string): unknown {
  return JSON.parse(readFileSync(resolve(FIXTURES, dialect, name), 'utf8'));
}

function fixtureText(dialect: 'bd' | 'br', name: string): string {
  return readFileSync(resolve(FIXTURES, dialect, name), 'utf8');
}

/**
 * Every fixture, with what the extension reads from it. Listing them all (and checking the
 * list against the folder) means a new capture cannot be added without saying how it parses.
 */
const LIST_FIXTURES: Record<string, { dialect: 'bd' | 'br'; titles: string[] }> = {
  'bd_docs_json_schema_01_envelope_object_example.json': { dialect: 'bd', titles: ['Example issue'] },
  'bd_docs_json_schema_02_envelope_array_example.json': { dialect: 'bd', titles: ['First', 'Second'] },
  'bd_docs_json_schema_03_legacy_object_show_create_close_update.json': { dialect: 'bd', titles: ['Example issue'] },
  'br_list.json': { dialect: 'br', titles: ['Issue two', 'Issue one'] },
  'br_list_empty.json': { dialect: 'br', titles: [] },
  'br_list_filtered.json': { dialect: 'br', titles: ['Bug: Fix login'] },
  'br_list_priority_ordering.json': { dialect: 'br', titles: [] /* filled from the file below */ },
  'br_representative_list.json': { dialect: 'br', titles: ['01 Parent Epic', '02 Child Task', '03 Closed Bug'] },
  'br_agent_baseline_list_limit3.json': { dialect: 'br', titles: ['Two', 'Three', 'One'] },
  'br_search.json': { dialect: 'br', titles: ['Search target'] },
  'br_search_no_match.json': { dialect: 'br', titles: [] },
  'br_stale.json': { dialect: 'br', titles: ['Stale issue'] },
  'br_stale_empty.json': { dialect: 'br', titles: [] },
  'br_ready.json': { dialect: 'br', titles: ['Ready issue'] },
  'br_ready_empty.json': { dialect: 'br', titles: [] },
  'br_ready_priority_ordering.json': { dialect: 'br', titles: ['Urgent ready task', 'Backlog ready task', 'Normal ready task'] },
  'br_agent_baseline_ready.json': { dialect: 'br', titles: ['Two', 'Three', 'One'] },
  'br_blocked.json': { dialect: 'br', titles: ['Blocked issue'] },
  'br_blocked_empty.json': { dialect: 'br', titles: [] },
  'br_orphans.json': { dialect: 'br', titles: [] },
  'br_update.json': { dialect: 'br', titles: ['Issue to update'] },
  'br_close.json': { dialect: 'br', titles: ['Issue to close'] },
  'br_create.json': { dialect: 'br', titles: ['New feature request'] },
};

const SHOW_FIXTURES = ['br_show.json', 'br_show_multiple_ids.json', 'br_representative_show.json', 'br_agent_baseline_show_one.json'];

/** JSON that is not issue-shaped: it must never turn into phantom issues. */
const NON_ISSUE_FIXTURES = [
  'br_count.json',
  'br_count_empty.json',
  'br_count_grouped.json',
  'br_count_grouped_by_priority.json',
  'br_count_grouped_by_type.json',
  'br_dep_list.json',
  'br_graph.json',
  'br_graph_all.json',
  'br_label_add.json',
  'br_label_list.json',
  'br_label_list_all.json',
  'br_stats.json',
  'br_info.json',
  'br_info_schema.json',
  'br_info_error.json',
  'br_where_error.json',
  'br_error_show_not_found.json',
  'bd_docs_json_schema_05_error_stderr.json',
  'br_agent_baseline_version.json',
  'br_where.json',
  'br_comments_add.json',
  'br_comments_list.json',
];

/** Covered in parse.jsonl.test.ts (records and JSONL lines). */
const JSONL_FIXTURES = [
  'bd_export_line_v1_0_x_root_issues.jsonl',
  'bd_import_minimal_line.jsonl',
  'bd_jsonl_record_dolt_export_epic.json',
  'bd_jsonl_record_dolt_export_with_parent_deps.json',
  'bd_jsonl_record_sqlite_era_closed.json',
  'bd_jsonl_record_sqlite_era_tombstone.json',
  'bd_jsonl_record_sqlite_era_with_comments.json',
  'bd_jsonl_record_sqlite_era_with_deps_labels.json',
  'br_issues_jsonl_export.jsonl',
  'br_jsonl_record_in_progress.json',
  'br_jsonl_record_tombstone.json',
  'br_jsonl_record_with_comments_deps.json',
];

/** Not JSON: documentation templates with elisions and insta snapshots with YAML headers. */
const NOT_JSON_FIXTURES = [
  'bd_docs_json_schema_00_envelope_format_template.txt',
  'bd_docs_json_schema_04_legacy_list_commands_array_ELIDED.txt',
  'br_init_directory_listing.snap.txt',
  'br_init_text_contents.snap.txt',
  'br_storage_golden_create_update_close.snap.txt',
];

function dialectOf(name: string): 'bd' | 'br' {
  return name.startsWith('bd_') ? 'bd' : 'br';
}

describe('fixture coverage', () => {
  it('names every captured fixture in exactly one group', () => {
    const onDisk = [...readdirSync(resolve(FIXTURES, 'bd')), ...readdirSync(resolve(FIXTURES, 'br'))].filter((name) => name !== 'README.md').sort();
    const covered = [
      ...Object.keys(LIST_FIXTURES),
      ...SHOW_FIXTURES,
      ...NON_ISSUE_FIXTURES,
      ...JSONL_FIXTURES,
      ...NOT_JSON_FIXTURES,
    ].sort();
    expect(covered).toEqual(onDisk);
  });

  it('finds the non-JSON fixtures really are not JSON (so nothing is silently skipped)', () => {
    for (const name of NOT_JSON_FIXTURES) {
      expect(() => JSON.parse(fixtureText(dialectOf(name), name)), name).toThrow();
    }
  });
});

describe('parseIssueList', () => {
  for (const [name, expected] of Object.entries(LIST_FIXTURES)) {
    it(`reads ${name}`, () => {
      const json = fixture(expected.dialect, name);
      const issues = parseIssueList(json);
      const titles =
        name === 'br_list_priority_ordering.json'
          ? (unwrapList(json) as { title: string }[]).map((element) => element.title)
          : expected.titles;
      expect(issues.map((issue) => issue.title)).toEqual(titles);
      for (const issue of issues) {
        expect(typeof issue.id).toBe('string');
        expect(issue.id.length).toBeGreaterThan(0);
        expect(Number.isInteger(issue.priority)).toBe(true);
        expect(Array.isArray(issue.labels)).toBe(true);
        expect(issue).not.toHaveProperty('schema_version');
        expect(issue).not.toHaveProperty('dependency_count');
      }
    });
  }

  it('keeps the values a list element carries', () => {
    const [parent, child, closed] = parseIssueList(fixture('br', 'br_representative_list.json'));
    expect(parent).toEqual({
      id: 'bd-golden-parent',
      title: '01 Parent Epic',
      status: 'open',
      priority: 1,
      issueType: 'epic',
      description: 'Parent description',
      assignee: 'alice',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      labels: ['ops', 'ux'],
    });
    expect(child?.status).toBe('in_progress');
    expect(closed?.closedAt).toBe('2026-01-03T03:00:00Z');
  });

  it('fills what reduced shapes leave out (br update has no type, no created_at)', () => {
    const [updated] = parseIssueList(fixture('br', 'br_update.json'));
    expect(updated).toMatchObject({ status: 'in_progress', priority: 2, issueType: 'task', createdAt: '', updatedAt: 'TIMESTAMP', labels: [] });
  });

  it('unwraps the bd envelope and ignores schema_version on a legacy object', () => {
    const [issue] = parseIssueList(fixture('bd', 'bd_docs_json_schema_03_legacy_object_show_create_close_update.json'));
    expect(issue).toEqual({
      id: 'beads-abc',
      title: 'Example issue',
      status: 'open',
      priority: 1,
      issueType: 'task',
      createdAt: '2026-04-20T12:00:00Z',
      updatedAt: '2026-04-20T12:00:00Z',
      labels: [],
    });
  });

  it('yields no issues from JSON that is not issue-shaped', () => {
    for (const name of NON_ISSUE_FIXTURES.filter((candidate) => !candidate.startsWith('br_comments'))) {
      expect(parseIssueList(fixture(dialectOf(name), name)), name).toEqual([]);
    }
  });

  it('skips elements without an id and keeps open-ended statuses and types', () => {
    const issues = parseIssueList([
      { title: 'no id' },
      null,
      'text',
      { id: 'x-1', title: 'custom', status: 'invalid', issue_type: 'not_a_real_type', priority: 'P3' },
    ]);
    expect(issues).toEqual([
      { id: 'x-1', title: 'custom', status: 'invalid', priority: 3, issueType: 'not_a_real_type', createdAt: '', updatedAt: '', labels: [] },
    ]);
  });
});

describe('parseShow', () => {
  it('reads every br show fixture as an array of details with empty arrays where br omits them', () => {
    const expectedCounts: Record<string, number> = {
      'br_show.json': 1,
      'br_show_multiple_ids.json': 2,
      'br_representative_show.json': 4,
      'br_agent_baseline_show_one.json': 1,
    };
    for (const name of SHOW_FIXTURES) {
      const details = parseShow(fixture('br', name));
      expect(details, name).toHaveLength(expectedCounts[name] as number);
      for (const issue of details) {
        expect(Array.isArray(issue.dependencies)).toBe(true);
        expect(Array.isArray(issue.dependents)).toBe(true);
        expect(Array.isArray(issue.comments)).toBe(true);
      }
    }
  });

  it('reads br summaries of dependencies and dependents, comments and integer comment ids', () => {
    const [parent, child, closed, deleted] = parseShow(fixture('br', 'br_representative_show.json'));
    expect(parent?.dependents).toEqual([
      { id: 'bd-golden-child', title: '02 Child Task', status: 'in_progress', priority: 2, issueType: '', dependencyType: 'parent-child' },
    ]);
    expect(parent?.dependencies).toEqual([]);
    expect(child?.dependencies).toEqual([
      { id: 'bd-golden-parent', title: '01 Parent Epic', status: 'open', priority: 1, issueType: '', dependencyType: 'parent-child' },
    ]);
    expect(child?.comments).toEqual([{ id: '1', author: 'fixture', text: 'first comment', createdAt: '2026-01-02T02:00:00Z' }]);
    expect(closed?.comments).toEqual([]);
    expect(deleted?.status).toBe('tombstone');
  });

  it('reads bd show: full issues as dependencies, shallow dependents, string comment ids', () => {
    // bd show --json --include-comments --include-dependents, shaped per the Go structs the contract cites.
    const bdShow = [
      {
        id: 'bd-child',
        title: 'Child',
        status: 'in_progress',
        priority: 1,
        issue_type: 'task',
        created_at: '2026-04-18T16:19:12Z',
        updated_at: '2026-04-18T16:30:16Z',
        labels: ['backend'],
        dependencies: [
          {
            id: 'bd-epic',
            title: 'Epic',
            description: 'A full issue object',
            status: 'open',
            priority: 0,
            issue_type: 'epic',
            created_at: '2026-04-01T00:00:00Z',
            updated_at: '2026-04-01T00:00:00Z',
            dependency_type: 'parent-child',
          },
          { id: 'bd-blocker', title: 'Blocker', status: 'closed', priority: 2, issue_type: 'bug', dependency_type: 'blocks' },
        ],
        dependents: [{ id: 'bd-next', status: 'open', issue_type: 'feature', priority: 3, title: 'Next', dependency_type: 'blocks' }],
        comments: [
          { id: '019de2a1-7c4e-7b8a-9f00-000000000001', issue_id: 'bd-child', author: 'matt', text: '--starts with dashes', created_at: '2026-04-18T16:31:00Z' },
        ],
        dependency_count: 2,
        dependent_count: 1,
        comment_count: 1,
        parent: 'bd-epic',
      },
    ];
    const [child] = parseShow(bdShow);
    expect(child?.dependencies).toEqual([
      { id: 'bd-epic', title: 'Epic', status: 'open', priority: 0, issueType: 'epic', dependencyType: 'parent-child' },
      { id: 'bd-blocker', title: 'Blocker', status: 'closed', priority: 2, issueType: 'bug', dependencyType: 'blocks' },
    ]);
    expect(child?.dependents).toEqual([{ id: 'bd-next', title: 'Next', status: 'open', priority: 3, issueType: 'feature', dependencyType: 'blocks' }]);
    expect(child?.comments[0]?.id).toBe('019de2a1-7c4e-7b8a-9f00-000000000001');
    expect(child?.comments[0]?.text).toBe('--starts with dashes');
  });

  it('reads bd show without --include-dependents (counts only) as no dependents, and the envelope form', () => {
    const [issue] = parseShow({ schema_version: 1, data: [{ id: 'bd-1', title: 't', status: 'open', priority: 2, issue_type: 'task', dependent_count: 3 }] });
    expect(issue?.dependents).toEqual([]);
    expect(issue?.comments).toEqual([]);
  });

  it('turns raw dependency records into unknown linked issues instead of dropping them', () => {
    const [issue] = parseShow([{ id: 'a', dependencies: [{ issue_id: 'a', depends_on_id: 'gone', type: 'blocks' }] }]);
    expect(issue?.dependencies).toEqual([{ id: 'gone', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown', dependencyType: 'blocks' }]);
  });
});

describe('parseWhere and parseVersion', () => {
  it('reads br where and rejects the no-workspace shapes of both CLIs', () => {
    expect(parseWhere(fixture('br', 'br_where.json'))).toEqual({ path: '/WORKSPACE/.beads', prefix: 'bd', databasePath: '/WORKSPACE/.beads' });
    expect(parseWhere(fixture('br', 'br_where_error.json'))).toBeUndefined();
    expect(parseWhere({ error: 'no_beads_directory', message: 'no beads database found', hint: 'run bd init' })).toBeUndefined();
    expect(parseWhere(fixture('br', 'br_info.json'))).toBeUndefined();
  });

  it('reads bd where with schema_version and a redirect', () => {
    expect(parseWhere({ path: '/r/.beads', redirected_from: '/w/.beads', prefix: 'bd', database_path: '/r/.beads/embeddeddolt', schema_version: 1 })).toEqual({
      path: '/r/.beads',
      redirectedFrom: '/w/.beads',
      prefix: 'bd',
      databasePath: '/r/.beads/embeddeddolt',
    });
  });

  it('reads both version shapes', () => {
    expect(parseVersion(fixture('br', 'br_agent_baseline_version.json'))).toEqual({ version: '0.2.10', build: '<build>' });
    expect(parseVersion({ version: '1.0.5', build: 'dev', commit: 'abc', schema_version: 1 })).toEqual({ version: '1.0.5', build: 'dev' });
    expect(parseVersion({ error: 'x' })).toBeUndefined();
  });
});

describe('comments', () => {
  it('reads the br comment fixtures and a bd comment object with schema_version', () => {
    expect(parseComment(fixture('br', 'br_comments_add.json'))).toEqual({ id: 'ISSUE_ID', author: 'ACTOR', text: 'First comment', createdAt: 'TIMESTAMP' });
    expect((fixture('br', 'br_comments_list.json') as unknown[]).map(parseComment)).toHaveLength(1);
    expect(parseComment({ id: 42, issue_id: 'b-1', author: 'a', text: 't', created_at: '2026-01-01T00:00:00Z', schema_version: 1 })?.id).toBe('42');
  });
});

describe('CLI error JSON', () => {
  it('reads bd stderr, br stderr and bd where errors', () => {
    expect(parseCliOwnError(fixtureText('bd', 'bd_docs_json_schema_05_error_stderr.json'))).toEqual({ message: 'issue not found: beads-xyz', code: 'not_found' });
    expect(parseCliOwnError(fixtureText('br', 'br_error_show_not_found.json'))).toEqual({
      message: 'Issue not found: bd-NOTEXIST',
      code: 'ISSUE_NOT_FOUND',
      hint: "Run 'br list' to see available issues.",
      searchedId: 'bd-NOTEXIST',
    });
    expect(parseCliOwnError('{"error":"no_beads_directory","message":"no beads database found","hint":"run \'bd init\'"}')).toEqual({
      message: 'no beads database found',
      code: 'no_beads_directory',
      hint: "run 'bd init'",
    });
    expect(parseCliOwnError(fixtureText('br', 'br_where_error.json'))).toEqual({ message: 'no beads directory found' });
  });

  it('finds the JSON after plain-text lines (bd prints "Issue x not found" first)', () => {
    const stderr = 'Issue bd-zzz not found\n{\n  "error": "no issues found matching the provided IDs",\n  "schema_version": 1\n}\n';
    expect(parseCliOwnError(stderr)?.message).toBe('no issues found matching the provided IDs');
    expect(parseCliOwnError('plain failure text')).toBeUndefined();
  });
});

describe('scalars', () => {
  it('reads priorities as numbers or P-strings', () => {
    expect(parsePriority(0)).toBe(0);
    expect(parsePriority('P4')).toBe(4);
    expect(parsePriority('p1')).toBe(1);
    expect(parsePriority('3')).toBe(3);
    expect(parsePriority(undefined)).toBe(2);
    expect(parsePriority('high')).toBe(2);
  });

  it('reads RFC3339 with any fraction and offset', () => {
    expect(parseTimestamp('2025-11-02T21:58:07.295058-08:00')).toBe(Date.UTC(2025, 10, 3, 5, 58, 7, 295));
    expect(parseTimestamp('2026-04-22T23:29:50.189638342Z')).toBe(Date.UTC(2026, 3, 22, 23, 29, 50, 189));
    expect(parseTimestamp('2026-04-22T12:00:00+00:00')).toBe(Date.UTC(2026, 3, 22, 12));
    expect(parseTimestamp('2026-04-22T12:00:00+05:30')).toBe(Date.UTC(2026, 3, 22, 6, 30));
    expect(parseTimestamp('2026-04-22T12:00:00.5Z')).toBe(Date.UTC(2026, 3, 22, 12, 0, 0, 500));
    expect(parseTimestamp('TIMESTAMP')).toBeUndefined();
    expect(parseTimestamp(undefined)).toBeUndefined();
  });
});
