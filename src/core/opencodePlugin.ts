// opencode has no command hooks: it loads JavaScript plugins from `.opencode/plugins/*.js`
// (opencode-ai 1.18: `{plugin,plugins}/*.{ts,js}` under each config folder). Ours is
// src/plugins/opencode.js, a source file of its own (type-checked and linted; what it does and
// why is said there), which reaches this module as text: an install writes it whole with its
// LAUNCHER line set to this install's command line, and an uninstall deletes it. The file is ours
// alone: its first line marks it, and the launcher sits on one line as JSON. Pure: the caller
// reads and writes the file.
import PLUGIN_SOURCE from '../plugins/opencode.js?raw';

/** What runs our command line (hookConfig's HookLauncher, spelled out here so the two modules need not import each other). */
export interface PluginLauncher {
  runtime: string;
  script: string;
  electron: boolean;
}

export const OPENCODE_PLUGIN_MARKER = '// beads-recovery: opencode plugin';

// The events the plugin passes to `beads-recovery hook opencode <event>` are in opencode's profile.
export { OPENCODE_EVENTS } from './agents/opencode';

const LAUNCHER_LINE = /^const LAUNCHER = (\{.*\});$/m;

export function opencodePluginText(launcher: PluginLauncher): string {
  const plain = { runtime: launcher.runtime, script: launcher.script, electron: launcher.electron };
  // A function, so that a `$` in a path is not read as a replacement pattern.
  return PLUGIN_SOURCE.replace(/\r\n/g, '\n').replace(LAUNCHER_LINE, () => `const LAUNCHER = ${JSON.stringify(plain)};`);
}

/** The launcher a plugin file of ours names; undefined for any other file. */
export function readOpencodePlugin(text: string | undefined): PluginLauncher | undefined {
  if (!text?.startsWith(OPENCODE_PLUGIN_MARKER)) return undefined;
  const match = LAUNCHER_LINE.exec(text);
  if (!match) return undefined;
  try {
    const value = JSON.parse(match[1]!) as Partial<PluginLauncher>;
    if (typeof value.runtime !== 'string' || typeof value.script !== 'string') return undefined;
    return { runtime: value.runtime, script: value.script, electron: value.electron === true };
  } catch {
    return undefined;
  }
}
