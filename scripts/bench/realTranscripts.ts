// The corpus of real agent transcripts (test/fixtures/transcripts/real/): each case is a
// hand-written facts file that cites a public transcript by repository, commit and path. The
// transcripts themselves are not in this repository; they are read from local git snapshots of
// those repositories (one bare repository per source, `<owner>+<name>/repo`, in the folder
// BEADS_RECOVERY_CORPUS_SNAPSHOTS names), cut where the case says, with live-looking secrets
// masked. See test/fixtures/transcripts/real/METHOD.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isTranscriptAgent, type TranscriptAgent } from '../../src/core/agentEvents';

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
  source: { repo: string; path: string; commit: string; license: string; lines?: [number, number]; cut?: string };
  session: { id?: string; cwd?: string | null };
  about: string;
  facts: CorpusFact[];
  false: FalseStatement[];
}

export const SNAPSHOTS_VARIABLE = 'BEADS_RECOVERY_CORPUS_SNAPSHOTS';

/** The cases, agent by agent, in name order. */
export function corpusCases(repo: string): CorpusCase[] {
  const root = path.join(repo, 'test', 'fixtures', 'transcripts', 'real');
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

/** The transcript's parsed lines, or why it could not be had. */
export function loadTranscript(snapshots: string | undefined, item: CorpusCase): { records: unknown[] } | { unavailable: string } {
  if (!snapshots) return { unavailable: `${SNAPSHOTS_VARIABLE} is not set` };
  const gitDir = path.join(snapshots, item.source.repo.replace('/', '+'), 'repo');
  if (!fs.existsSync(gitDir)) return { unavailable: `no snapshot of ${item.source.repo}` };
  let text: string;
  try {
    text = execFileSync('git', ['--git-dir', gitDir, 'show', `${item.source.commit}:${item.source.path}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return { unavailable: `${item.source.path} is not in the snapshot of ${item.source.repo} at ${item.source.commit.slice(0, 7)}` };
  }
  text = maskSecrets(text);
  if (item.source.path.endsWith('.json')) {
    try {
      return { records: [JSON.parse(text) as unknown] };
    } catch {
      return { unavailable: `${item.source.path} is not JSON` };
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
 * Live-looking credentials replaced before anything reads the transcript (none of the cited
 * transcripts held one when they were collected; this keeps it so if a source changes).
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
