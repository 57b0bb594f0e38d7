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
// bdPrime (also install bd's own `bd prime` hook, as `bd setup` writes it); brDatabase (br's store
// as br leaves it after a write: our hooks read its current issues.jsonl); script (the model's
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
import { BD_HOOK_FILES } from '../fixtures/agentHookFiles.mjs';
import { makeWorkspace, STANDIN_BIN_DIR } from '../fixtures/make-workspace.mjs';
import { startModelStandin, type ApiFamily, type ModelStandin, type RecordedRequest, type ScriptStep } from './modelStandin';

export type AgentKind = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode';

/**
 * The repository root: the folder above this module holding test/agents. A bundle of this module
 * elsewhere (the benchmarks') names its repository in the `repo` option instead.
 */
export const REPO = findRepo(path.dirname(fileURLToPath(import.meta.url)));

/** The files of the repository the harness runs: our CLI, the hook recorder, bd's prime. */
function repoFiles(repo: string) {
  const here = path.join(repo, 'test', 'agents');
  return { cli: path.join(repo, 'dist', 'cli.js'), hookRecorder: path.join(here, 'hookRecorder.cjs'), primeBinDir: path.join(here, 'bin') };
}

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
  /** Codex: run without --dangerously-bypass-hook-trust, as a user who never opened /hooks. */
  untrustedHooks?: boolean;
  /** The repository whose dist/cli.js and test/agents to use (default: the one holding this module). */
  repo?: string;
  /**
   * br's store as br leaves it after a write: its database beside an issues.jsonl at least as new
   * (br flushes the export after every write), so our hooks read the export and start no br. The
   * stand-in keeps its data in issues.jsonl only: the file stands for the database's presence and
   * age, which is all the hooks look at. Without it (the default) the store is a fresh clone's,
   * with no database yet, and the hooks ask br.
   */
  brDatabase?: boolean;
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
  configure(home: string, standin: ModelStandin, dir: string): Record<string, string>;
  /** Script steps the driver itself needs (its compaction trigger). */
  script?: ScriptStep[];
  newSession(prompt: string, session: string, options: HarnessOptions): { args: string[]; session?: string };
  resume(session: string, prompt: string, options: HarnessOptions): string[];
  /** A new session that starts from a copy of the session's conversation (Claude Code's --fork-session). */
  fork?(session: string, prompt: string): string[];
  /** The agent's compaction: its own command, or the turn that makes it compact by its own measure. */
  compact(session: string, options: HarnessOptions): string[];
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
  return findFileEnding(root, name, true);
}

function findFileEnding(root: string, ending: string, whole = false): string | undefined {
  if (!fs.existsSync(root)) return undefined;
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && (whole ? entry.name === ending : entry.name.endsWith(ending))) return path.join(entry.parentPath, entry.name);
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
  fork: (session, prompt) => ['-p', prompt, '--resume', session, '--fork-session', ...CLAUDE_RUN_ARGS],
  // `/compact` as the prompt of a resumed print-mode run is Claude Code's manual compaction.
  compact: (session) => ['-p', '/compact', '--resume', session, ...CLAUDE_RUN_ARGS],
  // A fork's id is new: its run reports it (`session_id` in the JSON result).
  sessionFrom: (stdout) => /"session_id":"([0-9a-f-]+)"/.exec(stdout)?.[1],
  belongsTo: (request, session) => request.headers['x-claude-code-session-id'] === session,
  transcriptPath: (home, session) => findFile(path.join(home, '.claude', 'projects'), `${session}.jsonl`),
  installHooks: 'claude',
};
// As root Claude Code refuses --dangerously-skip-permissions; naming the tools works for everyone.
const CLAUDE_RUN_ARGS = ['--allowedTools', 'Bash', 'Write', 'Edit', 'Read', '--output-format', 'json'];

/** The prompt of a turn whose answer reports a context over the agent's own compaction limit. */
const COMPACT_PROMPT = 'COMPACT-NOW: fill the context';
const COMPACT_STEP: ScriptStep = {
  when: 'COMPACT-NOW',
  // A tool call, so the turn goes on after it and the agent compacts before asking again.
  turns: [{ shell: 'echo filling', tokens: 900_000 }, { text: 'Compacted.' }],
  afterCompaction: [{ text: 'Compacted.' }],
};

