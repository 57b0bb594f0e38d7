// The stand-in for dist/cli.js that the launcher under test starts: says what it was given.
const { readFileSync } = require('node:fs');

process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), stdin: readFileSync(0, 'utf8'), electronRunAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));
process.exitCode = Number(process.env.PROBE_EXIT_CODE ?? 0);
