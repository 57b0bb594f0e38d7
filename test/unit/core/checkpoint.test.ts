import { describe, expect, it } from 'vitest';
import {
  activityFingerprint,
  autoCheckpointComment,
  checkpointComment,
  commitHashesFromComments,
  filesFromComments,
  filesModifiedComment,
  hasNewActivity,
  isCheckpointLike,
  checkpointWindowStart,
  cliClockOffset,
  lastNextStep,
  latestCheckpointAt,
  newestForeignComment,
  onOurClock,
  summarizeActivity,
  unnamedFilesInComments,
  type CheckpointActivity,
} from '../../../src/core/checkpoint';
import type { Comment } from '../../../src/core/model';

const now = Date.parse('2026-03-01T12:00:00Z');
const activity: CheckpointActivity = {
  issueId: 'demo-1',
  files: ['src/parser.ts', 'src/tokenizer.ts', 'test/parser.test.ts'],
  commits: [
    { hash: 'a1b2c3d4e5f6', subject: 'feat: add bracket tokenizer' },
    { hash: '0badc0ffee11', subject: 'fix: escapes' },
  ],
  edits: 14,
  lastCheckpointAt: now - 35 * 60_000,
};

function comment(text: string, createdAt: string, id = text): Comment {
  return { id, author: 'agent', text, createdAt };
}

const LATER = Date.parse('2026-03-02T00:00:00Z');

describe('summarizeActivity', () => {
  it('counts the commits (the Commits line of the comment names them, once), then the edits, files and time, naming the latest file', () => {
    expect(summarizeActivity(activity, now)).toBe('2 commits and 14 edits to 3 files in 35 min, latest src/parser.ts');
    expect(checkpointComment(summarizeActivity(activity, now), activity.files, activity.commits).match(/feat: add bracket tokenizer/g)).toHaveLength(1);
  });

  it('never lists the files or the commits (the comment\'s Files and Commits lines do, once)', () => {
    const many = { ...activity, files: Array.from({ length: 12 }, (_, index) => `f${String(index).padStart(2, '0')}.ts`), commits: [], edits: 1 };
    expect(summarizeActivity(many, now)).toBe('1 edit to 12 files in 35 min, latest f00.ts');
    const commits = Array.from({ length: 5 }, (_, index) => ({ hash: `abc${index}def0`, subject: `step ${index}` }));
    expect(summarizeActivity({ issueId: 'x', files: [], commits }, now)).toBe('5 commits');
    expect(summarizeActivity({ issueId: 'x', files: ['a.ts'], commits: commits.slice(0, 1) }, now)).toBe('1 commit and changed 1 file (a.ts)');
  });

  it('starts a progress note from the last Next: when nothing was recorded', () => {
    expect(summarizeActivity({ issueId: 'demo-1', files: [], commits: [] }, now)).toBe('Progress: …');
    expect(summarizeActivity({ issueId: 'demo-1', files: [], commits: [], edits: 0 }, now, 'escape sequences')).toBe('Progress: …; Next: escape sequences');
  });

  it('gives long spans in hours', () => {
    expect(summarizeActivity({ ...activity, lastCheckpointAt: now - 125 * 60_000 }, now)).toMatch(/in 2 h 5 min, latest/);
    expect(summarizeActivity({ ...activity, lastCheckpointAt: now - 120 * 60_000 }, now)).toMatch(/in 2 h, latest/);
  });

  it('keeps hostile file names and subjects on one line', () => {
    const hostile = { ...activity, files: ['a\nb.ts', 'c.ts'], commits: [{ hash: 'abcdef0123', subject: 'line one\nline two\u0007' }] };
    const summary = summarizeActivity(hostile, now);
    expect(summary.includes('\n') || summary.includes('\u0007')).toBe(false);
    expect(summary).toContain('latest a b.ts');
    expect(checkpointComment(summary, hostile.files, hostile.commits).split('\n')).toEqual([`Checkpoint: ${summary}`, '- Files: a b.ts, c.ts', '- Commits: abcdef0 line one line two']);
  });
});

