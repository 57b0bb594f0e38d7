// The actor a beads CLI would claim as, read from the same places it reads (src/core/sessionIssue.ts
// `resolveActor` holds each CLI's order): the `--actor` flag we were given, the environment,
// `actor:` in the project's `.beads/config.yaml`, and — for bd only, and only when nothing earlier
// named one — `git config user.name`.
import path from 'node:path';
import type { Dialect } from '../core/model';
import { resolveActor, type Actor } from '../core/sessionIssue';
import { runGit } from '../git/runGit';
import { readTextFile, SMALL_FILE_MAX_BYTES } from '../io/safeRead';

export interface ActorLookup {
  dialect: Dialect;
  /** The project's `.beads` folder (after its redirect). */
  beadsDir: string;
  /** Where git runs for `user.name`: the folder the session works in. */
  folder: string;
  env: NodeJS.ProcessEnv;
  flag?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function actorFor(lookup: ActorLookup): Promise<Actor | undefined> {
  const env = { BEADS_ACTOR: lookup.env.BEADS_ACTOR, BD_ACTOR: lookup.env.BD_ACTOR, USER: lookup.env.USER ?? lookup.env.USERNAME };
  const config = await configuredActor(lookup.beadsDir);
  const early = resolveActor({ dialect: lookup.dialect, flag: lookup.flag, env: { ...env, USER: undefined }, config });
  // git runs only when it could decide: bd reads user.name before $USER, br never does.
  if (early || lookup.dialect !== 'bd') return early ?? resolveActor({ dialect: lookup.dialect, env });
  const gitUserName = await runGit(lookup.folder, ['config', 'user.name'], { timeoutMs: lookup.timeoutMs, signal: lookup.signal, okExitCodes: [0, 1] }).then(
    (result) => result.stdout.trim() || undefined,
    () => undefined,
  );
  return resolveActor({ dialect: lookup.dialect, env, gitUserName });
}

/**
 * `actor:` at the top level of `.beads/config.yaml`. Only that one scalar is read, as both CLIs
 * take it (a plain or quoted value, a trailing comment); a YAML parser would add a dependency to
 * every hook's start-up for one line.
 */
export async function configuredActor(beadsDir: string): Promise<string | undefined> {
  const text = await readTextFile(path.join(beadsDir, 'config.yaml'), { maxBytes: SMALL_FILE_MAX_BYTES }).catch(() => undefined);
  if (text === undefined) return undefined;
  const match = /^actor:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^#\n]*?))[ \t]*(?:#.*)?$/m.exec(text);
  const value = (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
  return value === '' ? undefined : value;
}
