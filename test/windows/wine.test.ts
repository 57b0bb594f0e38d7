// The hook commands and the launcher, run in Wine's cmd.exe the way each agent's runner hands them
// over on Windows (scripts/test-windows.sh installs Wine and the Windows build of node, and sets
// WINEPREFIX and BEADS_RECOVERY_NODE_WIN). runner.cjs, under Windows node in Wine, plays the
// agent: it starts cmd.exe with node's MSVC argument quoting, which is Rust's too (Codex), and
// gives the child a Windows user's USERPROFILE and LOCALAPPDATA, here a profile named
// "Jürgen Müller". PowerShell itself does not run here: Wine's powershell.exe is a stub that only
// logs the arguments it got, which is what the Codex test reads.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCHER_DIR, LAUNCHER_NAME, launcherFor, launcherScripts, shimCommandLine, type HookLauncher } from '../../src/core/hookConfig';
import { ensureLauncher } from '../../src/services/launcherShim';

const prefix = process.env.WINEPREFIX;
const nodeWin = process.env.BEADS_RECOVERY_NODE_WIN;
const missing = !prefix ? 'WINEPREFIX is not set' : !nodeWin || !existsSync(nodeWin) ? 'BEADS_RECOVERY_NODE_WIN names no node.exe' : spawnSync('wine', ['--version']).status !== 0 ? 'wine is not on PATH' : undefined;
// Run by scripts/test-windows.sh, which installs both; in CI a missing Wine fails rather than skips.
if (missing && process.env.CI) throw new Error(`The Windows suite needs Wine: ${missing}. Run it with scripts/test-windows.sh.`);
if (missing) console.warn(`Skipping the Windows suite: ${missing}. scripts/test-windows.sh installs Wine and sets it up.`);

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '..', '..');

/** The Windows spelling of a path on this machine: Wine maps `/` to drive Z:. */
const win = (unixPath: string) => `Z:${unixPath.replace(/\//g, '\\')}`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What Wine itself printed: its debug channels (the powershell.exe stub's arguments). */
  wine: string;
}

