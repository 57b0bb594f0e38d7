// Where the one-shot marker of an agent in a project lives: a file in the user's private state
// folder (io/privateFolder.ts, checked before each write) named by a hash of the agent and the
// folder that holds `.beads` (a redirect does not move it), so
// PreCompact and the tool call after the compaction find the same one whatever subfolder each ran
// in. Small on purpose: dist/hook.js asks it before it loads the rest of the hook.
import path from 'node:path';
import { fnv1a } from '../core/hash';
import { privateStateRoot } from '../io/privateFolder';

export function markerDir(): string {
  return path.join(privateStateRoot(), 'hooks');
}

export function markerFile(agent: string, holder: string): string {
  return path.join(markerDir(), `${fnv1a(`${agent}\0${holder}`)}.marker`);
}
