// A long-running VS Code with the packaged extension on a fresh demo workspace, for a human with a
// browser. It stops on Ctrl-C.
import fs from 'node:fs';
import path from 'node:path';
import { makeBeadsWorkspace, pathWithStandIns, standInEnv } from './beads-env.mjs';
import { vsixPath } from './e2e.mjs';
import { installVsix, log, startServer } from './runtime.mjs';

export async function runDemo(runDir) {
  if (!fs.existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run npm run build && npm run package`);
  const extensionsDir = path.join(runDir, 'extensions');
  installVsix(vsixPath, extensionsDir, runDir);
  // Relative to now, so the demo's checkpoints read "20h ago", not the fixture's fixed date.
  const workspace = await makeBeadsWorkspace(path.join(runDir, 'demo-workspace'), { dialect: 'br', data: 'scenario', now: Date.now() });
  const server = await startServer({
    dir: runDir, workspace, extensionsDir, port: Number(process.env.PORT || 13370), env: { PATH: pathWithStandIns(), ...standInEnv(runDir) },
  });
  log(`workspace: ${workspace} (the stand-in br CLI is on the server's PATH)`);
  log(`server log: ${server.logFile}`);
  console.log(`\n  Open ${server.folderUrl()}\n  Press Ctrl-C to stop.\n`);
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
}
