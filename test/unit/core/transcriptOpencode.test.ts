// opencode's session as agent events (issue 30, item 4): a real session, recorded with the real
// opencode 1.18.33 against the model stand-in (test/agents/opencodeThread.test.ts,
// BEADS_RECOVERY_RECORD_TRANSCRIPTS=1), as our plugin writes it for the hook: the session claims
// demo-8, runs the parser's failing tests, writes parser.py, asks a question, then compacts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyAgentSessions, observeSessionEvents, sessionOfHook } from '../../../src/core/agentSessions';
import { detectTranscriptAgent, transcriptEvents, transcriptOrigin } from '../../../src/core/transcript';
import { transcriptRecords } from '../../../src/core/transcriptLines';
import { sessionThread } from '../../../src/core/transcriptThread';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'transcripts', 'opencode', 'nested-keys.jsonl');
const records = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { info: { id: string; sessionID: string; role: string }; parts: { type: string }[] });
const SESSION = records[0]!.info.sessionID;
/** The session as the plugin wrote it before the compaction: its compaction message stored, the summary not yet asked. */
const beforeSummary = records.slice(0, records.findIndex((record) => record.parts.some((part) => part.type === 'compaction')) + 1);

describe("opencode's session, as the plugin writes it", () => {
  it('is told apart by its lines and names its session and folder', () => {
    expect(detectTranscriptAgent(records)).toBe('opencode');
    expect(transcriptOrigin('opencode', records)).toEqual({ sessionIds: [SESSION], folders: ['/project'] });
  });

  it("before the summary: the request without our block, the claim, the failing run, the written file and the question; no compaction yet", () => {
    const events = transcriptEvents('opencode', beforeSummary, { sessionId: SESSION, cwd: '/project' });
    expect(events.some((event) => event.type === 'compaction')).toBe(false);
    const thread = sessionThread(events);
    expect(thread.requests[0]).toMatch(/accept nested keys/);
    expect(thread.requests.join('\n')).not.toMatch(/Beads Workflow Context|beads-recovery block/);
    const failed = thread.commands.find((run) => run.failed);
    expect(failed).toMatchObject({ command: 'python3 test_parser.py', tests: { failed: 1, passed: 9 }, errorLine: "KeyError: 'a'" });
    // The "COMPACT-NOW" prompt came after the question: it may be the reply, so the question is kept with it.
    expect(thread.repliedQuestion?.question).toMatch(/rejected or flattened\?$/);
    expect(thread.files.map((file) => file.path)).toEqual(['parser.py']);
  });

  it('after the summary: the compaction and its summary, so what came before is what it forgot', () => {
    const events = transcriptEvents('opencode', records, { sessionId: SESSION });
    const compaction = events.findIndex((event) => event.type === 'compaction');
    expect(compaction).toBeGreaterThan(0);
    expect(events[compaction]).toMatchObject({ trigger: 'auto' });
    expect(events.slice(compaction + 1).find((event) => event.type === 'compaction-summary')).toMatchObject({ text: expect.stringContaining('Summary of the conversation') });
  });

  it("binds the session to the issue its own command claimed, with the file it wrote", () => {
    const identity = sessionOfHook('opencode', { session: SESSION, transcript: FIXTURE });
    expect(identity).toBeDefined();
    const events = transcriptEvents('opencode', beforeSummary, { sessionId: SESSION });
    const state = observeSessionEvents(emptyAgentSessions(), identity!, events, '/project', Date.now());
    const session = Object.values(state.sessions)[0];
    expect(session).toMatchObject({ claimed: 'demo-8' });
    expect(Object.keys(session!.files)).toEqual(['parser.py']);
  });

  it("another session's lines give nothing", () => {
    expect(transcriptEvents('opencode', records, { sessionId: 'ses_another' })).toEqual([]);
  });
});

describe("opencode's session as `opencode export` writes it", () => {
  // The same session as one pretty-printed document, `{info: the session, messages: [{info, parts}]}`,
  // the shape `opencode export <session>` prints (e.g. a real 1.18 export: info.id, slug, directory,
  // title, version, time; then the messages with their parts).
  const exported = JSON.stringify({ info: { id: SESSION, slug: 'calm-star', directory: '/project', title: 'Nested keys', version: '1.18.33' }, messages: records }, null, 2);
  const { records: document } = transcriptRecords(exported, true);

  it('is one document, told apart as opencode, naming the same session and folder', () => {
    expect(document).toHaveLength(1);
    expect(detectTranscriptAgent(document)).toBe('opencode');
    expect(transcriptOrigin('opencode', document)).toEqual(transcriptOrigin('opencode', records));
  });

  it('gives the same events as the lines the plugin writes, for the session and for another', () => {
    expect(transcriptEvents('opencode', document, { sessionId: SESSION, cwd: '/project' })).toEqual(transcriptEvents('opencode', records, { sessionId: SESSION, cwd: '/project' }));
    expect(transcriptEvents('opencode', document, { sessionId: 'ses_another' })).toEqual([]);
  });
});

describe("opencode's session as its stored files, put together", () => {
  // Before 1.18 opencode kept each message's info in storage/message/<session>/<message>.json and
  // each part in storage/part/<message>/<part>.json; a session's files put together (as a user
  // gathers them, with the project's and the share's files among them) come in any order, each
  // pretty-printed. The same session, taken apart that way, parts first and messages last.
  const infos = records.map((record) => record.info);
  const parts = records.flatMap((record) => record.parts).reverse();
  const project = { id: 'c387ae0c45859f241b82f03beba884dfed805718', worktree: '/project', vcs: 'git', time: { created: 1, updated: 1 } };
  const share = { id: 'hIZWAtTJ', secret: '<REDACTED>', url: 'https://opncd.ai/share/hIZWAtTJ' };
  const stored = [project, share, ...parts, ...infos].map((value) => JSON.stringify(value, null, 2)).join('\n');
  const { records: files, skippedLines } = transcriptRecords(stored, true);

  it('reads each file as a record, and is told apart as opencode', () => {
    expect(skippedLines).toBe(0);
    expect(files).toHaveLength(2 + parts.length + infos.length);
    expect(detectTranscriptAgent(files)).toBe('opencode');
    expect(transcriptOrigin('opencode', files)).toEqual(transcriptOrigin('opencode', records));
  });

  it('gives each message its parts in order: the same events as the plugin writes', () => {
    expect(transcriptEvents('opencode', files, { sessionId: SESSION, cwd: '/project' })).toEqual(transcriptEvents('opencode', records, { sessionId: SESSION, cwd: '/project' }));
  });
});
