// The agents' hook files, and our entries in them. Each agent's file, layout and events are in its
// profile (./agents/<agent>.ts, `hookFile`): two layouts of JSON (nested, flat) and a plugin.
//
// Every handler we write runs `beads-recovery hook <agent> <event>` through the per-user launcher
// (shimCommandLine: no path of this machine) and ends with the shell comment `# beads-recovery`,
// which shells ignore: that is how our entries are found again, so an install rewrites them in
// place (0.1.0's entries, which named this machine's runtime and script, included).
// Edits are text edits at the places that change (core/jsoncEdit): comments, key order and the
// file's own formatting — a neighbour written on one line too — survive, and an uninstall after an
// install gives the original bytes.
// Pure: the caller reads and writes the files.
import { parseTree, findNodeAtLocation, getNodeValue, type FormattingOptions, type JSONPath, type Node, type ParseError } from 'jsonc-parser';
import { describeContainer, duplicateKey, setJsonValue } from './jsoncEdit';
import { OPENCODE_EVENTS, opencodePluginText, readOpencodePlugin } from './opencodePlugin';
import { AGENT_PROFILES } from './agents';
import { type AgentId, type HookFile, type HookSpec } from './agents/profile';

// The agent type and its list live with the agents' profiles (./agents/); kept here too for the modules that read the hook formats.
export { AGENTS, type AgentId } from './agents/profile';
export { isAgentId } from './agents';

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
 * The launcher for the runtime this code runs on. The agents run hooks with a POSIX shell (Git Bash
 * on Windows for Claude Code), where forward slashes are the dependable spelling of a Windows path.
 */
export function launcherFor(runtime: { execPath: string; electron: boolean; windows: boolean }, script: string): HookLauncher {
  const spell = (path: string) => (runtime.windows ? path.replace(/\\/g, '/') : path);
  return { runtime: spell(runtime.execPath), script: spell(script), electron: runtime.electron };
}

/** An agent's hook file as ./agents/<agent>.ts describes it, under the agent's id. */
export interface AgentFormat extends HookFile {
  id: AgentId;
}

/** Each agent's hook file, from its profile. */
export const AGENT_FORMATS: { readonly [A in AgentId]: AgentFormat } = Object.fromEntries(
  Object.values(AGENT_PROFILES).map((profile) => [profile.id, { id: profile.id, ...profile.hookFile }]),
) as { readonly [A in AgentId]: AgentFormat };

export const HOOK_MARKER = '# beads-recovery';
const MARKER_AT_END = /\s#\s*beads-recovery\s*$/;

export type ConfigEdit = { ok: true; text: string; changed: boolean } | { ok: false; error: string };

/** The arguments of our command line a hook runs. */
export function hookArgs(agent: AgentId, event: string): string[] {
  return ['hook', agent, event];
}

/**
 * The command for one hook in POSIX shell syntax, which is what the agents run hooks with. Paths
 * are single-quoted, so spaces and `$` in them stay literal.
 */
export function hookCommandLine(launcher: HookLauncher, args: readonly string[]): string {
  const env = launcher.electron ? 'ELECTRON_RUN_AS_NODE=1 ' : '';
  return `${env}${shellQuote(launcher.runtime)} ${shellQuote(launcher.script)} ${args.join(' ')} ${HOOK_MARKER}`;
}

/**
 * Every hook file runs the per-user launcher, never a path of this machine: teams commit these
 * files (`.github/hooks/*.json`, `.claude/settings.json`, `.codex/hooks.json`, …), and a
 * teammate's hooks must find their own install. The launcher is a small script in the user's home
 * (`~/.beads-recovery/bin/beads-recovery`, and `beads-recovery.cmd` beside it on Windows) that the
 * extension rewrites at every start, and `hooks install` when it runs, to call its own runtime and
 * `dist/cli.js` (services/launcherShim.ts). A home-relative path rather than a name on PATH:
 * agents run hooks with whatever PATH they were started with, and VS Code cannot add to it. Where
 * the launcher is missing (a teammate without the extension), the hook does nothing and exits 0.
 */
export const LAUNCHER_DIR = ['.beads-recovery', 'bin'] as const;
export const LAUNCHER_NAME = 'beads-recovery';

