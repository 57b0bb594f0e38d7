import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { issueFromLine, JsonlReader, LISTED_DESCRIPTION_CHARS, parseJsonl, type JsonlLoad } from '../../../src/core/parse';
import { parseTimestamp } from '../../../src/core/time';
import { isTerminal, type IssueDetails } from '../../../src/core/model';

const SHARED = resolve(__dirname, '../..', 'fixtures', 'beads');
const LARGE = resolve(SHARED, 'data', 'bd_beads-repo_2026-01-21_ce622f56_sqlite-era_5722.issues.jsonl');
const SMALL = resolve(SHARED, 'data', 'bd_3rdparty_jkarasha-fastapi-todo-api-beads_e3314363_small.issues.jsonl');

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

/** A pretty-printed single-record fixture as one JSONL line. */
function recordLine(dialect: 'bd' | 'br', name: string): string {
  return JSON.stringify(JSON.parse(read(resolve(SHARED, 'fixtures', dialect, name))));
}

function byId(issues: IssueDetails[]): Map<string, IssueDetails> {
  return new Map(issues.map((issue) => [issue.id, issue]));
}

function count<T>(items: T[], predicate: (item: T) => boolean): number {
  return items.reduce((total, item) => total + (predicate(item) ? 1 : 0), 0);
}

describe('parseJsonl on the 5,722-line SQLite-era bd store', () => {
  const load = parseJsonl(read(LARGE));
  const issues = byId(load.issues);

  it('keeps every live issue and skips the 3,319 tombstones', () => {
    expect(load.tombstones).toBe(3319);
    expect(load.issues).toHaveLength(2403);
    expect(load.skipped).toBe(0);
    expect(load.partialLastLine).toBe(false);
    expect(count(load.issues, (issue) => issue.status === 'closed')).toBe(2259);
    expect(count(load.issues, (issue) => issue.status === 'open')).toBe(131);
    expect(count(load.issues, (issue) => issue.status === 'hooked')).toBe(13);
    expect(count(load.issues, (issue) => issue.status === 'tombstone')).toBe(0);
  });

  it('resolves embedded dependency records in both directions', () => {
    const dependencies = load.issues.flatMap((issue) => issue.dependencies);
    expect(count(load.issues, (issue) => issue.dependencies.length > 0)).toBe(554);
    expect(dependencies).toHaveLength(780);
    // Targets missing from the file stay visible as unknown; deleted ones keep their tombstone status.
    expect(count(dependencies, (dependency) => dependency.status === 'unknown')).toBe(55);
    expect(count(dependencies, (dependency) => dependency.status === 'tombstone')).toBe(11);
    expect(load.issues.flatMap((issue) => issue.dependents)).toHaveLength(714);
    expect(count(dependencies, (dependency) => dependency.dependencyType === 'blocked-by')).toBe(1);
    expect(count(dependencies, (dependency) => dependency.dependencyType === 'tracks')).toBe(52);
  });

  it('links a blocks record from the issue to its target and back', () => {
    const blocked = issues.get('bd-34q1');
    // bd-34q1 depends on bd-mypl through `blocks` (fixture bd_jsonl_record_sqlite_era_with_deps_labels.json).
    const link = blocked?.dependencies.find((dependency) => dependency.id === 'bd-mypl');
    expect(link?.dependencyType).toBe('blocks');
    expect(link?.title).toBe(issues.get('bd-mypl')?.title ?? '(unknown)');
    if (issues.has('bd-mypl')) {
      expect(issues.get('bd-mypl')?.dependents.some((dependent) => dependent.id === 'bd-34q1' && dependent.dependencyType === 'blocks')).toBe(true);
    }
    expect(blocked?.labels).toEqual(['gh:788']);
  });

  it('reads the 23 comments of live issues, with integer ids as strings', () => {
    const comments = load.issues.flatMap((issue) => issue.comments);
    expect(comments).toHaveLength(23);
    expect(count(load.issues, (issue) => issue.comments.length > 0)).toBe(20);
    for (const comment of comments) expect(comment.id).toMatch(/^\d+$/);
    const first = issues.get('bd-03z45')?.comments[0];
    expect(first).toMatchObject({ id: '1', author: 'beads/crew/giles', createdAt: '2026-01-12T02:16:51Z' });
    expect(first?.text.startsWith('Testing markdown:')).toBe(true);
  });

  it('keeps local-offset timestamps as printed and parses them to the right instant', () => {
    const closed = issues.get('bd-02gts');
    expect(closed?.createdAt).toBe('2026-01-10T18:25:13.410273-08:00');
    expect(parseTimestamp(closed?.createdAt)).toBe(Date.UTC(2026, 0, 11, 2, 25, 13, 410));
  });

  it('gives the same result when no tombstone line can take the shortcut', () => {
    // A space after the key defeats the tombstone shortcut, so every line is parsed in full.
    const spaced = read(LARGE).replaceAll('"status":"tombstone"', '"status": "tombstone"');
    const slow = parseJsonl(spaced);
    expect(slow.tombstones).toBe(3319);
    expect(slow.issues).toEqual(load.issues);
  });
});

