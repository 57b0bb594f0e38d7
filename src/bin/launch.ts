// The `beads-recovery` executable (dist/cli.js): loads only what the command needs. An agent hook
// starts a new process for every event, so `hook` loads dist/hook.js (the hook, the recovery
// context, the checkpoint) and none of the rest of the command line, dist/main.js (installing
// hooks, the MCP server and its SDK, usage texts). Both are built beside this file (esbuild.mjs).
const entry = process.argv[2] === 'hook' ? './hook.js' : './main.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the build, loaded at run time and never bundled here
require(entry);
