// Preloaded (NODE_OPTIONS=--require) into every Node process an agent under test starts: when the
// process is our hook (`… dist/cli.js hook <agent> <event>`), it appends one JSON line to
// $BEADS_AGENT_HOOK_LOG at exit: the arguments, folder, exit code, what went to stdout, and the
// time from the process's start to its exit. The agents' own hook runners report these
// differently or not at all; this reads them the same way for every agent, without changing the
// installed hook command. Any other Node process is left alone.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const log = process.env.BEADS_AGENT_HOOK_LOG;
const script = process.argv[1] ?? '';
const args = process.argv.slice(2);
if (log && path.basename(script) === 'cli.js' && args[0] === 'hook') {
  const startedAt = performance.timeOrigin;
  const written = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return write(chunk, ...rest);
  };
  process.on('exit', (code) => {
    const endedAt = Date.now();
    const entry = { agent: args[1], event: args[2], cwd: process.cwd(), pid: process.pid, exitCode: code, stdout: written.join(''), startedAt, endedAt, durationMs: Math.round(endedAt - startedAt) };
    fs.appendFileSync(log, `${JSON.stringify(entry)}\n`);
  });
}
