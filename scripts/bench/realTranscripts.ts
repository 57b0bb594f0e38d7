// The corpus of real agent transcripts (test/fixtures/transcripts/real/): each case is a
// hand-written facts file that cites a public transcript by repository, commit and path, and names
// the copy of it committed beside the facts (its licence allows it; LICENSES.md holds the notices).
// The transcript is read from that copy, cut where the case says, with live-looking secrets masked.
// See test/fixtures/transcripts/real/METHOD.md.
import fs from 'node:fs';
import path from 'node:path';
import { isTranscriptAgent, type AgentEvent, type TranscriptAgent } from '../../src/core/agentEvents';
import { notUnderstood, transcriptEvents } from '../../src/core/transcript';
import { sessionThread, type SessionThread } from '../../src/core/transcriptThread';

export interface CorpusFact {
  kind: 'request' | 'done' | 'failing' | 'tests' | 'next' | 'question' | 'files';
  fact: string;
  /** Every text must be in the context (case-insensitive). */
  all?: string[];
  /** At least one text must be in the context (case-insensitive). */
  any?: string[];
  /** The context must match (case-insensitive). */
  pattern?: string;
}

export interface FalseStatement {
  fact: string;
  /** Matches a context that states it (case-sensitive: labels such as `Failing:` are matched exactly). */
  pattern: string;
}

export interface CorpusCase {
  agent: TranscriptAgent;
  name: string;
  /** `file`: the committed copy, in the case's agent folder; absent when the licence does not allow a copy. */
  source: { repo: string; path: string; commit: string; license: string; file?: string; lines?: [number, number]; cut?: string };
  session: { id?: string; cwd?: string | null };
  about: string;
  facts: CorpusFact[];
  false: FalseStatement[];
}

/** The corpus's folder in the repository. */
export function corpusRoot(repo: string): string {
  return path.join(repo, 'test', 'fixtures', 'transcripts', 'real');
}

/** The cases, agent by agent, in name order. */
export function corpusCases(repo: string): CorpusCase[] {
  const root = corpusRoot(repo);
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isTranscriptAgent(entry.name))
    .flatMap((entry) =>
      fs
        .readdirSync(path.join(root, entry.name))
        .filter((name) => name.endsWith('.facts.json'))
        .sort()
        .map((name) => ({ agent: entry.name as TranscriptAgent, name: name.replace(/\.facts\.json$/, ''), ...(JSON.parse(fs.readFileSync(path.join(root, entry.name, name), 'utf8')) as Omit<CorpusCase, 'agent' | 'name'>) })),
    );
}

/** The transcript's parsed lines, or why it could not be had (a case whose licence allows no copy is "not in the repo"). */
export function loadTranscript(repo: string, item: CorpusCase): { records: unknown[] } | { unavailable: string } {
  if (!item.source.file) return { unavailable: `not in the repo: its licence (${item.source.license}) does not allow a copy here` };
  let text: string;
  try {
    text = fs.readFileSync(path.join(corpusRoot(repo), item.agent, item.source.file), 'utf8');
  } catch {
    return { unavailable: `${item.agent}/${item.source.file} is missing from the corpus folder` };
  }
  text = maskSecrets(text);
  if (item.source.file.endsWith('.json')) {
    try {
      return { records: [JSON.parse(text) as unknown] };
    } catch {
      return { unavailable: `${item.agent}/${item.source.file} is not JSON` };
    }
  }
  let lines = text.split('\n');
  if (item.source.lines) lines = lines.slice(item.source.lines[0] - 1, item.source.lines[1]);
  return {
    records: lines.flatMap((line) => {
      try {
        return line.trim() === '' ? [] : [JSON.parse(line) as unknown];
      } catch {
        return [];
      }
    }),
  };
}

/**
 * Live-looking credentials replaced before anything reads the transcript (secretlint's
 * recommended preset found none in the committed copies; this keeps it so if a copy is replaced).
 */
const SECRET_SHAPES = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g,
  /\bsk-[A-Za-z0-9]{32,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[baprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

export function maskSecrets(text: string): string {
  return SECRET_SHAPES.reduce((masked, shape) => masked.replace(shape, '[masked]'), text);
}

/** Which facts the context carries, and which false statements it makes that the context without the thread did not. */
export function judge(item: CorpusCase, context: string, withoutThread: string): { missing: string[]; falseSaid: string[] } {
  const lower = context.toLowerCase();
  const has = (text: string) => lower.includes(text.toLowerCase());
  const missing = item.facts
    .filter((fact) => !((fact.all ?? []).every(has) && (fact.any === undefined || fact.any.some(has)) && (fact.pattern === undefined || new RegExp(fact.pattern, 'i').test(context))))
    .map((fact) => fact.fact);
  const falseSaid = item.false.flatMap((statement) => {
    const pattern = new RegExp(statement.pattern);
    const match = pattern.exec(context);
    if (!match || pattern.test(withoutThread)) return [];
    return [`${statement.fact} («${match[0].slice(0, 80)}»)`];
  });
  return { missing, falseSaid };
}

/** The case's thread, read as a hook reads it: the session's own lines, files relative to the session's folder. */
export function caseThread(item: CorpusCase, records: readonly unknown[]): { events: AgentEvent[]; thread: SessionThread } {
  const events = transcriptEvents(item.agent, records, { sessionId: item.session.id, cwd: item.session.cwd ?? undefined });
  // As a hook reads it: a transcript the reader could not make out says so in the thread ("thread unavailable: …").
  const unavailable = notUnderstood(item.agent, records, events, 0);
  return { events, thread: { ...sessionThread(events), ...(unavailable === undefined ? {} : { unavailable }) } };
}

/** The readers found something of the session: a message of the user or a tool call. */
export function understoodBy(events: readonly AgentEvent[]): boolean {
  return events.some((event) => event.type === 'user' || event.type === 'tool-call');
}
