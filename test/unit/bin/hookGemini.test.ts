import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GEMINI_COMPRESSION_ACK } from '../../../src/core/geminiHistory';
import { claimCompressionCheckpoint, compressionCheckpointFile, readGeminiHistory } from '../../../src/bin/hookGemini';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-hook-gemini-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const lines = (...records: object[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
const turn = (id: string, type: 'user' | 'gemini', text: string) => ({ id, timestamp: '2026-11-26T10:00:00.000Z', type, content: [{ text }] });

describe('readGeminiHistory', () => {
  it('reads further back when the end of the file holds no record of the whole history (one huge history)', async () => {
    const file = path.join(scratch, 'huge.jsonl');
    const huge = turn('big', 'user', 'x'.repeat(5 * 1024 * 1024));
    writeFileSync(file, lines({ $set: { messages: [turn('s1', 'user', '<state_snapshot>so far</state_snapshot>'), turn('a1', 'gemini', GEMINI_COMPRESSION_ACK), huge] } }, turn('u2', 'user', 'go on')));
    expect(await readGeminiHistory(file)).toEqual({ turns: 4, compression: 's1', heldBlock: undefined, whole: true });
  });

  it('a missing, unnamed or unreadable chat file is an empty history', async () => {
    const empty = { turns: 0, compression: undefined, heldBlock: undefined, whole: false };
    expect(await readGeminiHistory(undefined)).toEqual(empty);
    expect(await readGeminiHistory(path.join(scratch, 'none.jsonl'))).toEqual(empty);
    expect(await readGeminiHistory(scratch)).toEqual(empty);
  });
});

describe('claimCompressionCheckpoint', () => {
  it('one claim per compression of a session: the first run gets it, every later one does not; another compression or session is its own', async () => {
    const [first, another, elsewhere] = [['g1', 's1'], ['g1', 's2'], ['g2', 's1']].map(([session, compression]) => compressionCheckpointFile(path.join(scratch, 'project'), session, compression!));
    try {
      expect(await claimCompressionCheckpoint(first!)).toBe(true);
      expect(await claimCompressionCheckpoint(first!)).toBe(false);
      expect(await claimCompressionCheckpoint(another!)).toBe(true);
      expect(await claimCompressionCheckpoint(elsewhere!)).toBe(true);
    } finally {
      for (const file of [first, another, elsewhere]) rmSync(file!, { force: true });
    }
  });
});
