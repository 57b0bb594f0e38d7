import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, writeSync, closeSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTranscript, TRANSCRIPT_TAIL_BYTES } from '../../../../src/services/transcripts/readTranscript';
import { claude, codex, jsonl } from '../../support/transcriptLines';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'transcripts-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('readTranscript never fails its caller', () => {
  it('a missing file, no path, a folder: no events and the reason', async () => {
    await expect(readTranscript(join(dir, 'nope.jsonl'), 'claude')).resolves.toMatchObject({ events: [], problem: 'no transcript file' });
    await expect(readTranscript(undefined, 'codex')).resolves.toMatchObject({ events: [], problem: 'no transcript path' });
    mkdirSync(join(dir, 'folder.jsonl'));
    const folder = await readTranscript(join(dir, 'folder.jsonl'), 'claude');
    expect(folder.events).toEqual([]);
    expect(folder.problem).toBeDefined();
  });

  it.skipIf(process.platform === 'win32')('a FIFO nobody writes to is refused at once, not waited on', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    await expect(readTranscript(fifo, 'claude')).resolves.toMatchObject({ events: [], problem: 'the transcript is not a regular file' });
  });

  it('a partial last line (the agent is still writing) is skipped, the rest read', async () => {
    const text = jsonl([claude.user('first request'), claude.text('working on it')]) + JSON.stringify(claude.text('half')).slice(0, 30);
    const read = await readTranscript(file('partial.jsonl', text), 'claude');
    expect(read.events.map((event) => event.type)).toEqual(['user', 'assistant']);
    expect(read.skippedLines).toBe(1);
    expect(read.fromStart).toBe(true);
  });

  it('is read once for every caller while the file is unchanged, and again once it grows', async () => {
    const path = file('shared.jsonl', jsonl([claude.user('first request')]));
    const [thread, bindings] = await Promise.all([readTranscript(path, 'claude'), readTranscript(path, 'claude')]);
    expect(bindings).toBe(thread);
    writeFileSync(path, jsonl([claude.user('first request'), claude.text('working on it')]));
    const grown = await readTranscript(path, 'claude');
    expect(grown).not.toBe(thread);
    expect(grown.events.map((event) => event.type)).toEqual(['user', 'assistant']);
  });

  it('damaged lines and unknown entry types are skipped', async () => {
    const text = ['{"type":"user"', 'garbage', '\u0000\u0000', JSON.stringify({ type: 'brand-new-entry', data: 1 }), JSON.stringify(claude.user('still read'))].join('\n');
    const read = await readTranscript(file('damaged.jsonl', text), 'claude');
    expect(read.events).toMatchObject([{ type: 'user', text: 'still read' }]);
    expect(read.skippedLines).toBe(3);
  });

  it('tells the agent from the lines when asked to', async () => {
    const read = await readTranscript(file('rollout.jsonl', jsonl([codex.meta(), codex.user('codex request')])), 'auto');
    expect(read.agent).toBe('codex');
    expect(read.events).toMatchObject([{ type: 'user', text: 'codex request' }]);
  });

  it('a file of hundreds of megabytes is read from its end only, within the bound', async () => {
    const path = join(dir, 'huge.jsonl');
    const filler = Buffer.from(jsonl(Array.from({ length: 2000 }, (_, index) => claude.text(`old message ${index} ${'x'.repeat(400)}`))));
    const fd = openSync(path, 'w');
    const target = 300 * 1024 * 1024;
    for (let written = 0; written < target; written += filler.length) writeSync(fd, filler);
    writeSync(fd, jsonl([claude.user('the latest request'), claude.text('Should deeper keys be rejected or flattened?')]));
    closeSync(fd);
    const read = await readTranscript(path, 'claude');
    expect(read.problem).toBeUndefined();
    expect(read.fromStart).toBe(false);
    expect(read.bytesRead).toBeLessThanOrEqual(TRANSCRIPT_TAIL_BYTES);
    expect(read.events.at(-2)).toMatchObject({ type: 'user', text: 'the latest request' });
    expect(read.events.at(-1)).toMatchObject({ type: 'assistant', asksQuestion: true });
    // The fragment the bound cut through at the start is dropped, never parsed as damage.
    expect(read.skippedLines).toBe(0);
    rmSync(path);
  });
});

describe("readTranscript for a hook's session", () => {
  const lines = (sessionId: string, cwd: string) => [claude.user('the request'), claude.tool('t', 'Write', { file_path: `${cwd}/src/a.ts`, content: '' }), claude.result('t', 'ok')].map((line) => ({ ...line, sessionId, cwd }));

  it("reads the session's own lines, with paths relative to its folder", async () => {
    const read = await readTranscript(file('own.jsonl', jsonl(lines('s-own', '/w/app'))), 'claude', { session: 's-own', folder: '/w/app', project: '/w/app' });
    expect(read.problem).toBeUndefined();
    expect(read.events.find((event) => event.type === 'tool-call')).toMatchObject({ files: [{ path: 'src/a.ts', change: 'created' }] });
  });

  it("does not use another session's transcript or one written outside the project, and says why", async () => {
    const other = await readTranscript(file('other-session.jsonl', jsonl(lines('s-other', '/w/app'))), 'claude', { session: 's-own', folder: '/w/app', project: '/w/app' });
    expect(other).toMatchObject({ events: [], problem: "not this session's transcript: its lines are session s-other's, not this session's (s-own)" });
    const elsewhere = await readTranscript(file('other-project.jsonl', jsonl(lines('s-own', '/w/elsewhere'))), 'claude', { session: 's-own', folder: '/w/app', project: '/w/app' });
    expect(elsewhere).toMatchObject({ events: [], problem: "not this session's transcript: it was written in /w/elsewhere, outside this project" });
  });

  it("opencode (the plugin's transcript): another project's or another session's is not used either, and says why", async () => {
    const recorded = readFileSync(join(__dirname, '..', '..', '..', 'fixtures', 'transcripts', 'opencode', 'nested-keys.jsonl'), 'utf8');
    const own = 'ses_ddf090a5cffe3a83ZcG3AH5wjK';
    expect((await readTranscript(file('opencode-own.jsonl', recorded), 'opencode', { session: own, folder: '/project', project: '/project' })).events.length).toBeGreaterThan(0);
    const elsewhere = await readTranscript(file('opencode-elsewhere.jsonl', recorded), 'opencode', { session: own, folder: '/w/app', project: '/w/app' });
    expect(elsewhere).toMatchObject({ events: [], problem: "not this session's transcript: it was written in /project, outside this project" });
    const other = await readTranscript(file('opencode-other.jsonl', recorded), 'opencode', { session: 'ses_another', folder: '/project', project: '/project' });
    expect(other.events).toEqual([]);
    expect(other.problem).toMatch(/^not this session's transcript: /);
  });

  it('a host that hands over a file of another format (VS Code) is held to the folder, not to its own session ids', async () => {
    const read = await readTranscript(file('host.jsonl', jsonl(lines('vscode-numbering', '/w/app'))), 'auto', { session: 'host-7', folder: '/w/app', project: '/w/app' });
    expect(read.problem).toBeUndefined();
    expect(read.events.some((event) => event.type === 'user')).toBe(true);
  });
});
