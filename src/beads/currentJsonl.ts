import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LinkedIssue } from '../core/model';
import type { BeadsBackend } from './backend';
import { isCanceled } from './errors';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

/**
 * How much later than `issues.jsonl` br's database may be modified by the same write: br flushes
 * the JSONL (temp file + rename) before it exits, and SQLite checkpoints its WAL into the
 * database file when the last connection closes, just after.
 */
const SAME_WRITE_SLACK_MS = 1000;

/**
 * Whether br's `issues.jsonl` holds what its database holds, so that reading it answers as br
 * would (docs/BEADS_CONTRACT.md §0: br flushes it after every successful write, by rename): auto-flush
 * is not switched off in `config.yaml`, no writer holds `.write.lock`, and the file is not older
 * than the database (or its WAL) beyond one write's slack. A newer JSONL (a `git pull`) is what
 * br itself would import first. Anything unreadable, or no database to compare with, says no.
 *
 * Of br 0.5's files (docs/BEADS_CONTRACT.md §9) only `.write.lock` means a writer holds the store: the
 * `.br-db-openers-*.lock` lease is taken by every open, readers included (v0.5.4), and the
 * engine's sidecars (`-wal-cert*`, `-fsqlite-ns-*`, the migration-state file) and the `-shm`
 * reader marks change on reads, so none of them is looked at.
 */
export async function brJsonlIsCurrent(beadsDir: string, jsonlPath: string): Promise<boolean> {
  const database = join(beadsDir, await databaseName(beadsDir));
  const [jsonl, db, wal, lock, flushOff] = await Promise.all([
    mtime(jsonlPath),
    mtime(database),
    mtime(`${database}-wal`),
    mtime(join(beadsDir, '.write.lock')),
    autoFlushDisabled(beadsDir),
  ]);
  if (jsonl === undefined || db === undefined || lock !== undefined || flushOff) return false;
  return jsonl + SAME_WRITE_SLACK_MS >= Math.max(db, wal ?? 0);
}

/**
 * A br backend whose reads come from `issues.jsonl` while it is current (checked before every
 * read, a few `stat`s) and from the CLI otherwise; writes (and `version`) always go to the CLI. A read of the
 * file that fails falls back to the CLI too: the file is a shortcut, never the only way.
 */
export function readingCurrentJsonl(cli: BeadsBackend, jsonlFile: BeadsBackend, isCurrent: () => Promise<boolean>): BeadsBackend {
  const jsonl = answeringAsBr(jsonlFile);
  const read =
    <A extends unknown[], T>(method: (backend: BeadsBackend, ...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      if (await isCurrent().catch(() => false)) {
        try {
          return await method(jsonl, ...args);
        } catch (error) {
          if (isCanceled(error)) throw error;
        }
      }
      return method(cli, ...args);
    };
  return {
    kind: cli.kind,
    readOnly: cli.readOnly,
    root: cli.root,
    ...(cli.beadsDir ? { beadsDir: cli.beadsDir } : {}),
    listInProgress: read((backend, signal?: AbortSignal) => backend.listInProgress(signal)),
    listReady: read((backend, signal?: AbortSignal) => backend.listReady(signal)),
    show: read((backend, ids: readonly string[], signal?: AbortSignal) => backend.show(ids, signal)),
    // Known only while the reads come from the file: the CLI computes its own ready list.
    readyChangesAfter: async (now, signal) => ((await isCurrent().catch(() => false)) && jsonl.readyChangesAfter ? jsonl.readyChangesAfter(now, signal) : undefined),
    addComment: (id, text, signal) => cli.addComment(id, text, signal),
    claim: (id, signal) => cli.claim(id, signal),
    close: (id, reason, signal, options) => cli.close(id, reason, signal, options),
    // The CLI's own version: the file is only a way to read its data.
    ...(cli.version ? { version: cli.version.bind(cli) } : {}),
  };
}

/** br's `metadata.json` names the database (`"database": "beads.db"`); only a plain name inside `.beads` is taken. */
async function databaseName(beadsDir: string): Promise<string> {
  try {
    const metadata: unknown = JSON.parse((await readTextFile(join(beadsDir, 'metadata.json'), { maxBytes: SMALL_FILE_MAX_BYTES })) ?? '{}');
    const name = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).database : undefined;
    if (typeof name === 'string' && name.length > 0 && basename(name) === name) return name;
  } catch {
    // No metadata: br's default name.
  }
  return 'beads.db';
}

/** `sync.auto_flush: false` (or the legacy `no-auto-flush: true`) in `.beads/config.yaml`. */
async function autoFlushDisabled(beadsDir: string): Promise<boolean> {
  let config: unknown;
  try {
    const text = await readTextFile(join(beadsDir, 'config.yaml'), { maxBytes: SMALL_FILE_MAX_BYTES });
    // No config is br's default (flush on); nor is a config that names neither key (most do not: no YAML to parse).
    if (text === undefined || !/auto[_-]flush/.test(text)) return false;
    const { parse: parseYaml } = await import('yaml');
    config = parseYaml(text);
  } catch {
    // One br could not read either is not trusted.
    return true;
  }
  if (typeof config !== 'object' || config === null) return false;
  const record = config as Record<string, unknown>;
  const sync = record.sync;
  const flat = record['sync.auto_flush'];
  const nested = typeof sync === 'object' && sync !== null ? (sync as Record<string, unknown>).auto_flush : undefined;
  return nested === false || flat === false || record['no-auto-flush'] === true;
}

async function mtime(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The file's answers in the shape br's own give: `br show` names a linked issue by id, title,
 * status and priority only, so a link read from the file keeps no type either (the context would
 * otherwise say "(epic)" after a parent only when br did not answer).
 */
function answeringAsBr(jsonl: BeadsBackend): BeadsBackend {
  const untyped = (links: readonly LinkedIssue[]) => links.map((link) => ({ ...link, issueType: '' }));
  return {
    ...jsonl,
    show: async (ids, signal) => (await jsonl.show(ids, signal)).map((issue) => ({ ...issue, dependencies: untyped(issue.dependencies), dependents: untyped(issue.dependents) })),
  };
}

