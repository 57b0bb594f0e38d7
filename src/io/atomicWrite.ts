// Replaces a file whole: the text goes to a new file beside it, which is fsynced and then renamed
// over it, so a reader finds the old file or the new one, never a part, even after a crash.
//
// Written here, not taken from write-file-atomic: at every agent start the session's record is
// written this way, and write-file-atomic (with signal-exit and the worker_threads module it loads)
// cost about 3 ms of CPU there (issue 28). Its other work, keeping the old file's mode and owner,
// is not needed for state files that are always created by their user with the default mode.

import { rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { uniqueNamePart } from './uniqueName';

/** Temporary files being written, removed if the process exits before they are renamed. */
const pending = new Set<string>();
let removesAtExit = false;

export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temporary = `${file}.${uniqueNamePart()}.tmp`;
  if (!removesAtExit) {
    removesAtExit = true;
    process.once('exit', () => {
      for (const left of pending) {
        try {
          rmSync(left, { force: true });
        } catch {
          // Left where it is: a name no reader takes for the file.
        }
      }
    });
  }
  pending.add(temporary);
  try {
    // `wx`: never written through a file (or link) already at the name.
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    pending.delete(temporary);
  }
}
