// Claude Code's hooks live in its settings files (`.claude/settings.json`, shared with the team,
// and `.claude/settings.local.json`, private to this machine):
//
//   { "hooks": { "SessionStart": [ { "matcher": "startup|resume|clear|compact",
//                                    "hooks": [ { "type": "command", "command": "…", "timeout": 30 } ] } ] } }
//
// This module merges our two hooks into such a file and takes them out again, leaving every other
// key, event, group and hook as it was. Our entries are recognised by a trailing shell comment,
// `# beads-recovery`, which the shell ignores and which survives path changes, so an install after
// an extension update rewrites our entries in place instead of adding a second pair.
// Pure: the caller reads and writes the file and knows which paths exist.

/** What runs our command line: a JavaScript runtime and the bundled `dist/cli.js`. */
export interface HookLauncher {
  /** Absolute path of a node-compatible runtime (node, or VS Code's own executable). */
  runtime: string;
  /** Absolute path of `dist/cli.js`. */
  script: string;
  /** The runtime is Electron (VS Code's executable), which behaves as node only with ELECTRON_RUN_AS_NODE=1. */
  electron: boolean;
}

/**
 * The launcher for the runtime this code runs on. Claude Code runs hooks with bash, Git Bash on
 * Windows, where forward slashes are the dependable spelling of a Windows path.
 */
export function launcherFor(runtime: { execPath: string; electron: boolean; windows: boolean }, script: string): HookLauncher {
  const spell = (path: string) => (runtime.windows ? path.replace(/\\/g, '/') : path);
  return { runtime: spell(runtime.execPath), script: spell(script), electron: runtime.electron };
}

export type HookEvent = 'SessionStart' | 'PreCompact';

export interface HookSpec {
  event: HookEvent;
  matcher: string;
  args: readonly string[];
  /** Seconds before Claude Code gives up on the command; each beads CLI call is bounded well below it. */
  timeout: number;
}

/** The hooks we install: context after every start, resume, /clear and compaction; a checkpoint before compaction. */
export const OUR_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', matcher: 'startup|resume|clear|compact', args: ['context', '--format', 'claude-hook'], timeout: 30 },
  { event: 'PreCompact', matcher: 'auto|manual', args: ['checkpoint', '--auto', '--pre-compact'], timeout: 30 },
];

export const HOOK_MARKER = '# beads-recovery';
const MARKER_AT_END = /\s#\s*beads-recovery\s*$/;

/** A settings object as JSON.parse returns it. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export type SettingsEdit =
  | { ok: true; text: string; changed: boolean }
  | { ok: false; error: string };

/**
 * The shell command for one hook: POSIX shell syntax, which is what Claude Code runs hooks with
 * (bash; Git Bash on Windows). Paths are single-quoted, so spaces and `$` in them stay literal.
 */
export function hookCommand(launcher: HookLauncher, args: readonly string[]): string {
  const env = launcher.electron ? 'ELECTRON_RUN_AS_NODE=1 ' : '';
  return `${env}${shellQuote(launcher.runtime)} ${shellQuote(launcher.script)} ${args.join(' ')} ${HOOK_MARKER}`;
}

export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && MARKER_AT_END.test(command);
}

/** Reads back the launcher of a command we wrote; undefined for anything else (a hand-edited entry). */
export function parseHookCommand(command: string): { launcher: HookLauncher; args: string[] } | undefined {
  const quoted = String.raw`'(?:[^']|'\\'')*'`;
  const match = new RegExp(String.raw`^(ELECTRON_RUN_AS_NODE=1 )?(${quoted}) (${quoted}) (.*?)\s#\s*beads-recovery\s*$`).exec(command);
  if (!match) return undefined;
  const [, electron, runtime = '', script = '', args = ''] = match;
  return {
    launcher: { runtime: shellUnquote(runtime), script: shellUnquote(script), electron: electron !== undefined },
    args: args.split(' ').filter((arg) => arg !== ''),
  };
}