describe('lastNextStep', () => {
  it('finds the newest comment that names a next step', () => {
    const comments = [
      comment('Checkpoint: parser skeleton; Next: nested sections', '2026-03-01T10:00:00Z'),
      comment('Checkpoint: nested sections parse; next: validation errors with line numbers', '2026-03-01T11:00:00Z'),
      comment('commit: abc1234 Parse widget config keys', '2026-03-01T11:30:00Z'),
    ];
    expect(lastNextStep(comments)).toBe('validation errors with line numbers');
    expect(lastNextStep([...comments].reverse())).toBe('validation errors with line numbers');
    expect(lastNextStep([comment('no plan here', '2026-03-01T10:00:00Z')])).toBeUndefined();
  });
});

describe('comments', () => {
  it('prefixes a manual checkpoint once', () => {
    expect(checkpointComment('parser done, next escapes')).toBe('Checkpoint: parser done, next escapes');
    expect(checkpointComment('Checkpoint: already prefixed')).toBe('Checkpoint: already prefixed');
    expect(checkpointComment('  two\nlines ')).toBe('Checkpoint: two lines');
  });

  it('adds the files of the period unless the text already names them all', () => {
    // Most recently touched first, as the ledger gives them.
    expect(checkpointComment('parser done', ['src/b.ts', 'src/a.ts'])).toBe('Checkpoint: parser done\n- Files: src/b.ts, src/a.ts');
    expect(checkpointComment('src/a.ts and src/b.ts done', ['src/b.ts', 'src/a.ts'])).toBe('Checkpoint: src/a.ts and src/b.ts done');
  });

  it('writes an automatic checkpoint with its reason, counts, files and commits', () => {
    expect(autoCheckpointComment(activity, 'before-recovery', now)).toBe(
      [
        'Auto-checkpoint (before recovery): 14 edits, 3 files, 2 commits in 35 min',
        '- Files: src/parser.ts, src/tokenizer.ts, test/parser.test.ts',
        '- Commits: a1b2c3d feat: add bracket tokenizer; 0badc0f fix: escapes',
      ].join('\n'),
    );
  });

  it('writes the pre-compaction variant the command line uses, without edits it cannot know', () => {
    const fromGit = { issueId: 'demo-1', files: ['b.ts', 'a.ts', 'a.ts'], commits: [], lastCheckpointAt: now - 60 * 60_000 };
    expect(autoCheckpointComment(fromGit, 'pre-compaction', now)).toBe(
      ['Auto-checkpoint (pre-compaction): 2 files, 0 commits in 1 h', '- Files: b.ts, a.ts'].join('\n'),
    );
  });

  it("names the files a session's events do not show apart from its own, and counts only its own", () => {
    const shared = { issueId: 'demo-1', files: ['mine.ts'], alsoChanged: ['theirs.ts', 'typed.md'], commits: [], lastCheckpointAt: now - 10 * 60_000 };
    expect(autoCheckpointComment(shared, 'pre-compaction', now)).toBe(
      ['Auto-checkpoint (pre-compaction): 1 file, 0 commits in 10 min', '- Files: mine.ts', '- Also changed here, by another session or by hand: theirs.ts, typed.md'].join('\n'),
    );
  });

  it('lists modified files sorted and unique, or nothing when there are none', () => {
    expect(filesModifiedComment(['src/b.ts', 'src/a.ts', 'src/b.ts'])).toBe('Files modified: src/a.ts, src/b.ts');
    expect(filesModifiedComment([])).toBeUndefined();
  });
});

