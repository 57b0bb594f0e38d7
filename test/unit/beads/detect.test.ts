import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectProject, dialectFromStore, executableProblem, findBeadsDir, findOnPath, samePath, type Detection } from '../../../src/beads/detect';
import { brJsonlIsCurrent } from '../../../src/beads/currentJsonl';
import { ProjectCacheFile } from '../../../src/services/projectCache';

const base = mkdtempSync(join(tmpdir(), 'beads-detect-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

function fresh(name: string): string {
  const dir = join(base, `${name}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A project folder with `.beads` holding the given files (a name ending in / is a folder). */
function beadsProject(files: Record<string, string>): string {
  const root = fresh('project');
  mkdirSync(join(root, '.beads'));
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith('/')) mkdirSync(join(root, '.beads', name), { recursive: true });
    else writeFileSync(join(root, '.beads', name), content);
  }
  return root;
}

const LOG = join(base, 'calls.log');

/**
 * A fake CLI for detection only: answers `where --json` the way bd (with schema_version), bd ≤
 * 1.0.2 (without) or br (with jsonl_path) does, and logs each start so tests can count processes.
 */
function fakeCli(dir: string, name: string, behaviour: 'bd' | 'old-bd' | 'br' | 'fail' | 'garbage' | 'hang'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  const body = `
const fs = require('fs'); const path = require('path');
fs.appendFileSync(${JSON.stringify(LOG)}, JSON.stringify({ name: ${JSON.stringify(name)}, args: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
let dir = process.cwd(); while (!fs.existsSync(path.join(dir, '.beads')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
const where = { path: path.join(dir, '.beads'), prefix: 'demo' };
const behaviour = ${JSON.stringify(behaviour)};
if (behaviour === 'fail') { process.stdout.write(JSON.stringify({ error: 'no_beads_directory', message: 'no beads database found', hint: 'run bd init' })); process.exit(1); }
if (behaviour === 'hang') { setInterval(() => {}, 1000); return; }
if (behaviour === 'garbage') { process.stdout.write('this is not a beads CLI'); process.exit(0); }
if (behaviour === 'old-bd') { process.stdout.write(JSON.stringify({ ...where, database_path: where.path + '/embeddeddolt' })); process.exit(0); }
process.stdout.write(JSON.stringify(behaviour === 'bd' ? { ...where, database_path: where.path + '/embeddeddolt', schema_version: 1 } : { ...where, database_path: where.path + '/beads.db', jsonl_path: where.path + '/issues.jsonl' }));
`;
  writeFileSync(path, `#!${process.execPath}\n${body}`);
  chmodSync(path, 0o755);
  return path;
}

function calls(): { name: string; args: string[]; cwd: string }[] {
  if (!existsSync(LOG)) return [];
  return readFileSync(LOG, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function detectCounting(folder: string, options: Parameters<typeof detectProject>[1]): Promise<{ detection: Detection; processes: number }> {
  const before = calls().length;
  const detection = await detectProject(folder, options);
  return { detection, processes: calls().length - before };
}

const timeoutMs = 10_000;

describe('findBeadsDir', () => {
  it('walks up from a nested folder', async () => {
    const root = beadsProject({ 'issues.jsonl': '' });
    const nested = join(root, 'src', 'deep');
    mkdirSync(nested, { recursive: true });
    expect(await findBeadsDir(nested)).toEqual({ root, beadsDir: join(root, '.beads'), holder: root });
  });

  it('skips a .beads that holds no project (a leftover registry) and keeps walking', async () => {
    const outer = beadsProject({ 'config.yaml': '' });
    const inner = join(outer, 'inner');
    mkdirSync(join(inner, '.beads'), { recursive: true });
    writeFileSync(join(inner, '.beads', 'registry.json'), '{}');
    expect((await findBeadsDir(inner))?.root).toBe(outer);
  });

  it('follows a redirect (comments skipped, relative to the project folder) and ignores a broken one', async () => {
    const target = beadsProject({ 'issues.jsonl': '' });
    const worktree = fresh('worktree');
    mkdirSync(join(worktree, '.beads'));
    const relative = join('..', target.split('/').pop() as string, '.beads');
    writeFileSync(join(worktree, '.beads', 'redirect'), `# shared store\n\n${relative}\n`);
    expect(await findBeadsDir(worktree)).toEqual({ root: target, beadsDir: join(target, '.beads'), holder: worktree });

    const broken = beadsProject({ redirect: '../does-not-exist/.beads', 'metadata.json': '{}' });
    expect(await findBeadsDir(broken)).toEqual({ root: broken, beadsDir: join(broken, '.beads'), holder: broken });
  });

  it('finds nothing outside a project', async () => {
    expect(await findBeadsDir(fresh('plain'))).toBeUndefined();
  });
});

describe('dialectFromStore', () => {
  it('reads the store files', async () => {
    const dialect = (files: Record<string, string>) => dialectFromStore(join(beadsProject(files), '.beads'));
    expect(await dialect({ 'beads.db': '', 'issues.jsonl': '' })).toBe('br');
    expect(await dialect({ 'metadata.json': '{"database":"beads.db","jsonl_export":"issues.jsonl"}' })).toBe('br');
    expect(await dialect({ 'embeddeddolt/': '' })).toBe('bd');
    expect(await dialect({ 'dolt/': '' })).toBe('bd');
    expect(await dialect({ 'metadata.json': '{"database":"dolt","backend":"dolt","dolt_mode":"embedded"}' })).toBe('bd');
    expect(await dialect({ 'issues.jsonl': '' })).toBeUndefined();
  });
});

describe('findOnPath', () => {
  it('finds executables without running them and skips folders and plain files', async () => {
    const first = fresh('path-a');
    const second = fresh('path-b');
    mkdirSync(join(first, 'bd'));
    writeFileSync(join(first, 'br'), 'not executable');
    const bd = fakeCli(second, 'bd', 'bd');
    const br = fakeCli(second, 'br', 'br');
    const before = calls().length;
    expect(await findOnPath('bd', `${first}:${second}`)).toBe(bd);
    expect(await findOnPath('br', `${first}::${second}`)).toBe(br);
    expect(await findOnPath('bx', `${first}:${second}`)).toBeUndefined();
    expect(calls().length).toBe(before);
  });
});

describe('detectProject', () => {
  it('says none outside a beads project, without starting anything', async () => {
    const bin = fresh('bin');
    fakeCli(bin, 'bd', 'bd');
    const { detection, processes } = await detectCounting(fresh('plain'), { trusted: true, timeoutMs, pathEnv: bin });
    expect(detection).toEqual({ kind: 'none' });
    expect(processes).toBe(0);
  });

  it('uses the only CLI on PATH, confirmed by one `where --json`', async () => {
    const bin = fresh('bin');
    const br = fakeCli(bin, 'br', 'br');
    const root = beadsProject({ 'issues.jsonl': '' });
    const { detection, processes } = await detectCounting(root, { trusted: true, timeoutMs, pathEnv: bin });
    expect(processes).toBe(1);
    expect(calls().at(-1)).toEqual({ name: 'br', args: ['where', '--json'], cwd: root });
    expect(detection).toMatchObject({ kind: 'cli', cli: 'br', beadsDir: join(root, '.beads'), where: { path: join(root, '.beads'), prefix: 'demo' } });
    if (detection.kind !== 'cli') throw new Error('expected a CLI backend');
    expect(detection.backend).toMatchObject({ kind: 'br', readOnly: false, root });
    expect(br).toBe(join(bin, 'br'));
  });

  it('picks by the store when both CLIs are on PATH', async () => {
    const bin = fresh('bin');
    fakeCli(bin, 'bd', 'bd');
    fakeCli(bin, 'br', 'br');
    const sqlite = await detectProject(beadsProject({ 'beads.db': '' }), { trusted: true, timeoutMs, pathEnv: bin });
    expect(sqlite).toMatchObject({ kind: 'cli', cli: 'br' });
    const dolt = await detectProject(beadsProject({ 'embeddeddolt/': '', 'metadata.json': '{"backend":"dolt"}' }), { trusted: true, timeoutMs, pathEnv: bin });
    expect(dolt).toMatchObject({ kind: 'cli', cli: 'bd' });
  });

  it('honours the preferred CLI, and says when it is missing', async () => {
    const bin = fresh('bin');
    fakeCli(bin, 'bd', 'bd');
    fakeCli(bin, 'br', 'br');
    const root = beadsProject({ 'beads.db': '' });
    expect(await detectProject(root, { trusted: true, timeoutMs, pathEnv: bin, preferred: 'bd' })).toMatchObject({ kind: 'cli', cli: 'bd' });

    const onlyBr = fresh('bin');
    fakeCli(onlyBr, 'br', 'br');
    const missing = await detectProject(root, { trusted: true, timeoutMs, pathEnv: onlyBr, preferred: 'bd' });
    expect(missing).toMatchObject({ kind: 'readonly', reason: 'cli-missing', cli: 'bd' });
    if (missing.kind !== 'readonly') throw new Error('expected read-only');
    expect(missing.message).toContain("'bd' was not found on PATH");
  });

  it('falls back to read-only with install advice when no CLI is on PATH', async () => {
    const root = beadsProject({ 'beads.db': '', 'issues.jsonl': '{"id":"x-1","title":"t","status":"in_progress"}\n' });
    const { detection, processes } = await detectCounting(root, { trusted: true, timeoutMs, pathEnv: fresh('empty-bin') });
    expect(processes).toBe(0);
    expect(detection).toMatchObject({ kind: 'readonly', reason: 'cli-missing', cli: 'br' });
    if (detection.kind !== 'readonly') throw new Error('expected read-only');
    expect(detection.message).toContain('Neither bd nor br was found on PATH');
    expect(detection.message).toContain('beadsRecovery.cliPath');
    expect(detection.backend.kind).toBe('jsonl');
    expect((await detection.backend.listInProgress()).map((issue) => issue.id)).toEqual(['x-1']);
  });

  it('names the installed CLI in an untrusted workspace whose store does not say, without running it', async () => {
    const bin = fresh('bin');
    fakeCli(bin, 'bd', 'bd');
    const root = beadsProject({ 'issues.jsonl': '' });
    const { detection, processes } = await detectCounting(root, { trusted: false, timeoutMs, pathEnv: bin });
    expect(processes).toBe(0);
    expect(detection).toMatchObject({ kind: 'readonly', reason: 'untrusted', cli: 'bd' });
  });

  it('never starts a process for an untrusted workspace, even one naming a CLI path', async () => {
    const bin = fresh('bin');
    const bd = fakeCli(bin, 'bd', 'bd');
    const root = beadsProject({ 'embeddeddolt/': '', 'issues.jsonl': '' });
    const { detection, processes } = await detectCounting(root, { trusted: false, timeoutMs, pathEnv: bin, cliPath: bd });
    expect(processes).toBe(0);
    expect(detection).toMatchObject({ kind: 'readonly', reason: 'untrusted', cli: 'bd' });
    if (detection.kind !== 'readonly') throw new Error('expected read-only');
    expect(detection.backend.readOnly).toBe(true);
  });

  it('runs the CLI the user named, telling bd from br by its where output', async () => {
    const bin = fresh('named');
    const custom = fakeCli(bin, 'beads-cli', 'bd');
    const root = beadsProject({ 'issues.jsonl': '' });
    const { detection, processes } = await detectCounting(root, { trusted: true, timeoutMs, pathEnv: fresh('empty-bin'), cliPath: custom });
    expect(processes).toBe(1);
    expect(detection).toMatchObject({ kind: 'cli', cli: 'bd' });
    const otherBin = fresh('named');
    const customBr = fakeCli(otherBin, 'beads-cli', 'br');
    expect(await detectProject(root, { trusted: true, timeoutMs, cliPath: customBr })).toMatchObject({ kind: 'cli', cli: 'br' });
  });

  it('tells an old bd (no schema_version) from br by jsonl_path, then by the store files', async () => {
    const bin = fresh('named');
    const oldBd = fakeCli(bin, 'beads-cli', 'old-bd');
    expect(await detectProject(beadsProject({ 'issues.jsonl': '' }), { trusted: true, timeoutMs, cliPath: oldBd })).toMatchObject({ kind: 'cli', cli: 'bd' });
    // A where that names no JSONL and carries no schema_version next to a SQLite store: the files decide.
    expect(await detectProject(beadsProject({ 'beads.db': '', 'issues.jsonl': '' }), { trusted: true, timeoutMs, cliPath: oldBd })).toMatchObject({ kind: 'cli', cli: 'br' });
  });

  it('keeps the folder as the user opened it when the CLI reports its real path', async () => {
    const standins = resolve(__dirname, '../..', 'fixtures', 'bin');
    const real = beadsProject({ 'beads.db': '', 'issues.jsonl': '' });
    const linked = join(fresh('links'), 'project-link');
    symlinkSync(real, linked, 'dir');
    const detection = await detectProject(linked, { trusted: true, timeoutMs, pathEnv: standins });
    if (detection.kind !== 'cli' || !detection.where) throw new Error('expected a CLI backend that asked where');
    // The stand-in, like both CLIs, prints the canonical path.
    expect(await realpath(detection.where.path)).toBe(detection.where.path);
    expect(detection.where.path).not.toBe(join(linked, '.beads'));
    expect(detection.beadsDir).toBe(join(linked, '.beads'));
    expect(detection.backend.root).toBe(linked);
    expect(await samePath(join(linked, '.beads'), detection.where.path)).toBe(true);
    expect(await samePath(linked, real + '-other')).toBe(false);
  });

  it('reports a named CLI that does not exist as missing', async () => {
    const root = beadsProject({ 'issues.jsonl': '' });
    const detection = await detectProject(root, { trusted: true, timeoutMs, cliPath: join(base, 'nowhere', 'br') });
    expect(detection).toMatchObject({ kind: 'readonly', reason: 'cli-missing', cli: 'br' });
  });

  it('falls back to read-only when the CLI fails or is not a beads CLI, with its own message', async () => {
    const root = beadsProject({ 'issues.jsonl': '' });
    const failing = fresh('bin');
    fakeCli(failing, 'bd', 'fail');
    const failed = await detectProject(root, { trusted: true, timeoutMs, pathEnv: failing });
    expect(failed).toMatchObject({ kind: 'readonly', reason: 'cli-failed', cli: 'bd' });
    if (failed.kind !== 'readonly') throw new Error('expected read-only');
    expect(failed.message).toContain('no beads database found');

    const impostor = fresh('bin');
    fakeCli(impostor, 'br', 'garbage');
    const garbage = await detectProject(root, { trusted: true, timeoutMs, pathEnv: impostor });
    expect(garbage).toMatchObject({ kind: 'readonly', reason: 'cli-failed' });
  });

  it('tells a CLI that hangs past the timeout apart from one that fails', async () => {
    const root = beadsProject({ 'issues.jsonl': '' });
    const hanging = fresh('bin');
    fakeCli(hanging, 'br', 'hang');
    const detection = await detectProject(root, { trusted: true, timeoutMs: 1_000, pathEnv: hanging });
    expect(detection).toMatchObject({ kind: 'readonly', reason: 'cli-timeout', cli: 'br' });
    if (detection.kind !== 'readonly') throw new Error('expected read-only');
    expect(detection.message).toMatch(/did not finish within 1000 ms.*beadsRecovery\.cliTimeoutMs/);
  });

  it('says why a path typed as the CLI cannot be run', async () => {
    const bin = fresh('typed');
    const cli = fakeCli(bin, 'br', 'br');
    expect(await executableProblem(cli)).toBeUndefined();
    expect(await executableProblem('br')).toMatch(/full path/);
    expect(await executableProblem(join(bin, 'missing'))).toMatch(/does not exist/);
    expect(await executableProblem(bin)).toMatch(/is not a file/);
    if (process.platform !== 'win32') {
      const plain = join(bin, 'plain');
      writeFileSync(plain, 'not executable');
      expect(await executableProblem(plain)).toMatch(/is not executable/);
    }
  });

  it('reads the JSONL br names in metadata.json', async () => {
    const root = beadsProject({ 'metadata.json': '{"database":"beads.db","jsonl_export":"export.jsonl"}', 'export.jsonl': '{"id":"m-1","title":"t","status":"in_progress"}\n' });
    const detection = await detectProject(root, { trusted: false, timeoutMs });
    if (detection.kind !== 'readonly') throw new Error('expected read-only');
    expect(detection.message).toContain('export.jsonl');
    expect((await detection.backend.listInProgress()).map((issue) => issue.id)).toEqual(['m-1']);
  });

  it('detects the bd and br stand-ins and serves the project through them', async () => {
    const standins = resolve(__dirname, '../..', 'fixtures', 'bin');
    const line = JSON.stringify({ id: 's-1', title: 'Started', status: 'in_progress', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
    const brProject = beadsProject({ 'beads.db': '', 'issues.jsonl': `${line}\n` });
    const br = await detectProject(brProject, { trusted: true, timeoutMs, pathEnv: standins });
    expect(br).toMatchObject({ kind: 'cli', cli: 'br', beadsDir: join(brProject, '.beads') });
    if (br.kind !== 'cli') throw new Error('expected a CLI backend');
    expect((await br.backend.listInProgress()).map((issue) => issue.id)).toEqual(['s-1']);

    const bdProject = beadsProject({ 'embeddeddolt/': '', 'issues.jsonl': `${line}\n` });
    const bd = await detectProject(bdProject, { trusted: true, timeoutMs, pathEnv: standins });
    expect(bd).toMatchObject({ kind: 'cli', cli: 'bd', where: { path: join(bdProject, '.beads') } });
    if (bd.kind !== 'cli') throw new Error('expected a CLI backend');
    expect((await bd.backend.show(['s-1'])).map((issue) => issue.title)).toEqual(['Started']);
  });
});

describe('the where cache', () => {
  it('asks `where` once per folder and executable, again when the executable changes or the store is gone', async () => {
    const root = beadsProject({ 'beads.db': '', 'metadata.json': '{}' });
    const bin = fresh('bin-cache');
    const br = fakeCli(bin, 'br', 'br');
    const cache = new ProjectCacheFile(join(fresh('git-dir'), 'beads-recovery', 'project-cache.json'));
    const options = { trusted: true, timeoutMs: 10_000, pathEnv: bin, whereCache: cache };
    const whereCalls = () => calls().filter((call) => call.args[0] === 'where' && call.cwd === root).length;

    const first = await detectProject(root, options);
    const second = await detectProject(root, options);
    expect(whereCalls()).toBe(1);
    expect(second).toMatchObject({ kind: 'cli', cli: 'br', beadsDir: join(root, '.beads') });
    expect(second.kind === 'cli' && second.where).toEqual(first.kind === 'cli' && first.where);

    // A reinstalled CLI is asked again.
    writeFileSync(br, `${readFileSync(br, 'utf8')}\n// reinstalled\n`);
    await detectProject(root, options);
    expect(whereCalls()).toBe(2);

    // A damaged cache file is as good as none.
    const damaged = join(fresh('damaged'), 'project-cache.json');
    writeFileSync(damaged, '{"where": {"');
    const detection = await detectProject(root, { ...options, whereCache: new ProjectCacheFile(damaged) });
    expect(detection.kind).toBe('cli');
    expect(whereCalls()).toBe(3);
    expect(JSON.parse(readFileSync(damaged, 'utf8')).where).toHaveProperty([root]);
  });
});

describe('skipWhere, and reading br’s issues.jsonl while it is current', () => {
  const line = JSON.stringify({ id: 'j-1', title: 'From the file', status: 'in_progress', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
  /** A br store whose database was last written `dbAfterJsonlMs` after its JSONL (negative: before). */
  function brStore(dbAfterJsonlMs: number): string {
    const root = beadsProject({ 'metadata.json': '{"database":"beads.db","jsonl_export":"issues.jsonl"}', 'beads.db': '', 'issues.jsonl': `${line}\n` });
    const jsonlTime = new Date('2026-03-01T12:00:00Z');
    utimesSync(join(root, '.beads', 'issues.jsonl'), jsonlTime, jsonlTime);
    const dbTime = new Date(jsonlTime.getTime() + dbAfterJsonlMs);
    utimesSync(join(root, '.beads', 'beads.db'), dbTime, dbTime);
    return root;
  }

  it('starts no process to detect when the dialect is certain, and asks `where` when the environment points the CLI elsewhere', async () => {
    const bin = fresh('bin-skip');
    fakeCli(bin, 'br', 'br');
    const root = brStore(0);
    const { detection, processes } = await detectCounting(root, { trusted: true, timeoutMs, pathEnv: bin, skipWhere: true });
    expect(processes).toBe(0);
    expect(detection).toMatchObject({ kind: 'cli', cli: 'br', beadsDir: join(root, '.beads') });
    expect(detection.kind === 'cli' && detection.where).toBe(undefined);
    const redirected = await detectCounting(root, { trusted: true, timeoutMs, pathEnv: bin, skipWhere: true, env: { BEADS_DIR: join(root, '.beads') } });
    expect(redirected.processes).toBe(1);
  });

  it('serves reads from the file while it is current, from the CLI once the database is newer, and writes always through the CLI', async () => {
    const standins = resolve(__dirname, '../..', 'fixtures', 'bin');
    const log = join(fresh('standin-log'), 'calls.log');
    const countCalls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length : 0);
    const root = brStore(300);
    const detection = await detectProject(root, { trusted: true, timeoutMs, pathEnv: standins, skipWhere: true, env: { BEADS_STANDIN_LOG: log } });
    if (detection.kind !== 'cli') throw new Error('expected a CLI backend');
    expect((await detection.backend.listInProgress()).map((issue) => issue.id)).toEqual(['j-1']);
    expect((await detection.backend.show(['j-1'])).map((issue) => issue.title)).toEqual(['From the file']);
    expect(countCalls()).toBe(0);

    // A write the CLI did not flush (--no-auto-flush): the database is newer, so the CLI answers.
    const later = new Date('2026-03-01T12:00:05Z');
    utimesSync(join(root, '.beads', 'beads.db'), later, later);
    expect((await detection.backend.listInProgress()).map((issue) => issue.id)).toEqual(['j-1']);
    expect(countCalls()).toBe(1);

    await detection.backend.addComment('j-1', 'Checkpoint: through the CLI');
    expect(countCalls()).toBe(2);
    expect(await detection.backend.version?.()).toMatch(/^\d+\.\d+/);
    expect(countCalls()).toBe(3);
  });

  it('takes no file as current without a database to compare with, while a writer holds the lock, or with auto-flush off', async () => {
    const noDatabase = beadsProject({ 'issues.jsonl': `${line}\n` });
    expect(await brJsonlIsCurrent(join(noDatabase, '.beads'), join(noDatabase, '.beads', 'issues.jsonl'))).toBe(false);
    const current = brStore(300);
    const beadsDir = join(current, '.beads');
    const jsonl = join(beadsDir, 'issues.jsonl');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(true);
    writeFileSync(join(beadsDir, 'beads.db-wal'), '');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(false);
    rmSync(join(beadsDir, 'beads.db-wal'));
    writeFileSync(join(beadsDir, '.write.lock'), '');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(false);
    rmSync(join(beadsDir, '.write.lock'));
    writeFileSync(join(beadsDir, 'config.yaml'), 'sync:\n  auto_flush: false\n');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(false);
    writeFileSync(join(beadsDir, 'config.yaml'), 'no-auto-flush: true\n');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(false);
    writeFileSync(join(beadsDir, 'config.yaml'), 'issue-prefix: "j"\n');
    expect(await brJsonlIsCurrent(beadsDir, jsonl)).toBe(true);
    // A newer JSONL (a git pull) is what br itself would import first.
    const pulled = join(brStore(-60_000), '.beads');
    expect(await brJsonlIsCurrent(pulled, join(pulled, 'issues.jsonl'))).toBe(true);
  });
});
