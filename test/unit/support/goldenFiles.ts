// Golden files pin exact output. They are compared byte for byte and never rewritten by a normal
// run: `UPDATE_GOLDEN=1 npx vitest run <file>` rewrites them, and the diff is then reviewed like
// any other change.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

export function expectGolden(name: string, markdown: string): void {
  const file = resolve(GOLDEN_DIR, `${name}.md`);
  // Golden files end with a newline so that editors leave them alone; the text itself has none.
  const stored = `${markdown}\n`;
  if (UPDATE) {
    writeFileSync(file, stored);
    return;
  }
  expect(existsSync(file), `missing golden file ${name}.md: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(stored).toBe(readFileSync(file, 'utf8'));
}