/**
 * The shells a hook command is written for:
 * - `posix`: sh, bash, zsh, and Git Bash on Windows (Claude Code);
 * - `powershell`: PowerShell text (Copilot CLI's `powershell` field);
 * - `encoded-powershell`: a command line without a single quote character that starts
 *   powershell.exe with the script as -EncodedCommand, for a runner that hands the text to cmd.exe
 *   through an argument quoting of its own, or to PowerShell (Codex's `commandWindows`);
 * - `posix-or-powershell`: one text that runs in sh on Linux and macOS and in PowerShell on Windows,
 *   for agents with one command for every platform (Gemini CLI, Cursor).
 */
export type HookShell = 'posix' | 'powershell' | 'encoded-powershell' | 'posix-or-powershell';

/** The hook command for the shell that runs it; none names a path of this machine. */
export function shimCommandLine(args: readonly string[], shell: HookShell): string {
  const words = args.join(' ');
  const posix = () => {
    const launcher = `"$HOME/${LAUNCHER_DIR.join('/')}/${LAUNCHER_NAME}"`;
    return `[ ! -x ${launcher} ] || ${launcher} ${words}`;
  };
  // `-LiteralPath`: a profile folder such as `C:\Users\a[1]` is no wildcard.
  const powershell = `$launcher = "$env:USERPROFILE\\${LAUNCHER_DIR.join('\\')}\\${LAUNCHER_NAME}.cmd"; if (Test-Path -LiteralPath $launcher) { & $launcher ${words}`;
  switch (shell) {
    case 'posix':
      return `${posix()} ${HOOK_MARKER}`;
    case 'powershell':
      return `${powershell} } ${HOOK_MARKER}`;
    case 'encoded-powershell': {
      // The hook's exit code is the launcher's; base64 of UTF-16LE is what -EncodedCommand reads.
      const script = `${powershell}; exit $LASTEXITCODE }`;
      return `powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand ${Buffer.from(script, 'utf16le').toString('base64')}`;
    }
    case 'posix-or-powershell':
      // sh reads `set BR '" <# '` (a harmless `set` of its arguments), runs the POSIX command, and
      // takes everything from ` #>` on as a comment. PowerShell reads `set BR '\'` (Set-Variable:
      // in its double quotes a backslash escapes nothing), skips the block comment `<# … #>` that
      // holds the POSIX command, ends that statement at the `;` after it (a block comment is only
      // a space: without it the assignment would be more arguments of `set`), and runs its own.
      // Gemini CLI appends its exit-code check after the marker, where PowerShell reads it as part
      // of the comment.
      return `set BR "\\" <# "; ${posix()} #>; ${powershell} } ${HOOK_MARKER}`;
  }
}

/**
 * Windows environment variables a launcher path may start with, so the batch file names the
 * folder by the variable, which cmd.exe reads from the process's environment, rather than by its
 * characters: cmd.exe reads a batch file in the OEM code page, not UTF-8, so a literal
 * `C:\Users\Jürgen` would name another folder.
 */
export const LAUNCHER_PATH_VARIABLES = ['LOCALAPPDATA', 'APPDATA', 'USERPROFILE', 'ProgramFiles', 'ProgramFiles(x86)', 'ProgramW6432', 'ProgramData'] as const;

/**
 * The launcher's own text: a POSIX script, and a batch file for cmd.exe and PowerShell on
 * Windows. The batch file double-quotes each path (spaces, `&`, `^`, `(`, `)`, `|` stay literal),
 * doubles each literal `%` (a batch file expands `%NAME%` even inside quotes), and starts a path
 * with the variable of `windowsEnv` (LAUNCHER_PATH_VARIABLES) whose value is the longest prefix of
 * it. `cmdWarning` says when a path still holds characters outside ASCII after that.
 */
