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
