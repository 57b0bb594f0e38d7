// What is known about the releases of bd and br a user may run (docs/BEADS_CONTRACT.md §9): how versions
// compare, and which releases were withdrawn or retracted, with the reason to tell the user.
import type { Dialect } from './model';

/** Numeric comparison of dotted versions (`1.3.0` > `1.2`, a leading `v` and a pre-release tail ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (text: string) =>
    text
      .trim()
      .replace(/^v/i, '')
      .split(/[-+]/)[0]!
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Releases nobody should run, and why (bd's CHANGELOG and go.mod `retract` directives). */
const WITHDRAWN: Readonly<Record<Dialect, Readonly<Record<string, string>>>> = {
  bd: {
    // CHANGELOG [1.2.2]/[1.3.0] intro: the 1.0.5 release was withdrawn for data corruption.
    '1.0.5': 'withdrawn for data corruption; upgrade to 1.3.1',
    // go.mod retracts v1.2.1, v1.2.0 and v1.1.1; 1.2.2 ships the 1.1.2 code (CHANGELOG [1.2.2]).
    '1.2.1': 'retracted by the beads project (go.mod retract); upgrade to 1.3.1',
    '1.2.0': 'retracted by the beads project (go.mod retract); upgrade to 1.3.1',
    '1.1.1': 'retracted by the beads project (go.mod retract); upgrade to 1.3.1',
  },
  br: {},
};

/** Why this release should not be run, or undefined when nothing is known against it. */
export function withdrawnReason(dialect: Dialect, version: string): string | undefined {
  const plain = version.trim().replace(/^v/i, '');
  return WITHDRAWN[dialect][plain];
}

/** The warning for a withdrawn or retracted release, naming the reason; undefined for the others. */
export function withdrawnWarning(dialect: Dialect, version: string): string | undefined {
  const reason = withdrawnReason(dialect, version);
  return reason === undefined ? undefined : `${dialect} ${version.trim().replace(/^v/i, '')} is ${reason}.`;
}