export function launcherScripts(launcher: HookLauncher, windowsEnv: Readonly<Record<string, string | undefined>> = {}): { posix: string; cmd: string; cmdWarning?: string } {
  const note = 'beads-recovery: the per-user launcher the agent hooks run, written by Beads Recovery (its extension rewrites it at every start)';
  const posixEnv = launcher.electron ? 'ELECTRON_RUN_AS_NODE=1 ' : '';
  const batchPath = (value: string) => {
    const path = value.replace(/\//g, '\\');
    const folders = LAUNCHER_PATH_VARIABLES.flatMap((name) => {
      const folder = windowsEnv[name]?.replace(/\//g, '\\').replace(/\\+$/, '');
      return folder && startsWithFolder(path, folder) ? [{ name, folder }] : [];
    }).sort((a, b) => b.folder.length - a.folder.length);
    const chosen = folders[0];
    const rest = chosen ? path.slice(chosen.folder.length) : path;
    return { text: `"${chosen ? `%${chosen.name}%` : ''}${rest.replace(/%/g, '%%')}"`, nonAscii: /[^\x20-\x7e]/.test(rest) };
  };
  const runtime = batchPath(launcher.runtime);
  const script = batchPath(launcher.script);
  const unreadable = [runtime.nonAscii ? launcher.runtime : undefined, script.nonAscii ? launcher.script : undefined].filter((path) => path !== undefined);
  return {
    posix: `#!/bin/sh\n# ${note}\n${posixEnv}exec ${shellQuote(launcher.runtime)} ${shellQuote(launcher.script)} "$@"\n`,
    cmd: ['@echo off', `rem ${note}`, 'setlocal', ...(launcher.electron ? ['set "ELECTRON_RUN_AS_NODE=1"'] : []), `${runtime.text} ${script.text} %*`, ''].join('\r\n'),
    ...(unreadable.length > 0
      ? { cmdWarning: `the launcher for cmd.exe and PowerShell names ${unreadable.join(' and ')} with characters outside ASCII, which cmd.exe reads in the OEM code page, so the agent hooks that run it on Windows may not start; a path inside the user profile or Program Files avoids it` }
      : {}),
  };
}

/** Whether a Windows path lies in `folder` (case-insensitive, at a separator). */
function startsWithFolder(path: string, folder: string): boolean {
  return path.length > folder.length && path.slice(0, folder.length).toLowerCase() === folder.toLowerCase() && path[folder.length] === '\\';
}

export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && MARKER_AT_END.test(command);
}

/** Reads back the launcher of a POSIX command we wrote; undefined for anything else (a hand-edited entry). */
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

/** One handler of ours in a hook file, and where it sits. */
interface FoundHook {
  event: string;
  command: string;
  /** JSON path of the handler object. */
  path: JSONPath;
  /** Nested layouts: the group holds nothing but our handlers. */
  aloneInGroup: boolean;
}

/** Every command of ours in a hook file of either layout (for status and path repair); empty when the text is not usable. */
export function ourCommands(text: string | undefined): { event: string; command: string }[] {
  const plugin = readOpencodePlugin(text);
  if (plugin) return OPENCODE_EVENTS.map((event) => ({ event, command: hookCommandLine(plugin, hookArgs('opencode', event)) }));
  const parsed = parseDocument(text);
  return parsed.ok ? findOurs(parsed.root).map(({ event, command }) => ({ event, command })) : [];
}

/** Adds our hooks, or brings existing ones up to date where they stand. Installing twice changes nothing. */
export function installHooks(text: string | undefined, launcher: HookLauncher, agent: AgentId): ConfigEdit {
  const format = AGENT_FORMATS[agent];
  if (format.layout === 'plugin') {
    if (text !== undefined && !readOpencodePlugin(text)) return { ok: false, error: 'not the beads-recovery plugin (its first line says whose it is)' };
    const next = opencodePluginText(launcher);
    return { ok: true, text: next, changed: next !== text };
  }
  return placeHooks(text, format, format.hooks.map((spec) => ({ spec, handler: handlerFor(format, spec) })));
}

/** Takes out every hook of ours, and the groups and events that held nothing else. */
export function uninstallHooks(text: string | undefined, agent: AgentId): ConfigEdit {
  if (AGENT_FORMATS[agent].layout === 'plugin') return readOpencodePlugin(text) ? { ok: true, text: '', changed: true } : { ok: true, text: text ?? '', changed: false };
  return placeHooks(text, AGENT_FORMATS[agent], []);
}

/** Rewrites our existing hooks for a new launcher; a file without our hooks is left alone. */
export function repairHooks(text: string | undefined, launcher: HookLauncher, agent: AgentId): ConfigEdit {
  if (AGENT_FORMATS[agent].layout === 'plugin') return readOpencodePlugin(text) ? installHooks(text, launcher, agent) : { ok: true, text: text ?? '', changed: false };
  const parsed = parseDocument(text);
  if (!parsed.ok) return parsed;
  if (findOurs(parsed.root).length === 0) return { ok: true, text: text ?? '', changed: false };
  return installHooks(text, launcher, agent);
}

function handlerFor(format: AgentFormat, spec: HookSpec): Record<string, unknown> {
  const args = hookArgs(format.id, spec.event);
  const handler: Record<string, unknown> = { type: 'command', command: shimCommandLine(args, format.commandShell ?? 'posix') };
  if (format.windows) handler[format.windows.field] = shimCommandLine(args, format.windows.shell);
  handler.timeout = spec.timeout;
  return handler;
}

interface Placement {
  spec: HookSpec;
  handler: Record<string, unknown>;
}

/**
 * Puts exactly one hook of ours per wanted event into the file and removes every other one. An
 * existing entry of ours is updated where it stands; a group holding only our hook also gets our
 * matcher, a group the user shares with it keeps theirs.
 */
function placeHooks(text: string | undefined, format: AgentFormat, wanted: readonly Placement[]): ConfigEdit {
  const parsed = parseDocument(text);
  if (!parsed.ok) return parsed;
  const original = text ?? '';
  let current = original.trim() === '' ? '' : original;
  const style = detectStyle(original);
  const edit = (path: JSONPath, value: unknown, isArrayInsertion = false) => {
    const base = current === '' ? '{}' : current;
    current = setJsonValue(base, path, value, style, isArrayInsertion);
  };
  const root = () => {
    const parsedNow = parseDocument(current);
    if (!parsedNow.ok) throw new Error(parsedNow.error);
    return parsedNow.root;
  };

  const hooksNode = parsed.root && findNodeAtLocation(parsed.root, ['hooks']);
  if (hooksNode && hooksNode.type !== 'object') return { ok: false, error: '"hooks" is not an object' };
  for (const { spec } of wanted) {
    const events = hooksNode && findNodeAtLocation(hooksNode, [spec.event]);
    if (events && events.type !== 'array') return { ok: false, error: `"hooks.${spec.event}" is not a list` };
  }

  // Which of ours stay (the first per wanted event) and which go.
  const found = findOurs(parsed.root);
  const kept = new Map<string, FoundHook>();
  const removals: FoundHook[] = [];
  for (const hook of found) {
    if (wanted.some(({ spec }) => spec.event === hook.event) && !kept.has(hook.event)) kept.set(hook.event, hook);
    else removals.push(hook);
  }
  // A group that holds only our handlers goes as a whole, unless one of them stays. Last first, so
  // the paths of the ones before stay valid.
  const keptGroups = new Set([...kept.values()].map((hook) => JSON.stringify(hook.path.slice(0, 3))));
  const targets = new Map<string, { path: JSONPath; event: string }>();
  for (const hook of removals) {
    const wholeGroup = format.layout === 'nested' && hook.aloneInGroup && !keptGroups.has(JSON.stringify(hook.path.slice(0, 3)));
    const path = wholeGroup ? hook.path.slice(0, 3) : hook.path;
    targets.set(JSON.stringify(path), { path, event: hook.event });
  }
  const touchedEvents = new Set<string>();
  for (const { path, event } of [...targets.values()].sort((a, b) => comparePaths(b.path, a.path))) {
    edit(path, undefined);
    touchedEvents.add(event);
  }
  for (const event of touchedEvents) {
    const node = nodeAt(root(), ['hooks', event]);
    if (node?.type === 'array' && (node.children ?? []).length === 0) edit(['hooks', event], undefined);
  }
  if (touchedEvents.size > 0) {
    const node = nodeAt(root(), ['hooks']);
    if (node?.type === 'object' && (node.children ?? []).length === 0) edit(['hooks'], undefined);
  }

  for (const { spec, handler } of wanted) {
    const existing = kept.get(spec.event);
    if (existing) {
      // Paths of kept hooks are unchanged: removals only took later entries of the same event or other events.
      const at = findOurs(root()).find((hook) => hook.event === spec.event)!;
      for (const [key, value] of Object.entries(handler)) {
        if (JSON.stringify(valueAt(root(), [...at.path, key])) !== JSON.stringify(value)) edit([...at.path, key], value);
      }
      for (const key of format.windows?.replaces ?? []) if (valueAt(root(), [...at.path, key]) !== undefined) edit([...at.path, key], undefined);
      if (format.layout === 'nested' && at.aloneInGroup && spec.matcher !== undefined) {
        const matcherPath = [...at.path.slice(0, 3), 'matcher'];
        if (valueAt(root(), matcherPath) !== spec.matcher) edit(matcherPath, spec.matcher);
      }
      continue;
    }
    const entry = format.layout === 'nested' ? { matcher: spec.matcher ?? '', hooks: [handler] } : handler;
    for (const [key, value] of Object.entries(format.preamble ?? {})) if (current === '' || valueAt(root(), [key]) === undefined) edit([key], value);
    const list = nodeAt(root(), ['hooks', spec.event]);
    if (list?.type === 'array') edit(['hooks', spec.event, (list.children ?? []).length], entry, true);
    else edit(['hooks', spec.event], [entry]);
  }

  if (current === original || (original.trim() === '' && current === '')) return { ok: true, text: original, changed: false };
  // A hook file left with no hooks at all is nothing: it goes (the caller deletes a file whose new text is empty).
  if (holdsOnly(root(), format.preamble ?? {})) return { ok: true, text: '', changed: true };
  const finalNewline = original.trim() === '' || /\n$/.test(original);
  const body = current.replace(/\r?\n$/, '');
  return { ok: true, text: finalNewline ? `${body}${style.eol}` : body, changed: true };
}

function holdsOnly(root: Node | undefined, preamble: Record<string, unknown>): boolean {
  return (root?.children ?? []).every((property) => {
    const [keyNode, value] = property.children ?? [];
    const key = String(keyNode?.value);
    return key in preamble && value !== undefined && JSON.stringify(getNodeValue(value)) === JSON.stringify(preamble[key]);
  });
}

function findOurs(root: Node | undefined): FoundHook[] {
  const hooks = root && findNodeAtLocation(root, ['hooks']);
  if (!hooks || hooks.type !== 'object') return [];
  const found: FoundHook[] = [];
  for (const property of hooks.children ?? []) {
    const [keyNode, list] = property.children ?? [];
    if (!keyNode || list?.type !== 'array') continue;
    const event = String(keyNode.value);
    (list.children ?? []).forEach((entry, index) => {
      if (entry.type !== 'object') return;
      const inner = findNodeAtLocation(entry, ['hooks']);
      if (inner?.type === 'array') {
        const handlers = inner.children ?? [];
        const ours = handlers.map((handler) => isOurCommand(handler.type === 'object' ? valueAt(handler, ['command']) : undefined));
        handlers.forEach((handler, handlerIndex) => {
          if (!ours[handlerIndex]) return;
          found.push({
            event,
            command: String(valueAt(handler, ['command'])),
            path: ['hooks', event, index, 'hooks', handlerIndex],
            aloneInGroup: ours.every(Boolean),
          });
        });
      } else if (isOurCommand(valueAt(entry, ['command']))) {
        found.push({ event, command: String(valueAt(entry, ['command'])), path: ['hooks', event, index], aloneInGroup: true });
      }
    });
  }
  return found;
}

function nodeAt(root: Node | undefined, path: JSONPath): Node | undefined {
  return root ? findNodeAtLocation(root, path) : undefined;
}

function valueAt(root: Node | undefined, path: JSONPath): unknown {
  const node = root && findNodeAtLocation(root, path);
  return node ? getNodeValue(node) : undefined;
}

function comparePaths(a: JSONPath, b: JSONPath): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const left = a[index];
    const right = b[index];
    if (left === right) continue;
    if (left === undefined) return -1;
    if (right === undefined) return 1;
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    return String(left) < String(right) ? -1 : 1;
  }
  return 0;
}

/**
 * A JSON (or JSONC: comments, trailing commas) document whose top level is an object and whose
 * objects name each key once; empty text is an empty object.
 */
export function parseDocument(text: string | undefined): { ok: true; root: Node | undefined } | { ok: false; error: string } {
  if (text === undefined || text.trim() === '') return { ok: true, root: undefined };
  const errors: ParseError[] = [];
  const root = parseTree(text.replace(/^\ufeff/, ''), errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) return { ok: false, error: `not valid JSON (error at offset ${errors[0]?.offset ?? 0})` };
  if (root.type !== 'object') return { ok: false, error: 'the top level is not a JSON object' };
  const duplicate = duplicateKey(root);
  if (duplicate) {
    const where = describeContainer(duplicate.container);
    return { ok: false, error: `ambiguous: the key "${duplicate.key}" appears twice in ${where === 'the top level' ? where : `the object at ${where}`}, and readers of the file keep only the last one; merge the two into one` };
  }
  return { ok: true, root };
}

/** How a file is indented and where its lines end, so our insertions look like the rest. */
export function detectStyle(text: string): FormattingOptions & { eol: string } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function shellUnquote(quoted: string): string {
  return quoted.slice(1, -1).replace(/'\\''/g, "'");
}