describe.skipIf(missing !== undefined)('Windows hook commands in Wine', () => {
  let root: string;
  let profile: string;
  let env: Record<string, string>;
  let launcher: HookLauncher;
  let launcherFile: string;
  let launcherWarning: string | undefined;
  const comspec = 'C:\\windows\\system32\\cmd.exe';

  /** Starts `program args` from runner.cjs in Wine, as an agent on Windows would. */
  function run(program: string, args: string[], options: { stdin?: string; extraEnv?: Record<string, string>; wineDebug?: string; cwd?: string } = {}): Run {
    const job = path.join(root, `job-${Math.random().toString(36).slice(2)}.json`);
    const result = `${job}.result`;
    writeFileSync(job, JSON.stringify({ program, args, env: { ...env, ...options.extraEnv }, stdin: options.stdin ?? '', cwd: options.cwd ? win(options.cwd) : undefined }));
    const wine = spawnSync('wine', [nodeWin!, win(path.join(here, 'runner.cjs')), win(job), win(result)], {
      env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: options.wineDebug ?? '-all', NODE_SKIP_PLATFORM_CHECK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 45_000,
    });
    if (!existsSync(result)) throw new Error(`runner.cjs wrote nothing (wine exited ${wine.status}): ${wine.stderr}`);
    const ran = JSON.parse(readFileSync(result, 'utf8')) as Omit<Run, 'wine'>;
    return { ...ran, wine: wine.stderr };
  }

  const probeSaw = (output: string) => JSON.parse(output) as { argv: string[]; stdin: string; electronRunAsNode: string | null };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'br-wine-'));
    profile = path.join(root, 'Jürgen Müller');
    const localAppData = path.join(profile, 'AppData', 'Local');
    env = { USERPROFILE: win(profile), LOCALAPPDATA: win(localAppData) };
    // VS Code's own places: its runtime under LOCALAPPDATA, the extension under the profile.
    const runtime = path.join(localAppData, 'Programs', 'Microsoft VS Code', 'Code.exe');
    const script = path.join(profile, '.vscode', 'extensions', 'beads-recovery.beads-recovery-9.9.9', 'dist', 'cli.js');
    mkdirSync(path.dirname(runtime), { recursive: true });
    mkdirSync(path.dirname(script), { recursive: true });
    symlinkSync(nodeWin!, runtime);
    copyFileSync(path.join(here, 'probe.cjs'), script);
    launcher = launcherFor({ execPath: win(runtime), electron: true, windows: true }, win(script));
    launcherFile = path.join(profile, ...LAUNCHER_DIR, `${LAUNCHER_NAME}.cmd`);
    launcherWarning = (await ensureLauncher(launcher, { home: profile, windows: true, windowsEnv: env })).warning;
  });

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the launcher finds the runtime and script under a profile named outside ASCII, with the hook\'s words, stdin and exit code', () => {
    expect(launcherWarning).toBeUndefined();
    const hook = run(comspec, ['/C', win(launcherFile), 'hook', 'codex', 'SessionStart'], { stdin: '{"hook_event_name":"SessionStart"}' });
    expect(hook.stderr).toBe('');
    expect(hook.status).toBe(0);
    expect(probeSaw(hook.stdout)).toEqual({ argv: ['hook', 'codex', 'SessionStart'], stdin: '{"hook_event_name":"SessionStart"}', electronRunAsNode: '1' });
    expect(run(comspec, ['/C', win(launcherFile), 'hook', 'codex', 'PreCompact'], { extraEnv: { PROBE_EXIT_CODE: '3' } }).status).toBe(3);
  });

  it('a launcher with the paths written out in UTF-8 (what 0.x wrote) is read in the OEM code page and starts nothing', () => {
    const utf8 = path.join(root, 'utf8-launcher.cmd');
    writeFileSync(utf8, launcherScripts(launcher).cmd, 'utf8');
    const hook = run(comspec, ['/C', win(utf8), 'hook', 'codex', 'SessionStart']);
    expect(hook.status).not.toBe(0);
    expect(hook.stdout).toBe('');
  });

  it("Codex: the commandWindows 0.x wrote does nothing when handed to cmd.exe /C, though the same text runs from a batch file", () => {
    const quoted = `"%USERPROFILE%\\${LAUNCHER_DIR.join('\\')}\\${LAUNCHER_NAME}.cmd"`;
    const old = `if exist ${quoted} ${quoted} hook codex SessionStart`;
    const viaCodex = run(comspec, ['/C', old], { stdin: '{}' });
    expect(viaCodex).toMatchObject({ status: 0, stdout: '' });
    const batch = path.join(root, 'old-command.cmd');
    writeFileSync(batch, `@echo off\r\n${old}\r\n`);
    expect(probeSaw(run(comspec, ['/C', win(batch)], { stdin: '{}' }).stdout).argv).toEqual(['hook', 'codex', 'SessionStart']);
  });

  it("Codex: our commandWindows reaches powershell.exe through cmd.exe /C with every word intact", () => {
    const command = shimCommandLine(['hook', 'codex', 'SessionStart'], 'encoded-powershell');
    const hook = run(comspec, ['/C', command], { stdin: '{}', wineDebug: '-all,fixme+powershell' });
    // Wine's stub logs `fixme:powershell:wmain stub: L"<argv0>" L"<argv1>" …`, each cut at a few hundred characters.
    const stub = hook.wine.split('\n').find((line) => line.includes('fixme:powershell'));
    expect(stub, hook.wine).toBeDefined();
    const argv = [...stub!.matchAll(/L"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\\\/g, '\\'));
    const words = command.split(' ');
    expect(argv[0]).toMatch(/(^|\\)powershell\.exe$/i);
    expect(argv.slice(1, 5)).toEqual(words.slice(1, 5));
    expect(words[5]!.startsWith(argv[5]!) && argv[5]!.length > 100).toBe(true);
    // The whole line as cmd.exe runs it, through its builtin echo in place of the program: nothing added, nothing lost.
    const echoed = run(comspec, ['/C', command.replace(/^powershell\.exe /, 'echo ')]);
    expect(echoed.stdout).toBe(`${words.slice(1).join(' ')}\r\n`);
  });

  it('the launcher runs the real dist/cli.js under Windows node: outside a beads project the hook answers {}', async () => {
    const cli = path.join(repo, 'dist', 'cli.js');
    expect(existsSync(cli), 'dist/cli.js: npm run build first (scripts/test-windows.sh does)').toBe(true);
    const real = { ...launcher, script: win(cli) };
    const home = path.join(root, 'real');
    await ensureLauncher(real, { home, windows: true, windowsEnv: env });
    const plain = path.join(root, 'not-a-beads-project');
    mkdirSync(plain);
    const hook = run(comspec, ['/C', win(path.join(home, ...LAUNCHER_DIR, `${LAUNCHER_NAME}.cmd`)), 'hook', 'codex', 'SessionStart'], {
      stdin: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 's1', source: 'startup', cwd: win(plain) }),
      cwd: plain,
    });
    expect(hook.status).toBe(0);
    expect(hook.stdout.trim()).toBe('{}');
  });

  it("runCli under Windows node finds an npm-style bd.cmd on PATH and hands it every argument intact, with no shell of ours; a missing command is notFound", async () => {
    // runCli as every command line bundle has it (cross-spawn: PATHEXT, the shim run through
    // cmd.exe with each argument escaped), driven by a script under Windows node.
    const bundle = path.join(root, 'runCli.cjs');
    await build({ entryPoints: [path.join(repo, 'src', 'beads', 'runCli.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node20', mainFields: ['module', 'main'], logLevel: 'error' });
    const shims = path.join(root, 'npm-global');
    mkdirSync(shims);
    const echo = path.join(root, 'bd-echo.cjs');
    writeFileSync(echo, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
    // What npm writes for a package's bin on Windows: a batch file that starts node with the script and %*.
    writeFileSync(path.join(shims, 'bd.cmd'), `@ECHO off\r\n"${win(nodeWin!)}" "${win(echo)}" %*\r\n`);
    const args = ['show', 'bd-1 with spaces', 'say "hi"', 'a&b', 'x|y', '(z)', '--', '-leading'];
    const driver = path.join(root, 'drive-runCli.cjs');
    writeFileSync(
      driver,
      `const { runCli } = require(${JSON.stringify(win(bundle))});
process.env.PATH = ${JSON.stringify(`${win(shims)};`)} + process.env.PATH;
const options = { cwd: ${JSON.stringify(win(root))}, timeoutMs: 30000 };
(async () => {
  const shim = await runCli('bd', ${JSON.stringify(args)}, options);
  const missing = await runCli('definitely-not-a-beads-cli', ['where'], options).then(() => 'ran', (error) => error.kind);
  process.stdout.write(JSON.stringify({ argv: JSON.parse(shim.stdout), missing }));
})().catch((error) => { process.stdout.write(String(error && error.stack)); process.exitCode = 1; });
`,
    );
    const ran = run(win(nodeWin!), [win(driver)], { cwd: root });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ argv: args, missing: 'notFound' });
  });
});
