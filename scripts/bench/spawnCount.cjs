// Preloaded (node --require) into one untimed hook run of scripts/bench/hookStartup.mjs: appends
// the name of every program the process starts to $BENCH_SPAWN_LOG, one per line, so the bench can
// say how many git and beads processes a hook start costs.
'use strict';
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const log = process.env.BENCH_SPAWN_LOG;
if (log) {
  const spawn = childProcess.ChildProcess.prototype.spawn;
  childProcess.ChildProcess.prototype.spawn = function spawnCounted(options) {
    fs.appendFileSync(log, `${path.basename(String(options?.file ?? ''))}\n`);
    return spawn.call(this, options);
  };
}
