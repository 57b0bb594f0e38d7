// The one parse of an agent's transcript text into its records, for every agent's file and every
// reader of it (the session's thread, the Gemini hooks' history, Copilot CLI's compaction check).
// Pure, and importing nothing: the hooks parse with it before the rest of the hook is loaded.

/**
 * JSON values of the text's lines. Read from the middle of a file, the first line is a fragment
 * and is dropped unread; a line that does not parse (one being written) is skipped and counted. A
 * whole-file JSON document (Gemini CLI's older `.json` sessions) gives its one value.
 */
export function transcriptRecords(text: string, fromStart: boolean): { records: unknown[]; skippedLines: number } {
  const body = fromStart ? text.replace(/^\uFEFF/, '') : text.slice(text.indexOf('\n') + 1);
  if (fromStart && /^\s*\{\s*\n/.test(body)) {
    try {
      return { records: [JSON.parse(body) as unknown], skippedLines: 0 };
    } catch {
      // Not one document: read it line by line.
    }
  }
  const records: unknown[] = [];
  let skippedLines = 0;
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as unknown);
    } catch {
      skippedLines++;
    }
  }
  return { records, skippedLines };
}
