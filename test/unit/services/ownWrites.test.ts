import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOwnWrite, isOwnWrite, isUnchangedOwnWrite } from '../../../src/services/ownWrites';

describe('own writes', () => {
  it('are the extension\'s for a moment after it writes them, then the user\'s again', () => {
    const file = path.join('workspace', 'AGENTS.md');
    const now = 1_000_000;
    expect(isOwnWrite(file, now)).toBe(false);
    expectOwnWrite(file, now);
    expect(isOwnWrite(path.resolve(file), now + 500)).toBe(true);
    expect(isOwnWrite(path.join('workspace', 'other.md'), now + 500)).toBe(false);
    expect(isOwnWrite(file, now + 60_000)).toBe(false);
  });
});

describe('an own write left alone', () => {
  it('is still the extension\'s in git status until someone modifies the file', () => {
    const file = path.join('workspace', 'hooks.json');
    const now = 2_000_000;
    expect(isUnchangedOwnWrite(file, now)).toBe(false);
    expectOwnWrite(file, now);
    expect(isUnchangedOwnWrite(file, now + 1)).toBe(true);
    expect(isOwnWrite(file, now + 3_600_000)).toBe(false);
    expect(isUnchangedOwnWrite(path.resolve(file), now + 5_000)).toBe(true);
    expect(isUnchangedOwnWrite(file, now + 3_600_000)).toBe(false);
  });
});