describe('hasNewActivity and activityFingerprint', () => {
  it('sees nothing new in an empty ledger', () => {
    expect(hasNewActivity({ issueId: 'x', files: [], commits: [], edits: 0 })).toBe(false);
    expect(hasNewActivity({ issueId: 'x', files: [], commits: [], edits: 1 })).toBe(true);
  });

  it('gives the same state the same fingerprint whatever the file order, and a changed state a new one', () => {
    const reordered = { ...activity, files: [...activity.files].reverse() };
    expect(activityFingerprint(reordered)).toBe(activityFingerprint(activity));
    expect(activityFingerprint({ ...activity, edits: 15 })).not.toBe(activityFingerprint(activity));
    expect(activityFingerprint({ ...activity, issueId: 'demo-2' })).not.toBe(activityFingerprint(activity));
    expect(activityFingerprint({ ...activity, lastCheckpointAt: now })).not.toBe(activityFingerprint(activity));
  });
});

describe('reading comments back', () => {
  const comments = [
    comment('Started on the parser', '2026-03-01T09:00:00Z'),
    comment('Checkpoint: parser skeleton', '2026-03-01T10:00:00Z'),
    comment('commit: a1b2c3d feat: tokenizer', '2026-03-01T10:30:00.123456789Z'),
    comment('Auto-checkpoint (issue switch): 3 edits, 2 files, 0 commits\n- Files: src/x.ts, src/y.ts', '2026-03-01T09:30:00Z'),
    comment('Files modified: src/z.ts, +2 more', '2026-02-01T00:00:00Z'),
  ];

  it('recognises checkpoint-like comments', () => {
    expect(comments.map((entry) => isCheckpointLike(entry.text))).toEqual([false, true, true, true, true]);
  });

  it('finds the newest checkpoint-like comment, comparing times not strings', () => {
    expect(latestCheckpointAt(comments, Date.parse('2026-03-02T00:00:00Z'))).toBe(Date.parse('2026-03-01T10:30:00.123Z'));
    expect(latestCheckpointAt([comment('just a note', '2026-03-01T10:00:00Z')], Date.parse('2026-03-02T00:00:00Z'))).toBeUndefined();
  });

  it('finds the newest comment after the last checkpoint that we did not write', () => {
    const after = Date.parse('2026-03-01T09:45:00Z');
    const own = (text: string) => text.startsWith('commit:');
    expect(newestForeignComment(comments, after, own, LATER)?.comment.text).toBe('Checkpoint: parser skeleton');
    expect(newestForeignComment(comments, Date.parse('2026-03-01T11:00:00Z'), own, LATER)).toBeUndefined();
    expect(newestForeignComment([comment('late', '2026-03-01T11:00:00-02:00')], Date.parse('2026-03-01T12:00:00Z'), own, LATER)?.at).toBe(
      Date.parse('2026-03-01T13:00:00Z'),
    );
  });

  it('collects the hashes of commit links, once each', () => {
    const links = [...comments, comment('commit: A1B2C3D again', '2026-03-01T11:00:00Z'), comment('commit: nothex subject', '2026-03-01T11:00:00Z')];
    expect(commitHashesFromComments(links)).toEqual(['a1b2c3d']);
  });

  it('names the commits of a checkpoint in its Commits line, and reads them back', () => {
    const commits = [
      { hash: 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0', subject: 'feat: parser; with 1234567 in it' },
      { hash: 'ffff000111222333444555666777888999aaabbb', subject: 'fix: escapes' },
    ];
    const text = checkpointComment('parser done', ['src/a.ts'], commits);
    expect(text).toBe('Checkpoint: parser done\n- Files: src/a.ts\n- Commits: a1b2c3d feat: parser; with 1234567 in it; ffff000 fix: escapes');
    const auto = autoCheckpointComment({ issueId: 'demo-1', files: [], commits, edits: 0 }, 'before-close', Date.parse('2026-03-01T12:00:00Z'));
    expect(auto).toBe('Auto-checkpoint (before close): 0 files, 2 commits\n- Commits: a1b2c3d feat: parser; with 1234567 in it; ffff000 fix: escapes');
    // Hex inside a subject does not start an entry: only what follows the line's start or "; " does.
    expect(commitHashesFromComments([comment(text, '2026-03-01T12:00:00Z')])).toEqual(['a1b2c3d', 'ffff000']);
  });

  it('collects the files earlier comments listed, without the "+N more" marker', () => {
    expect(filesFromComments(comments)).toEqual(['src/x.ts', 'src/y.ts', 'src/z.ts']);
  });
});

describe('comment times ahead of the clock (skew)', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const ahead = comment('Checkpoint: from a clock an hour fast', '2026-03-01T13:00:00Z');
  const earlier = comment('Checkpoint: parser skeleton', '2026-03-01T11:00:00Z');

  it('are not taken as the last checkpoint, so later work is not "nothing new"', () => {
    expect(latestCheckpointAt([earlier, ahead], now)).toBe(Date.parse('2026-03-01T11:00:00Z'));
    expect(newestForeignComment([ahead], undefined, () => false, now)).toBeUndefined();
    expect(checkpointWindowStart({ comments: [earlier, ahead] }, now)).toBe(Date.parse('2026-03-01T11:00:00Z'));
  });
});