/** Reads `content` as the backend reads a file, a line at a time with each line's place in bytes. */
function readAsStream(content: string): { load: JsonlLoad; bytes: Buffer } {
  const bytes = Buffer.from(content, 'utf8');
  const reader = new JsonlReader();
  let offset = 0;
  while (offset < bytes.length) {
    const newline = bytes.indexOf(0x0a, offset);
    const end = newline === -1 ? bytes.length : newline;
    reader.add(bytes.subarray(offset, end).toString('utf8'), newline !== -1, { offset, bytes: end - offset });
    offset = end + 1;
  }
  for (const [id, span] of reader.tombstonesToRead()) reader.addTombstoneLine(id, bytes.subarray(span.offset, span.offset + span.bytes).toString('utf8'));
  return { load: reader.finish(), bytes };
}

describe('JsonlReader given each line with its place (a file read as a stream)', () => {
  it('keeps the issues as lists show them, and where their lines are; each line reads back to the whole issue', () => {
    const whole = parseJsonl(read(LARGE));
    const { load: listed, bytes } = readAsStream(read(LARGE));
    expect(listed.issues.map((issue) => issue.id)).toEqual(whole.issues.map((issue) => issue.id));
    expect(listed.tombstones).toBe(3319);
    whole.issues.forEach((issue, index) => {
      const kept = listed.issues[index]!;
      // Links, and the removed issues they name, as a whole read gives them.
      expect(kept.dependencies).toEqual(issue.dependencies);
      expect(kept.dependents).toEqual(issue.dependents);
      expect({ ...kept, description: undefined, dependencies: [], dependents: [] }).toEqual({
        ...issue,
        description: undefined,
        acceptanceCriteria: undefined,
        notes: undefined,
        design: undefined,
        agentContext: undefined,
        dependencies: [],
        dependents: [],
        comments: [],
      });
      // Open work keeps its description begun (the sidebar shows its first lines); closed work none.
      if (issue.description === undefined || isTerminal(issue.status)) expect(kept.description).toBeUndefined();
      else expect(issue.description.startsWith(kept.description!.replace(/…$/, ''))).toBe(true);
      const span = listed.spans.get(issue.id)!;
      const again = issueFromLine(bytes.subarray(span.offset, span.offset + span.bytes).toString('utf8'));
      expect({ ...again, dependencies: issue.dependencies, dependents: issue.dependents }).toEqual(issue);
    });
  });

  it('holds none of the long texts it read: what it keeps does not grow with them', () => {
    const long = (seed: number) => `${'lorem ipsum dolor sit amet '.repeat(4000)}${seed}`;
    const lines = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify({
        id: `m-${index}`,
        title: `Issue ${index}`,
        status: index % 4 === 0 ? 'in_progress' : 'open',
        priority: 2,
        issue_type: 'task',
        created_at: '2026-01-01T00:00:00Z',
        description: long(index),
        design: long(index + 1),
        notes: long(index + 2),
        acceptance_criteria: long(index + 3),
        comments: [1, 2, 3].map((comment) => ({ id: comment, author: 'a', text: long(index * 10 + comment), created_at: '2026-01-02T00:00:00Z' })),
      }),
    );
    const content = `${lines.join('\n')}\n`;
    const { load } = readAsStream(content);
    expect(load.issues).toHaveLength(40);
    // Each issue keeps a bounded part: its fields, a description begun. Before: every text, 97% of the file.
    const kept = JSON.stringify(load.issues).length;
    expect(kept).toBeLessThan(40 * (LISTED_DESCRIPTION_CHARS + 500));
    expect(kept / content.length).toBeLessThan(0.01);
    for (const issue of load.issues) {
      expect(issue.comments).toEqual([]);
      expect(issue.description!.length).toBe(LISTED_DESCRIPTION_CHARS + 1);
      expect([issue.design, issue.notes, issue.acceptanceCriteria]).toEqual([undefined, undefined, undefined]);
    }
  });
});

