// The one parse of an agent's transcript text into its records, for every agent's file and every
// reader of it (the session's thread, the Gemini hooks' history, Copilot CLI's compaction check).
// Pure, and importing nothing: the hooks parse with it before the rest of the hook is loaded.

/**
 * JSON values of the text's lines. Read from the middle of a file, the first line is a fragment
 * and is dropped unread; a line that does not parse (one being written) is skipped and counted. A
 * whole-file JSON document (Gemini CLI's older `.json` sessions, `opencode export`) gives its one
 * value; pretty-printed documents one after another (opencode's stored message and part files
 * put together) give one value each.
 */
export function transcriptRecords(text: string, fromStart: boolean): { records: unknown[]; skippedLines: number } {
  const body = fromStart ? text.replace(/^\uFEFF/, '') : text.slice(text.indexOf('\n') + 1);
  if (fromStart && /^\s*\{\s*\n/.test(body)) {
    try {
      return { records: [JSON.parse(body) as unknown], skippedLines: 0 };
    } catch {
      // Not one document: several, or lines.
    }
    const documents = prettyDocuments(body);
    if (documents.records.length > 1) return documents;
  }
  return parseEach(body.split('\n'));
}

/**
 * Pretty-printed JSON documents one after another. Inside one, every line but its last is indented
 * or continues a value (a JSON string holds no raw line break), so each starts where a line opens
 * with `{` or `[` in the first column; one that does not parse is skipped and counted.
 */
function prettyDocuments(body: string): { records: unknown[]; skippedLines: number } {
  return parseEach(body.split(/\n(?=[{[])/));
}

/** Each non-blank piece parsed as JSON; one that does not parse is skipped and counted. */
function parseEach(pieces: readonly string[]): { records: unknown[]; skippedLines: number } {
  const records: unknown[] = [];
  let skippedLines = 0;
  for (const piece of pieces) {
    if (piece.trim() === '') continue;
    try {
      records.push(JSON.parse(piece) as unknown);
    } catch {
      skippedLines++;
    }
  }
  return { records, skippedLines };
}
