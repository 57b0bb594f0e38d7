import { describe, expect, it } from 'vitest';
import { blockDigest, blockMarkLine, holdsBlock, withBlockMark } from '../../../src/core/blockMark';

const block = '## Resuming: demo-1 — Parse\n\n### Latest Checkpoint (3m ago)\n    Checkpoint: done\n';
const boundary = '"subtype":"compact_boundary"';

describe('the mark a delivered block ends with', () => {
  it('names the same state read later alike, and another state differently', () => {
    expect(blockDigest(block)).toBe(blockDigest(block.replace('3m ago', '2h ago')));
    expect(blockDigest(block)).toBe(blockDigest(block.replace('3m ago', 'just now')));
    expect(blockDigest(block)).not.toBe(blockDigest(block.replace('done', 'done and tested')));
    expect(withBlockMark(block)).toBe(`${block.trimEnd()}\n\n${blockMarkLine(blockDigest(block))}`);
  });

  it('is held when it stands after the last compaction boundary, not before it', () => {
    const digest = blockDigest(block);
    const delivered = JSON.stringify({ type: 'attachment', content: [withBlockMark(block)] });
    expect(holdsBlock(`${delivered}\n`, digest, [boundary])).toBe(true);
    expect(holdsBlock(`${delivered}\n{${boundary}}\n`, digest, [boundary])).toBe(false);
    expect(holdsBlock(`{${boundary}}\n${delivered}\n`, digest, [boundary])).toBe(true);
    expect(holdsBlock(`${delivered}\n`, blockDigest('another block'), [boundary])).toBe(false);
    expect(holdsBlock('', digest, [])).toBe(false);
  });
});
