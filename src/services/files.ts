import { readFile } from 'node:fs/promises';

/** The file's text, or undefined when it does not exist; any other failure is the caller's to report. */
export async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
