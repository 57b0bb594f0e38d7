// The agent's own summary of what it compacted, as Claude Code's PostCompact hook hands it over
// (`compact_summary`), kept per conversation until the recovery context after the compaction
// reads it. One small file per conversation in the user's private state folder
// (io/privateFolder.ts): the summary quotes the conversation, so only its owner may read it.

import path from 'node:path';
import { fnv1a } from '../../core/hash';
import { privateStateRoot, readPrivateFile, writePrivateFile } from '../../io/privateFolder';

/** A summary longer than this is cut: the recovery context shows a few lines of it at most. */
const SUMMARY_MAX_CHARS = 32_000;

export interface KeptSummary {
  text: string;
  /** Epoch ms when the hook kept it. */
  savedAt: number;
}

/** Keeps `summary` as the latest compaction summary of `conversation` (a session id, else the transcript path). */
export async function keepCompactSummary(conversation: string, summary: string, now = Date.now(), dir = summariesDir()): Promise<void> {
  const kept: KeptSummary = { text: summary.slice(0, SUMMARY_MAX_CHARS), savedAt: now };
  await writePrivateFile(fileOf(dir, conversation), JSON.stringify({ conversation, ...kept }));
}

/** The latest summary kept for `conversation`, or undefined (none, or unreadable). */
export async function keptCompactSummary(conversation: string | undefined, dir = summariesDir()): Promise<KeptSummary | undefined> {
  if (!conversation) return undefined;
  try {
    const value = JSON.parse((await readPrivateFile(fileOf(dir, conversation))) ?? 'null') as Partial<KeptSummary & { conversation: string }> | null;
    if (value === null) return undefined;
    if (value.conversation !== conversation || typeof value.text !== 'string' || typeof value.savedAt !== 'number') return undefined;
    return { text: value.text, savedAt: value.savedAt };
  } catch {
    return undefined;
  }
}

function summariesDir(): string {
  return path.join(privateStateRoot(), 'sessions');
}

function fileOf(dir: string, conversation: string): string {
  return path.join(dir, `${fnv1a(conversation)}.summary.json`);
}
