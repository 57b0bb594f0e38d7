// The three-way comparisons every sort of the house uses, so that one order holds everywhere and
// on every machine. Pure.

/** Code-unit order of two texts (undefined as empty): the same on every machine, unlike localeCompare. */
export function compareText(a: string | undefined, b: string | undefined): number {
  const left = a ?? '';
  const right = b ?? '';
  return left === right ? 0 : left < right ? -1 : 1;
}

/** Ascending order of two numbers, infinities included (where `a - b` would give NaN for two equal ones). */
export function compareNumbers(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * File paths as people read them: runs of digits by their value (widget-2 before widget-10), the
 * rest in code-unit order, folder by folder. The same on every machine (no locale).
 */
export function compareFileNames(a: string, b: string): number {
  const left = a.split(/(\d+)/);
  const right = b.split(/(\d+)/);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const x = left[index] as string;
    const y = right[index] as string;
    if (x === y) continue;
    // Odd parts are the digit runs split out above; equal values (2 and 02) fall back to their text.
    if (index % 2 === 1) return compareNumbers(Number(x), Number(y)) || compareText(x, y);
    return compareText(x, y);
  }
  return compareNumbers(left.length, right.length);
}