/**
 * Whether `other` is the CLI of another version of the same extension in the same extensions
 * folder as `current` (`<extensions>/<publisher>.<name>-<version>/dist/cli.js`): what an update
 * leaves behind, as opposed to a separate live install (VS Code Insiders, a development checkout).
 */
export function isSiblingVersion(current: string, other: string): boolean {
  const parts = (script: string) => {
    const segments = script.split(/[\\/]+/);
    return { folder: segments.slice(0, -3).join('/'), extension: (segments.at(-3) ?? '').replace(/-\d+\.\d+\.\d+.*$/, ''), version: segments.at(-3) };
  };
  const ours = parts(current);
  const theirs = parts(other);
  return ours.folder === theirs.folder && ours.extension !== '' && ours.extension === theirs.extension && ours.version !== theirs.version;
}

/** Every command of ours in the settings text (for path repair); empty when the text is not valid settings. */
export function ourCommands(text: string | undefined): { event: string; command: string }[] {
  const parsed = parseSettings(text);
  if (!parsed.ok) return [];
  const hooks = parsed.settings.hooks;
  if (!isObject(hooks)) return [];
  const found: { event: string; command: string }[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const hook of group.hooks) {
        if (isObject(hook) && typeof hook.command === 'string' && isOurCommand(hook.command)) found.push({ event, command: hook.command });
      }
    }
  }
  return found;
}

/**
 * Adds our hooks, or brings existing ones up to date (new paths, matcher, timeout) where they
 * stand. Installing twice changes nothing the second time.
 */
export function installHooks(text: string | undefined, launcher: HookLauncher): SettingsEdit {
  return editSettings(text, (settings) => placeHooks(settings, OUR_HOOKS.map((spec) => ({ spec, command: hookCommand(launcher, spec.args) }))));
}

/** Takes out every hook of ours, and the groups and events that held nothing else. */
export function uninstallHooks(text: string | undefined): SettingsEdit {
  return editSettings(text, (settings) => placeHooks(settings, []));
}

/** Rewrites our existing hooks for a new launcher; a file without our hooks is left alone. */
export function repairHooks(text: string | undefined, launcher: HookLauncher): SettingsEdit {
  if (ourCommands(text).length === 0) return editSettings(text, () => undefined);
  return installHooks(text, launcher);
}

interface Placement {
  spec: HookSpec;
  command: string;
}

/**
 * Puts exactly one hook of ours per wanted event into the settings and removes every other one.
 * An existing entry of ours is updated where it is (so a repair does not move lines around); a
 * group holding only our hook also gets our matcher; a group the user shares with our hook keeps
 * the user's matcher. Returns an error message when a part we must change is not shaped as
 * Claude Code expects.
 */
function placeHooks(settings: JsonObject, wanted: readonly Placement[]): string | undefined {
  if (settings.hooks !== undefined && !isObject(settings.hooks)) return '"hooks" is not an object';
  const hooks: JsonObject = isObject(settings.hooks) ? settings.hooks : {};
  for (const { spec } of wanted) {
    if (hooks[spec.event] !== undefined && !Array.isArray(hooks[spec.event])) return `"hooks.${spec.event}" is not a list`;
  }
  const placed = new Set<HookEvent>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const want = wanted.find(({ spec }) => spec.event === event);
    const keptGroups: Json[] = [];
    let removedAny = false;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        keptGroups.push(group);
        continue;
      }
      const onlyOurs = group.hooks.length > 0 && group.hooks.every((hook) => isObject(hook) && isOurCommand(hook.command));
      const keptHooks: Json[] = [];
      for (const hook of group.hooks) {
        if (!isObject(hook) || !isOurCommand(hook.command)) {
          keptHooks.push(hook);
        } else if (want && !placed.has(want.spec.event)) {
          placed.add(want.spec.event);
          keptHooks.push({ ...hook, type: 'command', command: want.command, timeout: want.spec.timeout });
          if (onlyOurs) group.matcher = want.spec.matcher;
        } else {
          removedAny = true;
        }
      }
      if (keptHooks.length === 0 && group.hooks.length > 0) {
        removedAny = true;
        continue;
      }
      group.hooks = keptHooks;
      keptGroups.push(group);
    }
    if (keptGroups.length === 0 && removedAny) delete hooks[event];
    else hooks[event] = keptGroups;
  }
  for (const { spec, command } of wanted) {
    if (placed.has(spec.event)) continue;
    const groups = hooks[spec.event];
    const group: JsonObject = { matcher: spec.matcher, hooks: [{ type: 'command', command, timeout: spec.timeout }] };
    hooks[spec.event] = Array.isArray(groups) ? [...groups, group] : [group];
  }
  if (Object.keys(hooks).length > 0) settings.hooks = hooks;
  else if (settings.hooks !== undefined) delete settings.hooks;
  return undefined;
}

