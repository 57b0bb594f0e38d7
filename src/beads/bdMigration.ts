// bd 1.3's first run on a store last used by an older bd migrates the schema in place (v53 -> v66,
// about 28 passes, one a re-key of every event and comment row): "noticeably slower … do not
// interrupt it", crash-resumable, and silent when its stderr is not a terminal (CHANGELOG [1.3.0]
// Upgrade notes, docs/BEADS_CONTRACT.md §9). Killed at our CLI timeout, it would start again on every call
// and never finish. So it is recognised before it starts, run once to the end in the background,
// and the project is read from `.beads/issues.jsonl` meanwhile.
//
// How it is recognised: every bd records its version in `.beads/.local_version` before it runs a
// store-opening command (cmd/bd/version_tracking.go trackBdVersion), and `bd version` opens no store
// (CHANGELOG be-xil). A `.local_version` older than 1.3.0 with a bd of 1.3.0 or later on PATH means
// the next store-opening call migrates. That call is ours, started detached (runCli's
// startDetached), and noted in a marker beside the process registry: `<hash>.json` with its pid,
// `<hash>.out` with its answer. Every process, the extension's and the hooks', reads the marker:
// while the pid lives, the store is migrating; when it has gone with an answer on stdout, the
// migration finished; gone without one (killed: a reboot, a kill of the process group), it is
// started again, because bd has meanwhile written 1.3 into `.local_version`.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareVersions } from '../core/cliVersions';
import { parseCliVersion } from '../core/parse';
import { processExists, processRegistryDir } from './processRegistry';
import { runCliJson, startDetached } from './runCli';
import { fnv1a } from '../core/hash';
import { readTextFile, SMALL_FILE_MAX_BYTES, STATE_FILE_MAX_BYTES } from '../io/safeRead';

/** The first bd whose first run migrates an older store. */
export const BD_MIGRATING_VERSION = '1.3.0';
/** A marker older than this is not trusted (a pid long since reused). */
const MARKER_TRUST_MS = 6 * 60 * 60_000;
/** How many executables' versions are remembered. */
const REMEMBERED_VERSIONS = 16;
/** A store-opening read whose answer (a JSON array) proves the migrated store serves. */
const MIGRATION_ARGS = ['list', '--json', '--limit', '1'];

export interface BdMigration {
  /** The bd version doing it, and the version the store was last used with. */
  to: string;
  from?: string;
  /** Epoch ms when it was started. */
  startedAt: number;
  pid: number;
}

interface Marker extends BdMigration {
  beadsDir: string;
}

export interface MigrationCheck {
  /** The folder that holds `.beads`: bd runs there. */
  root: string;
  beadsDir: string;
  timeoutMs: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
  now?: number;
}

function markerPaths(beadsDir: string): { marker: string; out: string } {
  const dir = path.join(path.dirname(processRegistryDir()), 'migrations');
  // The marker names its store, so two stores whose hashes meet are told apart on reading.
  const key = fnv1a(path.resolve(beadsDir));
  return { marker: path.join(dir, `${key}.json`), out: path.join(dir, `${key}.out`) };
}