describe('parseJsonl on the small bd user project', () => {
  const load = parseJsonl(read(SMALL));
  const issues = byId(load.issues);

  it('reads all 64 issues and their 106 dependency records', () => {
    expect(load.issues).toHaveLength(64);
    expect(load.issues.flatMap((issue) => issue.dependencies)).toHaveLength(106);
    expect(load.issues.flatMap((issue) => issue.dependents)).toHaveLength(106);
    expect(count(load.issues, (issue) => issue.dependencies.length > 0)).toBe(63);
  });

  it('links hierarchical children to their parent through parent-child', () => {
    const children = load.issues.filter((issue) => /\.\d+$/.test(issue.id));
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) {
      const parentId = child.id.replace(/\.\d+$/, '');
      const parentLink = child.dependencies.find((dependency) => dependency.dependencyType === 'parent-child');
      expect(parentLink?.id, child.id).toBe(parentId);
      expect(issues.get(parentId)?.dependents.some((dependent) => dependent.id === child.id && dependent.dependencyType === 'parent-child')).toBe(true);
    }
  });

  it('tolerates a partial last line (a write caught mid-way)', () => {
    const text = read(SMALL);
    const lastLineStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const truncated = text.slice(0, lastLineStart + Math.floor((text.length - lastLineStart) / 2));
    const partial = parseJsonl(truncated);
    expect(partial.partialLastLine).toBe(true);
    expect(partial.skipped).toBe(0);
    expect(partial.issues).toHaveLength(63);
  });

  it('counts corrupt middle lines and keeps going', () => {
    const lines = read(SMALL).split('\n');
    lines.splice(10, 0, '{"id":"broken", "title": ');
    lines.splice(20, 0, 'not json at all');
    lines.splice(30, 0, '[1,2,3]');
    const load = parseJsonl(lines.join('\n'));
    expect(load.skipped).toBe(3);
    expect(load.partialLastLine).toBe(false);
    expect(load.issues).toHaveLength(64);
  });
});