// Codex runs a project's hooks only once each is trusted, a hash of the hook stored per hook in
// the user's config.toml by its /hooks view; `--dangerously-bypass-hook-trust` runs the enabled
// hooks for one invocation without it. See codex-rs/hooks/src/engine/discovery.rs
// (openai/codex@0082977cebb9fbd524046914dbc4305e5b8e0b95): a handler is kept only when
// `source.bypass_hook_trust` or its trust status is Managed or Trusted (`hooks.state.<key>.trusted_hash`
// equal to the hook's current hash).
const codexRunArgs = (options: HarnessOptions) => ['exec', '--json', ...(options.untrustedHooks ? [] : ['--dangerously-bypass-hook-trust']), '--skip-git-repo-check'];
const codex: AgentDriver = {
  family: 'openai',
  bin: 'codex',
  configure(home, standin, dir) {
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const toml = (value: string) => JSON.stringify(value);
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-standin"',
        'model_provider = "standin"',
        'model_context_window = 1000000',
        // Compaction by Codex's own measure: an answer that reports more than this compacts (COMPACT_STEP).
        'model_auto_compact_token_limit = 500000',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '[analytics]',
        'enabled = false',
        '[feedback]',
        'enabled = false',
        '[features]',
        'plugins = false',
        'apps = false',
        'remote_plugin = false',
        '[model_providers.standin]',
        'name = "Model stand-in"',
        `base_url = ${toml(`${standin.url}/v1`)}`,
        'wire_api = "responses"',
        'env_key = "STANDIN_API_KEY"',
        `[projects.${toml(dir)}]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'),
    );
    return { CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-standin' };
  },
  script: [COMPACT_STEP],
  newSession: (prompt, _session, options) => ({ args: [...codexRunArgs(options), prompt] }),
  resume: (session, prompt, options) => [...codexRunArgs(options), 'resume', session, prompt],
  // `codex exec` takes `/compact` as text: Codex compacts by its own measure instead (COMPACT_STEP).
  compact: (session, options) => [...codexRunArgs(options), 'resume', session, COMPACT_PROMPT],
  sessionFrom(stdout) {
    for (const line of stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line) as { type?: string; thread_id?: string };
      if (event.type === 'thread.started' && event.thread_id) return event.thread_id;
    }
    return undefined;
  },
  belongsTo: (request, session) => request.headers['session-id'] === session,
  transcriptPath: (home, session) => findFileEnding(path.join(home, '.codex', 'sessions'), `${session}.jsonl`),
  installHooks: 'codex',
};

const GEMINI_RUN_ARGS = ['--yolo', '--output-format', 'json'];
const gemini: AgentDriver = {
  family: 'gemini',
  bin: 'gemini',
  configure(home, standin) {
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      // In the names Gemini CLI 0.61 reads: under the old ones (disableAutoUpdate, disableUpdateNag)
      // each start migrates and rewrites this file, and a second session started beside the first
      // read it half written ("Unexpected end of JSON input", exit 52).
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    };
    fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return { GEMINI_API_KEY: 'standin', GOOGLE_GEMINI_BASE_URL: standin.url, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  },
  script: [COMPACT_STEP],
  newSession: (prompt, session) => ({ args: ['-p', prompt, '--session-id', session, ...GEMINI_RUN_ARGS], session }),
  resume: (session, prompt) => ['-p', prompt, '--resume', session, ...GEMINI_RUN_ARGS],
  // `-p /compress` goes to the model as text: Gemini CLI compresses by its own measure instead (COMPACT_STEP).
  compact: (session) => ['-p', COMPACT_PROMPT, '--resume', session, ...GEMINI_RUN_ARGS],
  sessionFrom: () => undefined,
  // Gemini CLI's requests carry no session id: a run's requests are the ones made while it ran.
  belongsTo: () => true,
  transcriptPath: (home, session) => findFileEnding(path.join(home, '.gemini', 'tmp'), `-${session.slice(0, 8)}.jsonl`),
  installHooks: 'gemini',
};

// Copilot CLI with a model of your own (BYOK: COPILOT_PROVIDER_*), offline (no GitHub sign-in, no
// telemetry, no update), the folder trusted for the run (COPILOT_ALLOW_ALL=true), which loads its
// .github/hooks files.
const COPILOT_RUN_ARGS = ['--allow-all-tools', '--no-auto-update', '--disable-client-telemetry'];
// Copilot CLI compacts in the background, beside the request after its PreCompact, and applies the
// summary before its next model request; a `-p` run that ends first drops it ("Compaction
// Cancelled" in its events file). So that request answers, after a model's time, with one more tool
// call, and the compaction lands before the turn goes on.
const COPILOT_COMPACT_STEP: ScriptStep = {
  ...COMPACT_STEP,
  turns: [{ shell: 'echo filling', tokens: 900_000 }, { shell: 'echo compacting', delayMs: 1_500 }, { text: 'Compacted.' }],
};
const copilot: AgentDriver = {
  family: 'anthropic',
  bin: 'copilot',
  configure(home, standin) {
    return {
      COPILOT_HOME: path.join(home, '.copilot'),
      COPILOT_PROVIDER_BASE_URL: standin.url,
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_API_KEY: 'sk-ant-standin',
      COPILOT_MODEL: 'claude-sonnet-4.5',
      // Compaction by Copilot CLI's own measure: an answer that reports more than this compacts (COMPACT_STEP).
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '500000',
      COPILOT_OFFLINE: 'true',
      COPILOT_ALLOW_ALL: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    };
  },
  script: [COPILOT_COMPACT_STEP],
  newSession: (prompt, session) => ({ args: ['-p', prompt, '--session-id', session, ...COPILOT_RUN_ARGS], session }),
  resume: (session, prompt) => ['-p', prompt, `--resume=${session}`, ...COPILOT_RUN_ARGS],
  compact: (session) => ['-p', COMPACT_PROMPT, `--resume=${session}`, ...COPILOT_RUN_ARGS],
  sessionFrom: () => undefined,
  belongsTo: () => true,
  transcriptPath: (home, session) => {
    const events = path.join(home, '.copilot', 'session-state', session, 'events.jsonl');
    return fs.existsSync(events) ? events : undefined;
  },
  installHooks: 'copilot-cli',
};

// opencode with its Anthropic provider pointed at the stand-in; XDG folders in the temp home.
const opencode: AgentDriver = {
  family: 'anthropic',
  bin: 'opencode',
  configure(home, standin) {
    const config = path.join(home, '.config');
    const settings = {
      $schema: 'https://opencode.ai/config.json',
      model: 'anthropic/claude-sonnet-4-5',
      autoupdate: false,
      share: 'disabled',
      provider: {
        anthropic: {
          options: { baseURL: `${standin.url}/v1`, apiKey: 'sk-ant-standin' },
          // Compaction by opencode's own measure: an answer that reports more tokens than the model's
          // context less its output compacts (COMPACT_STEP). Named here, since the models list bundled
          // in 1.18.33 gives this model a context of 1,000,000, over what COMPACT_STEP reports.
          models: { 'claude-sonnet-4-5': { limit: { context: 200_000, output: 8_000 } } },
        },
      },
      permission: { edit: 'allow', bash: 'allow' },
    };
    fs.mkdirSync(path.join(config, 'opencode'), { recursive: true });
    fs.writeFileSync(path.join(config, 'opencode', 'opencode.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return {
      XDG_CONFIG_HOME: config,
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      XDG_STATE_HOME: path.join(home, '.local', 'state'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      // At every start opencode installs its plugin SDK (@opencode-ai/plugin) into each config
      // folder, whatever it is told: its package lookups go to the stand-in, which has none.
      NPM_CONFIG_REGISTRY: `${standin.url}/npm/`,
    };
  },
  script: [COMPACT_STEP],
  newSession: (prompt) => ({ args: ['run', '--format', 'json', prompt] }),
  resume: (session, prompt) => ['run', '--format', 'json', '--session', session, prompt],
  // opencode compacts by its own measure: an answer that reports more than the model's context less
  // its output (COMPACT_STEP, over the limit named above) compacts, and the turn goes on after it.
  compact: (session) => ['run', '--format', 'json', '--session', session, COMPACT_PROMPT],
  sessionFrom(stdout) {
    return /"sessionID":"(ses_[A-Za-z0-9]+)"/.exec(stdout)?.[1];
  },
  belongsTo: (request, session) => request.headers['x-session-id'] === session,
  // One SQLite database holds every session.
  transcriptPath: (home) => {
    const database = path.join(home, '.local', 'share', 'opencode', 'opencode.db');
    return fs.existsSync(database) ? database : undefined;
  },
  installHooks: 'opencode',
};

const DRIVERS: Record<AgentKind, AgentDriver> = { claude, codex, gemini, copilot, opencode };

export interface AgentHarness {
  agent: AgentKind;
  /** The session's folder (a beads workspace unless `beads: false`). */
  dir: string;
  home: string;
  standin: ModelStandin;
  env: Record<string, string>;
  start(prompt: string): Promise<AgentTurn>;
  resume(session: string, prompt: string): Promise<AgentTurn>;
  /** A fork of the session (an agent that has none throws): a new session with a copy of its conversation. */
  fork(session: string, prompt: string): Promise<AgentTurn>;
  compact(session: string): Promise<AgentTurn>;
  transcriptPath(session: string): string | undefined;
  hookRuns(): HookRun[];
  comments(issueId: string): BeadsComment[];
  close(): Promise<void>;
}

export async function createAgentHarness(options: HarnessOptions): Promise<AgentHarness> {
  const driver = DRIVERS[options.agent];
  if (!driver) throw new Error(`no driver for agent '${options.agent}'`);
  const { cli, hookRecorder, primeBinDir } = repoFiles(options.repo ?? REPO);
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const bin = agentBin(driver.bin);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `agent-${options.agent}-`));
  const home = path.join(root, 'home');
  const dir = path.join(root, 'project');
  const hookLog = path.join(root, 'hook-runs.jsonl');
  // A setup that fails (a workspace not made, a hook install refused) leaves no folder and no server behind.
  let standin: ModelStandin | undefined;
  let env: Record<string, string>;
  try {
    fs.mkdirSync(home, { recursive: true });
    if (options.beads === false) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'README.md'), '# A plain folder\n');
    } else {
      const { beadsDir, issuesPath } = makeWorkspace({ dir, dialect: options.dialect ?? 'br', data: 'scenario', git: true });
      if (options.brDatabase) {
        const database = path.join(beadsDir, 'beads.db');
        fs.writeFileSync(database, '');
        // Written before the export it flushed: a second older (git ignores the file, as br's .gitignore says).
        const exported = fs.statSync(issuesPath).mtime;
        fs.utimesSync(database, exported, new Date(exported.getTime() - 1000));
      }
    }
    standin = await startModelStandin(driver.family, [...(options.script ?? []), ...(driver.script ?? [])]);
    env = {
      PATH: [primeBinDir, STANDIN_BIN_DIR, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
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
      NODE_OPTIONS: `--require ${hookRecorder}`,
      BEADS_AGENT_HOOK_LOG: hookLog,
      ...driver.configure(home, standin, dir),
      ...options.env,
    };
    // Codex runs commands in a login shell (`bash -lc`), whose /etc/profile sets PATH afresh: the
    // profile in the temp home puts the stand-in br and bd back on it, as a user's own profile does.
    fs.writeFileSync(path.join(home, '.bash_profile'), `export PATH=${shellQuote(env.PATH ?? '')}\n`);
    if (options.bdPrime) installBdPrime(dir, options.agent);
    if (options.hooks !== false) {
      const result = await runProcess(process.execPath, [cli, 'hooks', 'install', '--agent', driver.installHooks, '--dir', dir], { cwd: dir, env });
      if (result.exitCode !== 0) throw new Error(`hooks install failed (${result.exitCode}): ${result.stderr}${result.stdout}`);
    }
  } catch (error) {
    await standin?.close();
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const server = standin;

  const run = async (args: string[], session: string): Promise<AgentTurn> => {
    const started = Date.now();
    const result = await runProcess(bin, args, { cwd: dir, env });
    const ended = Date.now();
    const id = session || driver.sessionFrom(result.stdout, home) || '';
    const requests = server.conversationRequests().filter((request) => request.at >= started && request.at <= ended && driver.belongsTo(request, id));
    const firstRequestMs = requests[0] ? requests[0].at - started : undefined;
    return { session: id, ...result, durationMs: ended - started, firstRequestMs, requests, transcriptPath: id ? driver.transcriptPath(home, id) : undefined };
  };

  return {
    agent: options.agent,
    dir,
    home,
    standin: server,
    env,
    start: (prompt) => {
      const planned = driver.newSession(prompt, randomUUID(), options);
      return run(planned.args, planned.session ?? '');
    },
    resume: (session, prompt) => run(driver.resume(session, prompt, options), session),
    fork: (session, prompt) => {
      if (!driver.fork) throw new Error(`${options.agent} has no fork`);
      return run(driver.fork(session, prompt), '');
    },
    compact: (session) => run(driver.compact(session, options), session),
    transcriptPath: (session) => driver.transcriptPath(home, session),
    hookRuns: () => (fs.existsSync(hookLog) ? fs.readFileSync(hookLog, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as HookRun) : []),
    comments: (issueId) => readComments(dir, issueId),
    close: async () => {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

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

/** bd's own prime hook for an agent, as `bd setup <agent>` writes it (test/fixtures/agentHookFiles.mjs). */
function installBdPrime(dir: string, agent: AgentKind): void {
  const gemini = { file: '.gemini/settings.json', text: `${JSON.stringify({ hooks: { SessionStart: [{ matcher: '', hooks: [{ type: 'command', command: 'bd prime --hook-json' }] }] } }, null, 2)}\n` };
  if (agent === 'opencode') throw new Error('bd sets up no prime hook for opencode');
  const file = agent === 'gemini' ? gemini : BD_HOOK_FILES[agent];
  fs.mkdirSync(path.dirname(path.join(dir, file.file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file.file), file.text);
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
