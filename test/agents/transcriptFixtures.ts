// Real transcripts become fixtures only without the machine they were recorded on: the session's
// temp folders and the repository are replaced by fixed names, and what else names this machine
// (the user's home, the temp folder) too. Claude Code also logs each whole API request it sent
// (`api-request*` lines) and snapshots of its own system prompt and skill list (attachments):
// hundreds of kilobytes of its own prompt, left out to keep the fixtures small; no reader uses them.
import os from 'node:os';

const DROPPED_TYPES = /^api-request/;
const DROPPED_ATTACHMENTS = new Set(['prompt_snapshot', 'skill_listing', 'agent_listing_delta']);

/** The transcript's text with each of `paths` (longest first) replaced by its stand-in, in plain and JSON-escaped spellings. */
export function scrubTranscript(text: string, paths: Record<string, string>): string {
  const replacements: [string, string][] = [...Object.entries(paths), [os.tmpdir(), '/tmp'], [os.homedir(), '/home']];
  replacements.sort((a, b) => b[0].length - a[0].length);
  const kept = text
    .split('\n')
    .filter((line) => {
      try {
        const record = JSON.parse(line) as { type?: unknown; attachment?: { type?: unknown } };
        if (typeof record.type === 'string' && DROPPED_TYPES.test(record.type)) return false;
        return !(record.type === 'attachment' && DROPPED_ATTACHMENTS.has(String(record.attachment?.type)));
      } catch {
        return line.trim() !== '';
      }
    })
    .join('\n');
  let scrubbed = `${kept}\n`;
  for (const [from, to] of replacements) {
    if (!from || from === '/') continue;
    for (const spelling of [from, JSON.stringify(from).slice(1, -1)]) scrubbed = scrubbed.split(spelling).join(to);
  }
  return scrubbed;
}