describe('parseJsonl record shapes (fixtures)', () => {
  it('reads bd SQLite-era, bd Dolt-era and br records together', () => {
    const text = [
      recordLine('bd', 'bd_jsonl_record_sqlite_era_closed.json'),
      recordLine('bd', 'bd_jsonl_record_sqlite_era_tombstone.json'),
      recordLine('bd', 'bd_jsonl_record_sqlite_era_with_comments.json'),
      recordLine('bd', 'bd_jsonl_record_sqlite_era_with_deps_labels.json'),
      recordLine('bd', 'bd_jsonl_record_dolt_export_epic.json'),
      recordLine('bd', 'bd_jsonl_record_dolt_export_with_parent_deps.json'),
      recordLine('br', 'br_jsonl_record_in_progress.json'),
      recordLine('br', 'br_jsonl_record_tombstone.json'),
      recordLine('br', 'br_jsonl_record_with_comments_deps.json'),
    ].join('\n');
    const load = parseJsonl(`${text}\n`);
    expect(load.tombstones).toBe(2);
    expect(load.issues.map((issue) => issue.id)).toEqual(['bd-02gts', 'bd-03z45', 'bd-34q1', 'bd-tggf', 'bd-au0.7', 'beads_rust-fudw', 'beads_rust-0k65']);
    const issues = byId(load.issues);
    expect(issues.get('bd-au0.7')?.dependencies).toEqual([
      { id: 'bd-au0', title: '(unknown)', status: 'unknown', priority: 2, issueType: 'unknown', dependencyType: 'parent-child' },
    ]);
    expect(issues.get('beads_rust-fudw')?.comments).toHaveLength(23);
    expect(issues.get('beads_rust-fudw')?.comments[0]?.id).toBe('697');
    expect(issues.get('beads_rust-fudw')?.status).toBe('in_progress');
    expect(issues.get('beads_rust-0k65')?.comments[0]?.id).toBe('587');
    expect(issues.get('beads_rust-0k65')?.labels).toEqual(['list', 'perf', 'swarm', 'toon']);
  });

  it('reads the bd v1.0 export line, the minimal import line and the br export snapshot', () => {
    const exported = parseJsonl(read(resolve(SHARED, 'fixtures', 'bd', 'bd_export_line_v1_0_x_root_issues.jsonl')));
    expect(exported.issues.map((issue) => [issue.id, issue.status, issue.issueType])).toEqual([['bd-main-idj', 'in_progress', 'chore']]);
    const minimal = parseJsonl(read(resolve(SHARED, 'fixtures', 'bd', 'bd_import_minimal_line.jsonl')));
    expect(minimal.issues.map((issue) => issue.title)).toEqual(['Imported issue']);
    // The br snapshot's ids are normalized to ISSUE_ID, so the second line replaces the first.
    const brExport = parseJsonl(read(resolve(SHARED, 'fixtures', 'br', 'br_issues_jsonl_export.jsonl')));
    expect(brExport.issues.map((issue) => issue.title)).toEqual(['JSONL issue two']);
  });

  it('skips non-issue records, reads bd v1 string comment ids and records schedule flags', () => {
    const lines = [
      { _type: 'memory', key: 'k', value: 'v' },
      {
        _type: 'issue',
        id: 'bd-a',
        title: 'A',
        status: 'open',
        priority: 1,
        issue_type: 'task',
        created_at: '2026-04-18T16:19:12Z',
        updated_at: '2026-04-18T16:19:12Z',
        defer_until: '2099-01-01T00:00:00Z',
        comments: [{ id: '019de2a1-0000-7000-8000-000000000001', issue_id: 'bd-a', author: 'm', text: 'hi', created_at: '2026-04-18T16:20:00+02:00' }],
      },
      { id: 'bd-b', title: 'B', status: 'open', priority: 'P0', issue_type: 'task', ephemeral: true, pinned: true, is_template: true },
    ].map((line) => JSON.stringify(line));
    const load = parseJsonl(lines.join('\n'));
    expect(load.otherRecords).toBe(1);
    expect(load.issues.map((issue) => issue.id)).toEqual(['bd-a', 'bd-b']);
    expect(load.issues[0]?.comments[0]?.id).toBe('019de2a1-0000-7000-8000-000000000001');
    expect(load.issues[1]?.priority).toBe(0);
    expect(load.schedule.get('bd-a')).toEqual({ deferUntil: '2099-01-01T00:00:00Z' });
    expect(load.schedule.get('bd-b')).toEqual({ pinned: true, ephemeral: true, template: true });
  });

  it('lets a later line for the same id win, including a later tombstone', () => {
    const lines = [
      '{"id":"x-1","title":"old","status":"open","priority":2,"issue_type":"task"}',
      '{"id":"x-2","title":"kept","status":"open","priority":2,"issue_type":"task","dependencies":[{"issue_id":"x-2","depends_on_id":"x-1","type":"blocks"}]}',
      '{"id":"x-1","title":"new","status":"open","priority":2,"issue_type":"task"}',
      '{"id":"x-3","title":"doomed","status":"open","priority":2,"issue_type":"task"}',
      '{"id":"x-3","title":"doomed","status":"tombstone","priority":2,"issue_type":"task"}',
    ];
    const load = parseJsonl(`${lines.join('\n')}\n`);
    expect(load.issues.map((issue) => [issue.id, issue.title])).toEqual([
      ['x-2', 'kept'],
      ['x-1', 'new'],
    ]);
    expect(load.issues[0]?.dependencies[0]?.title).toBe('new');
    expect(load.issues[1]?.dependents.map((dependent) => dependent.id)).toEqual(['x-2']);
  });

  it('reads an empty file and CRLF line endings', () => {
    expect(parseJsonl('')).toMatchObject({ issues: [], skipped: 0, partialLastLine: false });
    const crlf = parseJsonl('{"id":"w-1","title":"a","status":"open"}\r\n{"id":"w-2","title":"b","status":"open"}\r\n');
    expect(crlf.issues.map((issue) => issue.id)).toEqual(['w-1', 'w-2']);
  });
});
