// A command line ended by a signal (an agent ending a hook at its timeout: SIGTERM; Ctrl-C: SIGINT;
// a closed terminal: SIGHUP) leaves none of its processes running: before, a `br` hanging behind a
// launcher (the npm package's Node script and the binary it starts) ran on until some later run
// found it in the process registry.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, STANDIN_BIN_DIR } from '../../fixtures/make-workspace.mjs';
import { CLI_SCRIPT, ensureCliBuilt } from '../support/builtCli';

const scratch = mkdtempSync(path.join(tmpdir(), 'beads-signals-'));
beforeAll(() => ensureCliBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The stand-in processes started under this fault file (Linux: read from each one's environment). */
function standins(faultFile: string): string[] {
  return spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((line) => line.includes(STANDIN_BIN_DIR))
    .filter((line) => {
      try {
        return readFileSync(`/proc/${line.trim().split(/\s+/)[0]}/environ`, 'utf8').split('\0').includes(`BEADS_STANDIN_FAULT_FILE=${faultFile}`);
      } catch {
        return false;
      }
    });
}

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) if (check()) return true;
  return check();
};

describe.skipIf(process.platform !== 'linux')('the command line ended by a signal', { timeout: 60_000 }, () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('ends the launcher and the CLI it started on %s', async (signal) => {
    const dir = makeWorkspace({ dir: path.join(scratch, signal), dialect: 'br', data: 'scenario', git: true }).dir;
    const faultFile = path.join(scratch, `${signal}.fault`);
    writeFileSync(faultFile, 'hang\n');
    const child = spawn(process.execPath, [CLI_SCRIPT, 'checkpoint', '--cwd', dir, '--message', 'signals'], {
      env: {
        ...process.env,
        PATH: `${path.join(STANDIN_BIN_DIR, 'launcher')}${path.delimiter}${process.env.PATH ?? ''}`,
        BEADS_RECOVERY_CLI: 'br',
        BEADS_RECOVERY_TIMEOUT_MS: '30000',
        BEADS_STANDIN_FAULT_FILE: faultFile,
        BEADS_RECOVERY_PROCESS_DIR: path.join(scratch, `${signal}.processes`),
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The launcher and the hanging br behind it are both running.
    expect(await until(() => standins(faultFile).length >= 2, 20_000), 'the launcher and its child started').toBe(true);
    child.kill(signal);
    const code = await exited;
    const left = (await until(() => standins(faultFile).length === 0, 1_000)) ? [] : standins(faultFile);
    // Ended nothing but itself before: the launcher and its child ran on.
    for (const line of left) process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    expect(left).toEqual([]);
    // Ended by the signal, with the shell's code for it, not by its own 30 s timeout much later.
    expect(code).toBe(128 + (constants.signals[signal] ?? 0));
  });
});
