// The files beads writes, for both CLIs, every version and their storage engines: the one list
// (docs/BEADS_CONTRACT.md §3 "Other .beads/ files", §9). None of them is anyone's work, so none is
// counted under Uncommitted Changes, in a checkpoint's Files: line or by the file watcher; and
// the volatile ones change without the issues changing, so a change to them refreshes nothing.

/** The store folders: bd's and br's `.beads`, and br's `_beads`. */
const STORE_FOLDER = /(?:^|\/)(?:\.beads|_beads)(?:\/|$)/;

/**
 * Files beads writes beside its folder, in the folder that holds it: bd 1.3's
 * `.beads.gate.lock`, created on the first run, never deleted, untracked until `bd doctor --fix`
 * adds the `*.gate.lock*` ignore rule (CHANGELOG [1.3.0] Added #5046, #5093); and bd 1.3's
 * `MIGRATION-FREEZE` marker, put in the workspace (or an ancestor) while a migration freezes its
 * writes (CHANGELOG [1.3.0] Changed, dc-6jaq).
 */
const BESIDE_STORE = /(?:^|\/)(?:\.beads\.gate\.lock[^/]*|MIGRATION-FREEZE)$/;

/**
 * Inside the store folder, what changes without the issues changing (a read's own files among
 * them, so refreshing on them would loop):
 * - locks and runtime state of every version: `*.lock` (bd's `*.lock`, `embeddeddolt.gate.lock`
 *   of 1.3; br's `.write.lock` and 0.5.4's `.br-db-openers-*.lock` lease, taken by every open),
 *   sockets, pid files, logs, temp files (`issues.jsonl.<pid>.tmp`), the old daemon's files,
 *   `dolt-server.*`, `last-touched`, bd's `.local_version` (rewritten by a new bd on its first
 *   run), bd's `export-state.json`;
 * - br's backups and recovery folders (`.br_history/`, `.br_recovery/`) and 0.5.4's `.doctor/` runs;
 * - the SQLite engine's `-shm` (a read-only open may change its reader marks, br Unreleased #476)
 *   and FrankenSQLite's sidecars: `-wal-cert`, `-wal-cert-head` (0.5.2), `-fsqlite-ns-gate`,
 *   `-fsqlite-ns-use` and the `fsqlite-migration-state` file (0.5.6), touched by every open.
 */
const VOLATILE_IN_STORE =
  /(?:^|\/)(?:[^/]*\.lock|[^/]*\.sock|[^/]*\.pid|[^/]*\.log|[^/]*\.tmp|daemon[^/]*|dolt-server\.[^/]*|last-touched|\.local_version|export-state\.json|[^/]*-shm|[^/]*-wal-cert(?:-head)?|[^/]*-fsqlite-ns-(?:gate|use)|[^/]*fsqlite-migration-state|(?:\.br_history|\.br_recovery|\.doctor)\/.*)$/;

/** Whether a path (relative, `/`-separated) is one of beads' own files, in or beside its folder. */
export function isBeadsFile(relativePath: string): boolean {
  const path = relativePath.replace(/\\/g, '/');
  return STORE_FOLDER.test(path) || BESIDE_STORE.test(path);
}

/** Whether a path inside the store folder (relative to it, `/`-separated) changes without the issues changing. */
export function isVolatileBeadsFile(pathInStore: string): boolean {
  return VOLATILE_IN_STORE.test(pathInStore.replace(/\\/g, '/'));
}
