import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { bdPrimeReachesAgent, type AgentConfigFile, type PrimePresence } from '../core/primeDetection';
import { AGENT_PROFILES } from '../core/agents';
import { type AgentId, type PrimeConfigLocation } from '../core/agents/profile';
import { readIfPresent } from './files';

export interface PrimeDetectionOptions {
  /** The project's folders whose agent settings count: the workspace folder, and the beads root when it differs. */
  projectFolders: readonly string[];
  /** The user's home folder; the process's own by default. */
  home?: string;
  /** Where Codex keeps its user configuration; `$CODEX_HOME`, else `~/.codex`. */
  codexHome?: string;
}

/**
 * Whether bd's own `bd prime` already reaches `agent` (src/core/primeDetection.ts), from the
 * agent's configuration files in the project and the user's home. Hook output for that agent
 * then leaves our rules out. Unreadable files count as absent: detection never fails a hook.
 */
export async function detectBdPrime(agent: AgentId, options: PrimeDetectionOptions): Promise<PrimePresence> {
  const files = await readAgentConfigFiles(AGENT_PROFILES[agent].primeLocations, options);
  return bdPrimeReachesAgent(agent, files);
}

/**
 * Where detectBdPrime looks for `agent`: the files it reads, and the folders whose `*.json` it
 * reads (their listing decides which files). The start block's cache stamps them.
 */
export function primeConfigPlaces(agent: AgentId, options: PrimeDetectionOptions): { files: string[]; folders: string[] } {
  const home = options.home ?? homedir();
  const codexHome = options.codexHome ?? process.env.CODEX_HOME;
  const files: string[] = [];
  const folders: string[] = [];
  for (const location of AGENT_PROFILES[agent].primeLocations) {
    const bases = location.scope === 'user' ? [home] : [...new Set(options.projectFolders.map((folder) => path.resolve(folder)))];
    for (const base of bases) {
      if (location.path.endsWith('/*.json')) folders.push(path.join(base, location.path.slice(0, -'/*.json'.length)));
      else files.push(location.scope === 'user' && codexHome && location.path.startsWith('.codex/') ? path.join(codexHome, location.path.slice('.codex/'.length)) : path.join(base, location.path));
    }
  }
  return { files, folders };
}

async function readAgentConfigFiles(locations: readonly PrimeConfigLocation[], options: PrimeDetectionOptions): Promise<AgentConfigFile[]> {
  const home = options.home ?? homedir();
  const codexHome = options.codexHome ?? process.env.CODEX_HOME;
  const reads: Promise<AgentConfigFile[]>[] = [];
  for (const location of locations) {
    const folders = location.scope === 'user' ? [home] : [...new Set(options.projectFolders.map((folder) => path.resolve(folder)))];
    for (const folder of folders) reads.push(readLocation(location, folder, location.scope === 'user' ? codexHome : undefined));
  }
  return (await Promise.all(reads)).flat();
}

async function readLocation(location: PrimeConfigLocation, folder: string, codexHome: string | undefined): Promise<AgentConfigFile[]> {
  const relatives = location.path.endsWith('/*.json') ? await jsonFilesIn(folder, location.path.slice(0, -'/*.json'.length)) : [location.path];
  const files = await Promise.all(
    relatives.map(async (relative): Promise<AgentConfigFile | undefined> => {
      // Codex's user folder can be moved with $CODEX_HOME.
      const absolute = codexHome && relative.startsWith('.codex/') ? path.join(codexHome, relative.slice('.codex/'.length)) : path.join(folder, relative);
      const text = await readIfPresent(absolute).catch(() => undefined);
      return text === undefined ? undefined : { scope: location.scope, path: relative, text };
    }),
  );
  return files.filter((file): file is AgentConfigFile => file !== undefined);
}

async function jsonFilesIn(folder: string, relativeFolder: string): Promise<string[]> {
  try {
    const entries = await readdir(path.join(folder, relativeFolder), { withFileTypes: true });
    return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.json')).map((entry) => `${relativeFolder}/${entry.name}`);
  } catch {
    return [];
  }
}
