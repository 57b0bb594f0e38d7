import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, isCanceled } from '../../../src/beads/errors';
import { runCli, runCliJson } from '../../../src/beads/runCli';

const dir = mkdtempSync(join(tmpdir(), 'beads-runcli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An executable node script with a chosen name, so error messages name it like a real CLI. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!${process.execPath}\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected the process to fail');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const options = { cwd: dir, timeoutMs: 10_000 };

async function waitUntil(condition: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('runCli', () => {
  it('passes arguments verbatim, without a shell', async () => {
    const echo = script('echo-args', 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
    const args = ['$HOME', '; rm -rf /', '"quoted"', '--leading-dashes', 'line\nbreak', '`x`', '*'];
    const result = await runCli(echo, args, options);
    expect(JSON.parse(result.stdout)).toEqual(args);
    expect(result.exitCode).toBe(0);
  });

  it('runs in the given folder, adds env and feeds input', async () => {
    const probe = script(
      'probe',
      `let input = ''; process.stdin.on('data', (c) => (input += c)); process.stdin.on('end', () => {
        process.stdout.write(JSON.stringify({ cwd: process.cwd(), extra: process.env.EXTRA_FOR_TEST, path: Boolean(process.env.PATH), input }));
        process.stderr.write('note');
      });`,
    );
    const result = await runCli(probe, [], { ...options, env: { EXTRA_FOR_TEST: 'yes' }, input: 'hello\n' });
    expect(JSON.parse(result.stdout)).toEqual({ cwd: dir, extra: 'yes', path: true, input: 'hello\n' });
    expect(result.stderr).toBe('note');
  });

  it('closes stdin when there is no input, so a reader cannot hang', async () => {
    const reader = script('reader', `let n = 0; process.stdin.on('data', (c) => (n += c.length)); process.stdin.on('end', () => process.stdout.write('eof ' + n));`);
    const result = await runCli(reader, [], { ...options, timeoutMs: 5_000 });
    expect(result.stdout).toBe('eof 0');
  });

  it('reports a missing command as notFound, naming it', async () => {
    const error = await failure(runCli(join(dir, 'bd'), ['list', '--json'], options));
    expect(error.kind).toBe('notFound');
    expect(error.message).toContain("'bd list'");
    expect(error.message).toContain('was not found');
    const onPath = await failure(runCli('definitely-not-a-beads-cli', ['where'], options));
    expect(onPath.kind).toBe('notFound');
  });

  it('reports a file that is not executable as notFound with the reason', async () => {
    const path = join(dir, 'not-executable');
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o644);
    const error = await failure(runCli(path, [], options));
    expect(error.kind).toBe('notFound');
    expect(error.message).toContain('not executable');
  });

  it('says when the working folder does not exist', async () => {
    const echo = script('cwd-check', '');
    const error = await failure(runCli(echo, [], { ...options, cwd: join(dir, 'missing-folder') }));
    expect(error.kind).toBe('exit');
    expect(error.message).toContain('does not exist');
  });

  it('kills a hang at the timeout, even one that ignores SIGTERM', async () => {
    const pidFile = join(dir, 'hang.pid');
    const hang = script('hang', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`);
    const started = Date.now();
    const error = await failure(runCli(hang, ['list'], { ...options, timeoutMs: 1_500, killGraceMs: 300 }));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain("'hang list'");
    expect(error.message).toContain('1500 ms');
    // SIGTERM was ignored, so only the SIGKILL after the grace period ended it.
    expect(elapsed).toBeGreaterThanOrEqual(1_750);
    // Bounds on the time tell a kill from a wait for a process that never ends; they are loose
    // because the suite also runs beside the fault test's busy loops.
    expect(elapsed).toBeLessThan(15_000);
    expect(existsSync(pidFile)).toBe(true);
    expect(isAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('kills the whole process group at the timeout: a launcher whose child hangs leaves nothing behind', async () => {
    const pidFile = join(dir, 'launched.pid');
    const child = script('hanging-child', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`);
    // Like the npm package of bd: a Node script that spawns the binary with inherited pipes and waits.
    const launcher = script('launcher', `require('child_process').spawn(${JSON.stringify(child)}, process.argv.slice(2), { stdio: 'inherit' }).on('exit', (code) => process.exit(code ?? 1));`);
    const started = Date.now();
    const error = await failure(runCli(launcher, ['where', '--json'], { ...options, timeoutMs: 1_000, killGraceMs: 300 }));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(15_000);
    await waitUntil(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))));
  });

  it('does not wait for output pipes held by a grandchild that left the process group', async () => {
    const pidFile = join(dir, 'escaped.pid');
    const escaped = script('escaped', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`);
    const parent = script(
      'leaves-a-daemon',
      `require('child_process').spawn(${JSON.stringify(escaped)}, [], { stdio: 'inherit', detached: true }).unref(); process.stdout.write('{"ok":true}'); setTimeout(() => process.exit(0), 200);`,
    );
    const started = Date.now();
    try {
      const result = await runCli(parent, [], { ...options, timeoutMs: 20_000 });
      expect(result.stdout).toBe('{"ok":true}');
      expect(Date.now() - started).toBeLessThan(12_000);
    } finally {
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });

  it('cancels through an AbortSignal as kind canceled, and never starts when already aborted', async () => {
    const slow = script('slow', 'setTimeout(() => {}, 60_000);');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await failure(runCli(slow, [], { ...options, signal: controller.signal }));
    expect(error.kind).toBe('canceled');
    expect(isCanceled(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);

    const marker = join(dir, 'started.marker');
    const marks = script('marks', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x');`);
    const aborted = AbortSignal.abort();
    expect((await failure(runCli(marks, [], { ...options, signal: aborted }))).kind).toBe('canceled');
    expect(existsSync(marker)).toBe(false);
  });

  it("reads bd's error JSON from stderr on a non-zero exit", async () => {
    const bd = script('bd', `process.stderr.write(JSON.stringify({ error: 'issue not found: bd-zzz', code: 'not_found', schema_version: 1 }, null, 2)); process.exit(1);`);
    const error = await failure(runCli(bd, ['show', 'bd-zzz', '--json'], options));
    expect(error).toMatchObject({ kind: 'exit', exitCode: 1, cliMessage: 'issue not found: bd-zzz', cliCode: 'not_found' });
    expect(error.message).toBe("'bd show bd-zzz' failed (exit 1): issue not found: bd-zzz");
  });

  it("reads br's structured error JSON from stderr", async () => {
    const br = script(
      'br',
      `process.stderr.write(JSON.stringify({ error: { code: 'ISSUE_NOT_FOUND', message: 'Issue not found: bd-x', hint: "Run 'br list' to see available issues.", retryable: false, context: { searched_id: 'bd-x' } } })); process.exit(3);`,
    );
    const error = await failure(runCli(br, ['show', 'bd-x', '--json'], options));
    expect(error).toMatchObject({ kind: 'exit', exitCode: 3, cliCode: 'ISSUE_NOT_FOUND', searchedId: 'bd-x', hint: "Run 'br list' to see available issues." });
    expect(error.message).toContain('Issue not found: bd-x');
  });

  it("reads bd where's error JSON from stdout", async () => {
    const bd = script('bd-where', `process.stdout.write(JSON.stringify({ error: 'no_beads_directory', message: 'no beads database found', hint: 'run bd init' })); process.exit(1);`);
    const error = await failure(runCli(bd, ['where', '--json'], options));
    expect(error).toMatchObject({ cliMessage: 'no beads database found', cliCode: 'no_beads_directory', hint: 'run bd init' });
  });

  it('falls back to the stderr line that names the error when the error is plain text', async () => {
    const tool = script('plain', `process.stderr.write('warming up\\nError: database is locked\\n'); process.exit(2);`);
    const error = await failure(runCli(tool, [], options));
    expect(error).toMatchObject({ kind: 'exit', exitCode: 2, cliMessage: 'Error: database is locked' });
  });

  it('shows the error, not the usage line after it (cobra, clap)', async () => {
    const cobra = script('cobra', `process.stderr.write("Error: unknown flag: --include-comments\\nRun 'bd --help' for usage.\\n"); process.exit(1);`);
    expect(await failure(runCli(cobra, [], options))).toMatchObject({ cliMessage: 'Error: unknown flag: --include-comments' });
    const clap = script('clap', `process.stderr.write("error: unexpected argument '--x' found\\n\\nUsage: br [OPTIONS] <COMMAND>\\n\\nFor more information, try '--help'.\\n"); process.exit(2);`);
    expect(await failure(runCli(clap, [], options))).toMatchObject({ cliMessage: "error: unexpected argument '--x' found" });
    const plain = script('plain-refusal', `process.stderr.write("warning: beads.role not configured\\ncannot close x-1: blocked by open issues [x-2] (use --force to override)\\n"); process.exit(1);`);
    expect(await failure(runCli(plain, [], options))).toMatchObject({ cliMessage: 'cannot close x-1: blocked by open issues [x-2] (use --force to override)' });
  });

  it("reads bd 1.2's failed[].error reasons and br's error JSON on stdout", async () => {
    const failed = JSON.stringify({ error: '1 of 1 issues failed to update', failed: [{ id: 'x-1', error: 'claiming issue: issue already claimed by bob' }], schema_version: 1 });
    const bd12 = script('bd12', `process.stderr.write("Error claiming x-1: issue already claimed by bob\\n" + ${JSON.stringify(failed)} + "\\n"); process.exit(1);`);
    expect(await failure(runCli(bd12, [], options))).toMatchObject({ cliMessage: 'claiming issue: issue already claimed by bob' });
    const brError = JSON.stringify({ error: { code: 'VALIDATION_FAILED', message: 'Validation failed: claim: issue x-1 already assigned to bob', hint: null } }, null, 2);
    const brMain = script('br-stdout', `process.stdout.write(${JSON.stringify(brError)} + "\\n"); process.exit(4);`);
    expect(await failure(runCli(brMain, [], options))).toMatchObject({ cliCode: 'VALIDATION_FAILED', cliMessage: 'Validation failed: claim: issue x-1 already assigned to bob' });
  });

  it('accepts the exit codes a caller declares as answers', async () => {
    const differs = script('differs', 'process.stdout.write("d"); process.exit(1);');
    expect(await runCli(differs, [], { ...options, okExitCodes: [0, 1] })).toEqual({ stdout: 'd', stderr: '', exitCode: 1 });
  });

  it('stops a process that floods its output and says so', async () => {
    const flood = script('flood', `const chunk = 'x'.repeat(65536); (function write() { while (process.stdout.write(chunk)) {} process.stdout.once('drain', write); })();`);
    const started = Date.now();
    const error = await failure(runCli(flood, ['list'], { ...options, maxOutputBytes: 1024 * 1024 }));
    expect(error.kind).toBe('exit');
    expect(error.outputLimitExceeded).toBe(true);
    expect(error.message).toBe("'flood list' printed more than 1 MiB of output and was stopped");
    // Stopped, not run until the 10 s timeout.
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  it('caps stderr too, and counts bytes rather than characters', async () => {
    const wide = script('wide', `process.stderr.write('é'.repeat(1000)); setTimeout(() => {}, 10_000);`);
    const error = await failure(runCli(wide, [], { ...options, maxOutputBytes: 1500 }));
    expect(error.outputLimitExceeded).toBe(true);
  });

  it('keeps output up to the cap exactly: only a byte more stops the process', async () => {
    const exact = script('exact', `process.stdout.write('y'.repeat(4096)); process.stderr.write('z'.repeat(4096));`);
    const result = await runCli(exact, [], { ...options, maxOutputBytes: 4096 });
    expect(result.stdout).toBe('y'.repeat(4096));
    expect(result.stderr).toBe('z'.repeat(4096));
    const over = script('over', `process.stdout.write('y'.repeat(4097));`);
    expect((await failure(runCli(over, [], { ...options, maxOutputBytes: 4096 }))).outputLimitExceeded).toBe(true);
  });

  it('gets past input the process never reads: its early exit is its answer, not a broken pipe of ours', async () => {
    const early = script('early', `process.stdout.write('done'); process.exit(0);`);
    // More than a pipe holds, so the write is still under way when the process has gone.
    const result = await runCli(early, [], { ...options, input: 'x'.repeat(4 * 1024 * 1024) });
    expect(result).toEqual({ stdout: 'done', stderr: '', exitCode: 0 });
  });

  it('names the missing working folder, and a process killed by a signal names the signal', async () => {
    const missing = join(dir, 'gone', 'deeper');
    const error = await failure(runCli(script('in-missing', ''), [], { ...options, cwd: missing }));
    expect(error.kind).toBe('exit');
    expect(error.message).toContain(`the folder ${missing} does not exist`);
    const killed = script('self-kill', `process.stderr.write('about to go'); process.kill(process.pid, 'SIGKILL');`);
    const byKill = await failure(runCli(killed, ['list'], options));
    expect(byKill.kind).toBe('exit');
    expect(byKill.message).toContain('killed by SIGKILL');
    expect(byKill.stderr).toBe('about to go');
  });

  it('decodes UTF-8 split across chunks', async () => {
    const text = 'ünïcödé ✓ '.repeat(20_000);
    const utf = script('utf', `process.stdout.write(${JSON.stringify(text)});`);
    expect((await runCli(utf, [], options)).stdout).toBe(text);
  });
});

describe('runCliJson', () => {
  it('parses stdout as JSON', async () => {
    const ok = script('json-ok', 'process.stdout.write(JSON.stringify([{ id: "a" }], null, 2) + "\\n");');
    expect(await runCliJson(ok, [], options)).toEqual([{ id: 'a' }]);
  });

  it('throws badJson with a snippet of the output', async () => {
    const garbage = script('bd-garbage', 'process.stdout.write("Warning: something odd\\n{not json");');
    const error = await failure(runCliJson(garbage, ['list', '--json'], options));
    expect(error.kind).toBe('badJson');
    expect(error.message).toContain("'bd-garbage list'");
    expect(error.message).toContain('Warning: something odd');
  });

  it('throws badJson for empty output', async () => {
    const silent = script('silent', '');
    const error = await failure(runCliJson(silent, [], options));
    expect(error.kind).toBe('badJson');
    expect(error.message).toContain('printed nothing');
  });
});

describe('CliError messages', () => {
  it('name the command with its id after `--`, as it ran: an id like --help quoted in a context reads as no flag', () => {
    const refused = new CliError({ kind: 'refused', command: '/usr/bin/br', args: ['comments', 'add', '--json', '--', '--help', 'Checkpoint: words'], cliMessage: 'Validation failed' });
    expect(refused.message).toBe("'br comments add -- --help' was refused: Validation failed");
    const closed = new CliError({ kind: 'exit', command: 'bd', args: ['close', '--reason', 'Verified: done', '--', 'constructor'], exitCode: 1, cliMessage: 'blocked' });
    expect(closed.message).toContain("'bd close -- constructor'");
  });
});
