import * as path from 'node:path';

// Files the extension itself writes in a workspace folder (AGENTS.md, agent hook settings). The
// activity tracker skips their events for a moment, so that the extension's own writes are never
// counted as the user's work on an issue. (Hook settings files are agent configuration and are
// never counted at all: see trackedPathFilter; AGENTS.md is, when someone else edits it.)

/** Long enough for the file watcher to deliver the write's events, short enough not to hide a user's edit. */
const OWN_WRITE_WINDOW_MS = 10_000;
const expected = new Map<string, number>();

/** Call just before writing `file`: its events until a moment after are the extension's. */
export function expectOwnWrite(file: string, now = Date.now()): void {
  for (const [key, until] of expected) if (until < now) expected.delete(key);
  expected.set(path.resolve(file), now + OWN_WRITE_WINDOW_MS);
}

/** Whether an event on `file` at `now` is the extension's own write. */
export function isOwnWrite(file: string, now = Date.now()): boolean {
  const until = expected.get(path.resolve(file));
  return until !== undefined && now <= until;
}
