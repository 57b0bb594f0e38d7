import * as path from 'node:path';

// Files the extension itself writes in a workspace folder (AGENTS.md, agent hook settings). The
// activity tracker skips their events for a moment, so that the extension's own writes are never
// counted as the user's work on an issue. (Hook settings files are agent configuration and are
// never counted at all: see trackedPathFilter; AGENTS.md is, when someone else edits it.)

/** Long enough for the file watcher to deliver the write's events, short enough not to hide a user's edit. */
const OWN_WRITE_WINDOW_MS = 10_000;
const expected = new Map<string, number>();
/**
 * The end of the window of the extension's last write of each file, kept after the window: a file
 * the extension wrote and nobody touched since stays dirty in `git status`, and is still not the
 * user's work. Bounded: the extension writes a handful of files.
 */
const lastWritten = new Map<string, number>();
const LAST_WRITTEN_LIMIT = 100;

/** Call just before writing `file`: its events until a moment after are the extension's. */
export function expectOwnWrite(file: string, now = Date.now()): void {
  for (const [key, until] of expected) if (until < now) expected.delete(key);
  const key = path.resolve(file);
  expected.set(key, now + OWN_WRITE_WINDOW_MS);
  lastWritten.delete(key);
  lastWritten.set(key, now + OWN_WRITE_WINDOW_MS);
  if (lastWritten.size > LAST_WRITTEN_LIMIT) lastWritten.delete(lastWritten.keys().next().value as string);
}

/** Whether an event on `file` at `now` is the extension's own write. */
export function isOwnWrite(file: string, now = Date.now()): boolean {
  const until = expected.get(path.resolve(file));
  return until !== undefined && now <= until;
}

/** Whether `file`, last modified at `modifiedMs`, still holds what the extension wrote (nobody changed it since). */
export function isUnchangedOwnWrite(file: string, modifiedMs: number): boolean {
  const until = lastWritten.get(path.resolve(file));
  return until !== undefined && modifiedMs <= until;
}
