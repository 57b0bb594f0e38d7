// The real-agent harness: runs a real agent CLI (installed by scripts/setup-agents.sh) in a temp
// folder, against a model stand-in on 127.0.0.1 (./modelStandin.ts), with the project's hooks
// installed by the built CLI (`node dist/cli.js hooks install`; run `npm run build` first).
//
//   import { createAgentHarness, blockCount } from '../agents/harness';
//   const h = await createAgentHarness({ agent: 'claude', script: [{ when: 'STEP1', turns: [
//     { write: { path: 'notes.txt', content: 'hello\n' } }, { shell: 'ls' }, { text: 'Done.' }] }] });
//   const first = await h.start('STEP1 write the notes');   // a new session
//   await h.compact(first.session);                          // the agent's own compaction
//   const next = await h.resume(first.session, 'STEP2 go on'); // --resume with a prompt
//   blockCount(next.requests[0]);                            // recovery blocks the model got
//   next.transcriptPath;                                     // the agent's own transcript file
//   h.hookRuns();                                            // every run of our hook: exit code, stdout, ms
//   h.comments('demo-1');                                    // the issue's comments, from the store
//   await h.close();
//
// Options: agent ('claude' | 'codex' | 'gemini'); beads (false: a plain folder, no .beads);
// dialect ('br' | 'bd', the stand-in CLIs of test/fixtures/bin); hooks (false: install none);
// bdPrime (also install bd's own `bd prime` hook, as `bd setup` writes it); script (the model's
// turns, see ./modelStandin.ts). Two sessions in one folder: call start() twice, concurrently if
// you like (`Promise.all`); each turn's `requests` are the ones its own session sent.
//
// Isolation: HOME and the agent's config folder are a temp dir; telemetry, update checks and
// other non-essential traffic are switched off; HTTP(S)_PROXY point at the stand-in, which refuses
// and records (`standin.egress`) any attempt to reach another host.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkspace, STANDIN_BIN_DIR } from '../fixtures/make-workspace.mjs';
import { startModelStandin, type ApiFamily, type ModelStandin, type RecordedRequest, type ScriptStep } from './modelStandin';

export type AgentKind = 'claude' | 'codex' | 'gemini';

/** The repository root: the folder above this module holding test/agents (also when bundled elsewhere in it, as the benchmarks are). */
export const REPO = findRepo(path.dirname(fileURLToPath(import.meta.url)));
const HERE = path.join(REPO, 'test', 'agents');
const CLI = path.join(REPO, 'dist', 'cli.js');
const HOOK_RECORDER = path.join(HERE, 'hookRecorder.cjs');
/** `bd prime` as bd's own hook runs it, beside the stand-in `bd` (which has no prime command). */
const PRIME_BIN_DIR = path.join(HERE, 'bin');

export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.BEADS_RECOVERY_CACHE || path.join(os.homedir(), '.cache', 'beads-recovery');
  return path.join(cache, 'agents');
}

export function agentBin(name: string): string {
  const bin = path.join(agentsDir(), 'node_modules', '.bin', name);
  if (!fs.existsSync(bin)) throw new Error(`${name} is not installed: run scripts/setup-agents.sh (looked for ${bin})`);
  return bin;
}