describe('comment times through the CLI\'s measured clock offset', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const HOUR = 3_600_000;

  it('measures the offset on a comment we wrote: none within the call (give or take whole seconds), else from its middle', () => {
    expect(cliClockOffset(now + 500, now, now + 1_000)).toBe(0);
    expect(cliClockOffset(now - 1_000, now, now + 1_000)).toBe(0);
    expect(cliClockOffset(now + HOUR, now, now + 1_000)).toBe(HOUR - 500);
    expect(cliClockOffset(now - HOUR, now, now + 1_000)).toBe(-HOUR - 500);
  });

  it('reads a CLI an hour fast on our clock instead of ignoring its times', () => {
    const ahead = comment('Checkpoint: typed where the CLI runs', '2026-03-01T12:50:00Z');
    expect(onOurClock(ahead.createdAt, now, undefined)).toBeUndefined();
    expect(onOurClock(ahead.createdAt, now, HOUR)).toBe(Date.parse('2026-03-01T11:50:00Z'));
    expect(latestCheckpointAt([ahead], now, HOUR)).toBe(Date.parse('2026-03-01T11:50:00Z'));
    expect(newestForeignComment([ahead], Date.parse('2026-03-01T11:00:00Z'), () => false, now, HOUR)?.at).toBe(Date.parse('2026-03-01T11:50:00Z'));
    expect(checkpointWindowStart({ comments: [ahead], cliOffsetMs: HOUR }, now)).toBe(Date.parse('2026-03-01T11:50:00Z'));
    // The claim too is the CLI's stamp.
    expect(checkpointWindowStart({ comments: [], claimedAt: '2026-03-01T12:30:00Z', cliOffsetMs: HOUR }, now)).toBe(Date.parse('2026-03-01T11:30:00Z'));
  });

  it('reads a CLI that is behind forward, so its comment is not taken for older work', () => {
    const behind = comment('Checkpoint: from a slow clock', '2026-03-01T10:55:00Z');
    expect(newestForeignComment([behind], Date.parse('2026-03-01T11:30:00Z'), () => false, now)).toBeUndefined();
    expect(newestForeignComment([behind], Date.parse('2026-03-01T11:30:00Z'), () => false, now, -HOUR)?.at).toBe(Date.parse('2026-03-01T11:55:00Z'));
  });
});