/**
 * Parses, edits and re-serializes a settings file in its own style (indent, line endings, final
 * newline). Text that does not change keeps its exact bytes; text that is not a JSON object is
 * an error, and nothing is changed.
 */
function editSettings(text: string | undefined, edit: (settings: JsonObject) => string | undefined): SettingsEdit {
  const parsed = parseSettings(text);
  if (!parsed.ok) return parsed;
  const before = JSON.stringify(parsed.settings);
  const error = edit(parsed.settings);
  if (error) return { ok: false, error };
  if (JSON.stringify(parsed.settings) === before) return { ok: true, text: text ?? '', changed: false };
  const style = detectStyle(text ?? '');
  const body = JSON.stringify(parsed.settings, null, style.indent).replace(/\n/g, style.eol);
  return { ok: true, text: style.finalNewline ? `${body}${style.eol}` : body, changed: true };
}

function parseSettings(text: string | undefined): { ok: true; settings: JsonObject } | { ok: false; error: string } {
  if (text === undefined || text.trim() === '') return { ok: true, settings: {} };
  let value: Json;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, '')) as Json;
  } catch (error) {
    return { ok: false, error: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isObject(value)) return { ok: false, error: 'the top level is not a JSON object' };
  return { ok: true, settings: value };
}

function detectStyle(text: string): { indent: string; eol: string; finalNewline: boolean } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text.trim() === '' || /\n$/.test(text);
  return { indent, eol, finalNewline };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function shellUnquote(quoted: string): string {
  return quoted.slice(1, -1).replace(/'\\''/g, "'");
}

/** The fields of the JSON Claude Code writes to a hook's stdin that our commands use. */
export interface HookInput {
  event?: string;
  /** SessionStart: startup, resume, clear or compact. */
  source?: string;
  /** PreCompact: auto or manual. */
  trigger?: string;
  cwd?: string;
}

/** Reads a hook's stdin; anything that is not a JSON object (a terminal, a stray pipe) gives undefined. */
export function parseHookInput(text: string): HookInput | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const field = (key: string): string | undefined => (typeof value[key] === 'string' && value[key] !== '' ? (value[key] as string) : undefined);
  return { event: field('hook_event_name'), source: field('source'), trigger: field('trigger'), cwd: field('cwd') };
}

// Events whose hookSpecificOutput.additionalContext Claude Code adds to the conversation.
const CONTEXT_EVENTS = new Set(['SessionStart', 'UserPromptSubmit']);

/**
 * What a context hook prints: JSON whose `hookSpecificOutput.additionalContext` Claude Code adds
 * to the session. The event name must echo the event that ran the hook.
 */
export function contextHookOutput(markdown: string, event: string | undefined): string {
  const hookEventName = event && CONTEXT_EVENTS.has(event) ? event : 'SessionStart';
  return JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: markdown } });
}
