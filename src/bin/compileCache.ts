// Loads a file of the build (dist/hookWork.js, half a megabyte) with V8's code cache, so that a
// hook process, which starts anew for every agent event, does not parse and compile it again each
// time. The cache is made after the hook's work: V8's createCachedData then holds every function
// the run compiled, where a cache made at load time (all that Node's module.enableCompileCache
// keeps, and it exists only from Node 22.1) holds little more than the top level. It is written
// only when there was none or V8 refused it.
//
// It lives beside the file it caches (dist/compile-cache/), so it has the owner and the rights of
// the code itself (whoever could plant a cache there could change the code as well), goes when the
// extension version is removed, and never reaches the user's home or the shared temporary folder.
// Its name holds the file's name, size and time and the runtime's version; V8 itself refuses data
// made by another V8, with other flags or for a source of another length. Anything that goes wrong
// (a read-only install, damaged data) loads the file as a plain require would.
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import Module from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { fnv1a } from '../core/hash';
import { readBytesFile, readTextFile, STATE_FILE_MAX_BYTES } from '../io/safeRead';

export interface CachedLoad<T> {
  exports: T;
  /** Whether V8 took the cache this load found. */
  cacheUsed: boolean;
  /** Writes the code cache when this load had none or V8 refused it; never rejects. Call once the work is done. */
  saveCache(): Promise<void>;
}

/** Where the code caches of a file of the build live: beside it. */
export function compileCacheDir(file: string): string {
  return path.join(path.dirname(file), 'compile-cache');
}

type ModuleWrapper = (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;

/** Requires `file`, a CommonJS file of the build, through V8's code cache kept in `cacheDir`. */
export async function requireWithCompileCache<T>(file: string, cacheDir: string = compileCacheDir(file)): Promise<CachedLoad<T>> {
  const plain = (): CachedLoad<T> => ({
    exports: Module.createRequire(file)(file) as T,
    cacheUsed: false,
    saveCache: () => Promise.resolve(),
  });
  let cacheFile: string;
  let source: string | undefined;
  let cachedData: Buffer | undefined;
  try {
    const info = await stat(file);
    cacheFile = path.join(cacheDir, `${path.basename(file)}-${fnv1a(`${info.size}\0${info.mtimeMs}\0${process.version}\0${process.arch}`)}.cache`);
    [source, cachedData] = await Promise.all([
      readTextFile(file, { maxBytes: STATE_FILE_MAX_BYTES }),
      readBytesFile(cacheFile, { maxBytes: STATE_FILE_MAX_BYTES }).catch(() => undefined),
    ]);
  } catch {
    return plain();
  }
  if (source === undefined) return plain();
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const loaded = new Module(file);
  loaded.filename = file;
  loaded.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(path.dirname(file));
  (script.runInThisContext() as ModuleWrapper).call(loaded.exports, loaded.exports, Module.createRequire(file), loaded, file, path.dirname(file));
  loaded.loaded = true;
  const cacheUsed = cachedData !== undefined && script.cachedDataRejected === false;
  return {
    exports: loaded.exports as T,
    cacheUsed,
    saveCache: async () => {
      if (cacheUsed) return;
      // Whole or not at all: another hook may read it at this moment.
      const partial = `${cacheFile}.${process.pid}.tmp`;
      try {
        await mkdir(cacheDir, { recursive: true });
        await writeFile(partial, script.createCachedData());
        await rename(partial, cacheFile);
        await dropStaleCaches(cacheDir, cacheFile);
      } catch {
        // Without a cache the next run compiles again, as this one did.
        await rm(partial, { force: true }).catch(() => undefined);
      }
    },
  };
}

/** When a cache is written (a new build, a new runtime), the older caches of the same file go. */
async function dropStaleCaches(cacheDir: string, kept: string): Promise<void> {
  const sameFile = `${path.basename(kept).replace(/-[0-9a-f]{8}\.cache$/, '')}-`;
  for (const name of await readdir(cacheDir)) {
    if (name.startsWith(sameFile) && name.endsWith('.cache') && path.join(cacheDir, name) !== kept) await rm(path.join(cacheDir, name), { force: true });
  }
}
