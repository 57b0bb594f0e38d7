import { describe, expect, it } from 'vitest';
import { blockDigest, blockMarkLine, heldBlockDigest, holdsBlock, withBlockMark } from '../../../src/core/blockMark';

const block = '## Resuming: demo-1 — Parse\n\n### Latest Checkpoint (3m ago)\n    Checkpoint: done\n';
const boundary = '"subtype":"compact_boundary"';

describe('the mark a delivered block ends with', () => {
  it('names the same state read later alike, and another state differently', () => {
    expect(blockDigest(block)).toBe(blockDigest(block.replace('3m ago', '2h ago')));
    expect(blockDigest(block)).toBe(blockDigest(block.replace('3m ago', 'just now')));
    expect(blockDigest(block)).not.toBe(blockDigest(block.replace('done', 'done and tested')));
    expect(withBlockMark(block)).toBe(`${block.trimEnd()}\n\n${blockMarkLine(blockDigest(block))}`);
  });

  it('is held when a block of ours stands after the last compaction boundary, whatever its digest, not before it', () => {
    const delivered = JSON.stringify({ type: 'attachment', content: [withBlockMark(block)] });
    const later = JSON.stringify({ type: 'attachment', content: [withBlockMark(block.replace('done', 'done and tested'))] });
    expect(holdsBlock(`${delivered}\n`, [boundary])).toBe(true);
    expect(holdsBlock(`${delivered}\n{${boundary}}\n`, [boundary])).toBe(false);
    expect(holdsBlock(`{${boundary}}\n${delivered}\n`, [boundary])).toBe(true);
    // The state moved since (the last turn's work): still one block in the conversation, and one is enough.
    expect(holdsBlock(`${delivered}\n{${boundary}}\n${later}\n`, [boundary])).toBe(true);
    expect(holdsBlock('no block here', [])).toBe(false);
    expect(heldBlockDigest(`<hook_context>${withBlockMark(block)}</hook_context>`, [])).toBe(blockDigest(block));
    expect(heldBlockDigest('<state_snapshot>work</state_snapshot>', [])).toBeUndefined();
  });

  it('names the newest block the conversation holds by its digest, so a resume can tell which issue it named', () => {
    const first = JSON.stringify({ content: [withBlockMark(block)] });
    const correction = JSON.stringify({ content: [withBlockMark('## Correction: this session\'s issue is now demo-2')] });
    expect(heldBlockDigest(`${first}\n`, [boundary])).toBe(blockDigest(block));
    expect(heldBlockDigest(`${first}\n${correction}\n`, [boundary])).toBe(blockDigest("## Correction: this session's issue is now demo-2"));
    expect(heldBlockDigest(`${first}\n{${boundary}}\n`, [boundary])).toBeUndefined();
  });
});