async function readMarker(beadsDir: string): Promise<Marker | undefined> {
  try {
    const value = JSON.parse((await readTextFile(markerPaths(beadsDir).marker, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? 'null') as Partial<Marker> | null;
    if (value === null) return undefined;
    if (typeof value.pid !== 'number' || typeof value.to !== 'string' || typeof value.startedAt !== 'number' || value.beadsDir !== path.resolve(beadsDir)) return undefined;
    return value as Marker;
  } catch {
    return undefined;
  }
}

/** Whether the migration's process left its answer: a JSON array on stdout. */
async function answered(outFile: string): Promise<boolean> {
  try {
    return Array.isArray(JSON.parse((await readTextFile(outFile, { maxBytes: STATE_FILE_MAX_BYTES })) ?? 'null'));
  } catch {
    return false;
  }
}

function forget(beadsDir: string): void {
  const { marker, out } = markerPaths(beadsDir);
  rmSync(marker, { force: true });
  rmSync(out, { force: true });
}

/** The version bd last recorded for this store (`.beads/.local_version`), if any. */
export async function localVersion(beadsDir: string): Promise<string | undefined> {
  try {
    const text = ((await readTextFile(path.join(beadsDir, '.local_version'), { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '').trim();
    return text.length > 0 && text.length < 64 ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The migration of this store that is running now, if any; it starts one when the store needs it
 * (see the header). Asks `bd version --json` only when `.local_version` names a bd before 1.3.0, or
 * when a migration of ours was interrupted, so a migrated store costs no process here.
 */
export async function bdMigrationFor(command: string, check: MigrationCheck): Promise<BdMigration | undefined> {
  const now = check.now ?? Date.now();
  const marker = await readMarker(check.beadsDir);
  if (marker) {
    if (processExists(marker.pid) && now - marker.startedAt < MARKER_TRUST_MS) return marker;
    const { out } = markerPaths(check.beadsDir);
    const finished = await answered(out);
    forget(check.beadsDir);
    if (finished) return undefined;
    // Interrupted: bd has recorded its version already, so only our note says the schema is behind.
    return start(command, check, marker.to, marker.from, now);
  }
  const recorded = await localVersion(check.beadsDir);
  if (recorded === undefined || compareVersions(recorded, BD_MIGRATING_VERSION) >= 0) return undefined;
  const version = await cliVersion(command, check);
  if (version === undefined || compareVersions(version, BD_MIGRATING_VERSION) < 0) return undefined;
  return start(command, check, version, recorded, now);
}

/**
 * `bd version --json`, remembered per executable as it is on disk (modification time, size, inode)
 * (and the environment it is given) in a small file beside the markers: a store that stays on an
 * older bd would otherwise cost every detection, a hook's included, one more process.
 */
async function cliVersion(command: string, check: MigrationCheck): Promise<string | undefined> {
  const file = path.join(path.dirname(markerPaths(check.beadsDir).marker), 'versions.json');
  let stamp: string | undefined;
  try {
    const info = statSync(command);
    stamp = `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch {
    stamp = undefined;
  }
  let known: Record<string, { stamp: string; version: string }> = {};
  try {
    const value: unknown = JSON.parse((await readTextFile(file, { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) known = value as typeof known;
  } catch {
    // nothing remembered yet
  }
  // The environment given to the CLI is part of what it is (a wrapper may pick the binary by it).
  const key = check.env ? `${command}\0${JSON.stringify(check.env)}` : command;
  const remembered = known[key];
  if (stamp !== undefined && remembered?.stamp === stamp && typeof remembered.version === 'string') return remembered.version;
  const version = await runCliJson(command, ['version', '--json'], { cwd: check.root, timeoutMs: check.timeoutMs, env: check.env, signal: check.signal })
    .then(parseCliVersion)
    .catch(() => undefined);
  if (version !== undefined && stamp !== undefined) {
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // The newest few executables are enough; an old entry is only asked about again.
      const kept = Object.entries(known).filter(([name]) => name !== key).slice(-(REMEMBERED_VERSIONS - 1));
      writeFileSync(file, JSON.stringify(Object.fromEntries([...kept, [key, { stamp, version }]])), { mode: 0o600 });
    } catch {
      // asked again next time
    }
  }
  return version;
}

function start(command: string, check: MigrationCheck, to: string, from: string | undefined, now: number): BdMigration | undefined {
  const { marker, out } = markerPaths(check.beadsDir);
  try {
    mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  const pid = startDetached(command, MIGRATION_ARGS, { cwd: check.root, env: check.env, stdoutFile: out });
  if (pid === undefined) return undefined;
  const migration: Marker = { to, ...(from ? { from } : {}), startedAt: now, pid, beadsDir: path.resolve(check.beadsDir) };
  try {
    writeFileSync(marker, JSON.stringify(migration), { mode: 0o600 });
  } catch {
    // Without a note other processes cannot see it; this one still reads the file meanwhile.
  }
  return migration;
}

/** Resolves when the migration's process has gone (checked every `intervalMs`); `signal` stops waiting. */
export function migrationEnded(migration: BdMigration, intervalMs = 2_000, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (signal?.aborted || !processExists(migration.pid)) {
        clearInterval(timer);
        resolve();
      }
    }, intervalMs);
    timer.unref?.();
  });
}

/** Words for the user: what is happening and why the project is read-only meanwhile. */
export function describeMigration(migration: BdMigration, now: number): string {
  const since = Math.max(0, Math.round((now - migration.startedAt) / 1000));
  const from = migration.from ? ` (last used with bd ${migration.from})` : '';
  return `bd ${migration.to} is migrating this project's store in place${from}, its first run after the upgrade: noticeably slow, and left to finish rather than stopped (running for ${since} s).`;
}

