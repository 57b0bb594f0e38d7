// The house has no import circle (docs/ARCHITECTURE.md): a module is read, and initialised, after
// the modules it imports. dpdm follows type-only imports too, because a reader follows them; `npm
// run lint` runs the same check on the command line. The fixture shows the check finds a circle.
import path from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(__dirname, '../../..');

async function circles(patterns: string[]): Promise<string[][]> {
  const tree = await parseDependencyTree(patterns, { context: repoRoot, tsconfig: path.join(repoRoot, 'tsconfig.json'), transform: false, skipDynamicImports: false });
  return parseCircular(tree);
}

describe('import circles', () => {
  it('finds none in src/ and media/', async () => {
    expect(await circles(['src/**/*.ts', 'media/**/*.ts'])).toEqual([]);
  });

  it('finds the deliberate one in its fixture, through a type-only import', async () => {
    const found = await circles(['test/fixtures/import-circle/*.ts']);
    expect(found).toHaveLength(1);
    expect([...found[0]!].sort()).toEqual(['test/fixtures/import-circle/a.ts', 'test/fixtures/import-circle/b.ts']);
  });
});