/** The version of an installed agent package, from its package.json. */
export function agentVersion(pkg: string): string {
  return (JSON.parse(fs.readFileSync(path.join(agentsDir(), 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

export interface HarnessOptions {
  agent: AgentKind;
  beads?: boolean;
  dialect?: 'br' | 'bd';
  hooks?: boolean;
  bdPrime?: boolean;
  script?: ScriptStep[];
  /** Extra environment for the agent (and so for its hooks). */
  env?: Record<string, string>;
}

export interface AgentTurn {
  session: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** From launch to exit. */
  durationMs: number;
  /** From launch to the session's first request to the model (undefined: it sent none). */
  firstRequestMs: number | undefined;
  /** Conversation requests (turns and compactions) this session sent during this run. */
  requests: RecordedRequest[];
  transcriptPath: string | undefined;
}

export interface HookRun {
  agent: string;
  event: string;
  cwd: string;
  exitCode: number;
  stdout: string;
  startedAt: number;
  durationMs: number;
}

export interface BeadsComment {
  text: string;
  author?: string;
  created_at?: string;
}

interface AgentDriver {
  family: ApiFamily;
  bin: string;
  /** Writes the agent's config into the temp home; returns its environment. */
  configure(home: string, standin: ModelStandin): Record<string, string>;
  newSession(prompt: string, session: string): { args: string[]; session?: string };
  resume(session: string, prompt: string): string[];
  compact(session: string): string[];
  /** The session id the run reported, when the driver could not choose it. */
  sessionFrom(stdout: string, home: string): string | undefined;
  /** Which recorded requests belong to a session. */
  belongsTo(request: RecordedRequest, session: string): boolean;
  transcriptPath(home: string, session: string): string | undefined;
  installHooks: string;
}

const QUIET_ENV = {
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  NO_UPDATE_NOTIFIER: '1',
  CI: '1',
};

function findRepo(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'test', 'agents', 'hookRecorder.cjs'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no test/agents above ${from}`);
  }
}

function findFile(root: string, name: string): string | undefined {
  if (!fs.existsSync(root)) return undefined;
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === name) return path.join(entry.parentPath, entry.name);
  }
  return undefined;
}

const claude: AgentDriver = {
  family: 'anthropic',
  bin: 'claude',
  configure(home, standin) {
    return { CLAUDE_CONFIG_DIR: path.join(home, '.claude'), ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: 'sk-ant-standin' };
  },
  // Claude Code takes the new session's id (--session-id), so concurrent sessions are told apart.
  newSession: (prompt, session) => ({ args: ['-p', prompt, '--session-id', session, ...CLAUDE_RUN_ARGS], session }),
  resume: (session, prompt) => ['-p', prompt, '--resume', session, ...CLAUDE_RUN_ARGS],
  // `/compact` as the prompt of a resumed print-mode run is Claude Code's manual compaction.
  compact: (session) => ['-p', '/compact', '--resume', session, ...CLAUDE_RUN_ARGS],
  sessionFrom: () => undefined,
  belongsTo: (request, session) => request.headers['x-claude-code-session-id'] === session,
  transcriptPath: (home, session) => findFile(path.join(home, '.claude', 'projects'), `${session}.jsonl`),
  installHooks: 'claude',
};
// As root Claude Code refuses --dangerously-skip-permissions; naming the tools works for everyone.
const CLAUDE_RUN_ARGS = ['--allowedTools', 'Bash', 'Write', 'Edit', 'Read', '--output-format', 'json'];

const DRIVERS: Record<AgentKind, AgentDriver> = { claude } as Record<AgentKind, AgentDriver>;

export interface AgentHarness {
  agent: AgentKind;
  /** The session's folder (a beads workspace unless `beads: false`). */
  dir: string;
  home: string;
  standin: ModelStandin;
  env: Record<string, string>;
  start(prompt: string): Promise<AgentTurn>;
  resume(session: string, prompt: string): Promise<AgentTurn>;
  compact(session: string): Promise<AgentTurn>;
  transcriptPath(session: string): string | undefined;
  hookRuns(): HookRun[];
  comments(issueId: string): BeadsComment[];
  close(): Promise<void>;
}

export async function createAgentHarness(options: HarnessOptions): Promise<AgentHarness> {
  const driver = DRIVERS[options.agent];
  if (!driver) throw new Error(`no driver for agent '${options.agent}'`);
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const bin = agentBin(driver.bin);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `agent-${options.agent}-`));
  const home = path.join(root, 'home');
  const dir = path.join(root, 'project');
  fs.mkdirSync(home, { recursive: true });
  if (options.beads === false) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'README.md'), '# A plain folder\n');
  } else {
    makeWorkspace({ dir, dialect: options.dialect ?? 'br', data: 'scenario', git: true });
  }
  const standin = await startModelStandin(driver.family, options.script ?? []);
  const hookLog = path.join(root, 'hook-runs.jsonl');
  const env: Record<string, string> = {
    PATH: [PRIME_BIN_DIR, STANDIN_BIN_DIR, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    HOME: home,
    USERPROFILE: home,
    TMPDIR: process.env.TMPDIR ?? os.tmpdir(),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    ...QUIET_ENV,
    HTTP_PROXY: standin.url,
    HTTPS_PROXY: standin.url,
    http_proxy: standin.url,
    https_proxy: standin.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    NODE_OPTIONS: `--require ${HOOK_RECORDER}`,
    BEADS_AGENT_HOOK_LOG: hookLog,
    ...driver.configure(home, standin),
    ...options.env,
  };
  if (options.bdPrime) installBdPrime(dir, options.agent);
  if (options.hooks !== false) {
    await runProcess(process.execPath, [CLI, 'hooks', 'install', '--agent', driver.installHooks, '--dir', dir], { cwd: dir, env }).then((result) => {
      if (result.exitCode !== 0) throw new Error(`hooks install failed (${result.exitCode}): ${result.stderr}${result.stdout}`);
    });
  }

  const run = async (args: string[], session: string): Promise<AgentTurn> => {
    const started = Date.now();
    const result = await runProcess(bin, args, { cwd: dir, env });
    const ended = Date.now();
    const id = session || driver.sessionFrom(result.stdout, home) || '';
    const requests = standin.conversationRequests().filter((request) => request.at >= started && request.at <= ended && driver.belongsTo(request, id));
    const firstRequestMs = requests[0] ? requests[0].at - started : undefined;
    return { session: id, ...result, durationMs: ended - started, firstRequestMs, requests, transcriptPath: id ? driver.transcriptPath(home, id) : undefined };
  };

  return {
    agent: options.agent,
    dir,
    home,
    standin,
    env,
    start: (prompt) => {
      const planned = driver.newSession(prompt, randomUUID());
      return run(planned.args, planned.session ?? '');
    },
    resume: (session, prompt) => run(driver.resume(session, prompt), session),
    compact: (session) => run(driver.compact(session), session),
    transcriptPath: (session) => driver.transcriptPath(home, session),
    hookRuns: () => (fs.existsSync(hookLog) ? fs.readFileSync(hookLog, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as HookRun) : []),
    comments: (issueId) => readComments(dir, issueId),
    close: async () => {
      await standin.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** How many recovery blocks a request carries (each names the issue it resumes once). */
export function blockCount(request: RecordedRequest | undefined): number {
  return request ? occurrences(request.text, '## Resuming: ') : 0;
}

/** How many copies of the beads workflow rules a request carries (ours or bd prime's). */
export function rulesCount(request: RecordedRequest | undefined): number {
  return request ? occurrences(request.text, 'Core Rules') : 0;
}

export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The issue's comments as the store holds them (.beads/issues.jsonl), oldest first. */
export function readComments(dir: string, issueId: string): BeadsComment[] {
  const lines = fs.readFileSync(path.join(dir, '.beads', 'issues.jsonl'), 'utf8').split('\n').filter(Boolean);
  for (const line of lines) {
    const record = JSON.parse(line) as { id: string; comments?: BeadsComment[] };
    if (record.id === issueId) return record.comments ?? [];
  }
  return [];
}

function installBdPrime(dir: string, agent: AgentKind): void {
  const files: Record<AgentKind, { relative: string; text: string } | undefined> = {
    claude: { relative: '.claude/settings.json', text: `${JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ command: 'bd prime --hook-json', type: 'command' }], matcher: '' }], PreCompact: [{ hooks: [{ command: 'bd prime', type: 'command' }], matcher: '' }] } }, null, 2)}\n` },
    codex: undefined,
    gemini: undefined,
  };
  const file = files[agent];
  if (!file) throw new Error(`no bd prime hook file for ${agent}`);
  fs.mkdirSync(path.dirname(path.join(dir, file.relative)), { recursive: true });
  fs.writeFileSync(path.join(dir, file.relative), file.text);
}

interface ProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

const AGENT_TIMEOUT_MS = 120_000;

function runProcess(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), AGENT_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}
