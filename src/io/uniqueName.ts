// A part of a file name that no other writer uses at the same time: this process's pid, a count
// within it, and a random part against a process of the same pid that died leaving its file.
// Not node:crypto: loading it cost every agent start a few ms (issue 28), and these names need to
// be unique, not unguessable; they are created with O_EXCL, so a name already taken fails instead
// of being written through.

let made = 0;

export function uniqueNamePart(): string {
  made += 1;
  return `${process.pid}-${made}-${Math.random().toString(36).slice(2, 10)}`;
}