describe('checkpointWindowStart', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('starts at the later of the ledger and the comments, else the claim, never now', () => {
    const comments = [comment('Checkpoint: a', '2026-03-01T10:00:00Z')];
    expect(checkpointWindowStart({ ledgerCheckpointAt: Date.parse('2026-03-01T11:00:00Z'), comments }, now)).toBe(Date.parse('2026-03-01T11:00:00Z'));
    expect(checkpointWindowStart({ ledgerCheckpointAt: Date.parse('2026-03-01T09:00:00Z'), comments }, now)).toBe(Date.parse('2026-03-01T10:00:00Z'));
    expect(checkpointWindowStart({ comments: [], claimedAt: '2026-03-01T11:30:00Z', ledgerStartedAt: 1, updatedAt: '2026-03-01T11:45:00Z' }, now)).toBe(Date.parse('2026-03-01T11:30:00Z'));
    expect(checkpointWindowStart({ comments: [], ledgerStartedAt: Date.parse('2026-03-01T11:40:00Z'), updatedAt: '2026-03-01T11:45:00Z' }, now)).toBe(Date.parse('2026-03-01T11:40:00Z'));
    expect(checkpointWindowStart({ comments: [], updatedAt: '2026-03-01T11:45:00Z', createdAt: '2026-02-01T00:00:00Z' }, now)).toBe(Date.parse('2026-03-01T11:45:00Z'));
    expect(checkpointWindowStart({ comments: [] }, now)).toBeUndefined();
  });
});

describe('wording of spans and file lists', () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const activity = (fields: Partial<Parameters<typeof summarizeActivity>[0]>) => ({ issueId: 'wf-2', files: ['src/a.ts'], commits: [], edits: 2, ...fields });

  it('says "under a minute" rather than "in 0 min", and hours within a day', () => {
    expect(summarizeActivity(activity({ lastCheckpointAt: NOW - 20_000 }), NOW)).toContain('in under a minute');
    expect(summarizeActivity(activity({ lastCheckpointAt: NOW - 60_000 }), NOW)).toContain('in 1 min');
    expect(summarizeActivity(activity({ lastCheckpointAt: NOW - 125 * 60_000 }), NOW)).toContain('in 2 h 5 min');
  });

  it('says when a window of a day or more started, in words, instead of thousands of hours', () => {
    const claimed = NOW - (4087 * 60 + 17) * 60_000;
    const text = summarizeActivity(activity({ lastCheckpointAt: claimed, sinceClaim: true }), NOW);
    expect(text).toContain('since claimed 24 weeks ago');
    expect(text).not.toMatch(/\d+ h \d+ min/);
    expect(summarizeActivity(activity({ lastCheckpointAt: NOW - 3 * 86_400_000, recordingSince: NOW - 3 * 86_400_000 }), NOW)).toContain('since recording started 3 days ago');
    expect(autoCheckpointComment(activity({ lastCheckpointAt: NOW - 400 * 86_400_000 }), 'before-recovery', NOW)).toContain('since the last checkpoint 1 year ago');
  });

  it('a first checkpoint whose window runs from the issue\'s last change does not call that a checkpoint (issue 26, item 9)', () => {
    const changed = NOW - 7 * 24 * 60 * 60 * 1000;
    const comment = autoCheckpointComment(activity({ lastCheckpointAt: changed, sinceIssueChange: true }), 'pre-compaction', NOW);
    expect(comment).toMatch(/since the issue last changed 7 days ago/);
    expect(comment).not.toMatch(/the last checkpoint/);
  });

  it('a close\'s file list says how many files it does not name', () => {
    const many = Array.from({ length: 205 }, (_, index) => `src/file${String(index).padStart(3, '0')}.ts`);
    expect(filesModifiedComment(many)).toMatch(/src\/file199\.ts, and 5 more files$/);
    const comments = [
      { id: '1', author: 'a', text: 'Auto-checkpoint (before recovery): 25 edits\n- Files: a.ts, b.ts, +23 more', createdAt: '2026-01-01T00:00:00Z' },
      { id: '2', author: 'a', text: 'Files modified: c.ts, and 1 more file', createdAt: '2026-01-02T00:00:00Z' },
    ];
    expect(filesFromComments(comments)).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(unnamedFilesInComments(comments)).toBe(24);
    expect(filesModifiedComment(['a.ts'], 23)).toBe('Files modified: a.ts, and 23 more files');
    expect(filesModifiedComment(['a.ts'], 1)).toBe('Files modified: a.ts, and 1 more file');
  });
});
