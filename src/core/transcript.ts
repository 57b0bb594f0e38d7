// One entry to every agent's transcript format: parsed lines in, agent events out (pure). The
// reading from disk, bounded and tolerant, is src/services/transcripts/readTranscript.ts.

import { isRecord, type AgentEvent, type TranscriptAgent } from './agentEvents';
import { claudeEvents } from './transcriptClaude';
import { codexEvents } from './transcriptCodex';
import { copilotEvents } from './transcriptCopilot';
import { geminiEvents } from './transcriptGemini';

const READERS: Record<TranscriptAgent, (records: readonly unknown[]) => AgentEvent[]> = {
  claude: claudeEvents,
  codex: codexEvents,
  gemini: geminiEvents,
  copilot: copilotEvents,
};

/** The events of a transcript's parsed lines, oldest first. Entries of types we do not know are skipped. */
export function transcriptEvents(agent: TranscriptAgent, records: readonly unknown[]): AgentEvent[] {
  return READERS[agent](records);
}

/**
 * Which agent wrote these lines, from their shape (a hook may hand us another agent's transcript
 * format: VS Code runs Claude Code's hooks too). Undefined when no line says.
 */
export function detectTranscriptAgent(records: readonly unknown[]): TranscriptAgent | undefined {
  for (const record of records.slice(0, 50)) {
    if (!isRecord(record)) continue;
    if (typeof record.type === 'string' && isRecord(record.payload) && typeof record.timestamp === 'string') return 'codex';
    if (typeof record.type === 'string' && /^[a-z_]+\.[a-z_]+$/.test(record.type) && isRecord(record.data)) return 'copilot';
    if ((typeof record.sessionId === 'string' && typeof record.projectHash === 'string') || '$set' in record || '$rewindTo' in record || record.type === 'gemini') return 'gemini';
    if (typeof record.type === 'string' && (isRecord(record.message) || record.type === 'system') && ('uuid' in record || 'sessionId' in record)) return 'claude';
  }
  return undefined;
}
