// A withdrawn or retracted CLI release is warned about once per user and release, wherever it is
// first seen (the extension, the command line, a hook): the note of what was said lives beside the
// process registry, so a hook that runs at every prompt does not repeat it.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withdrawnWarning } from '../core/cliVersions';
import type { Dialect } from '../core/model';
import { SMALL_FILE_MAX_BYTES, readTextFile } from '../io/safeRead';
import { processRegistryDir } from './processRegistry';

function notesFile(): string {
  return path.join(path.dirname(processRegistryDir()), 'release-warnings.json');
}

/**
 * The warning for this release when it is withdrawn and has not been given yet (then noted as
 * given); undefined otherwise. A note that cannot be written costs only a repeat.
 */
export async function releaseWarningOnce(dialect: Dialect, version: string): Promise<string | undefined> {
  const warning = withdrawnWarning(dialect, version);
  if (warning === undefined) return undefined;
  const file = notesFile();
  let given: string[] = [];
  try {
    const value: unknown = JSON.parse((await readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '[]');
    if (Array.isArray(value)) given = value.filter((entry): entry is string => typeof entry === 'string');
  } catch {
    // nothing said yet
  }
  const key = `${dialect}@${version.trim()}`;
  if (given.includes(key)) return undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify([...given, key]), { mode: 0o600 });
  } catch {
    // said again next time
  }
  return warning;
}
