// Preloaded (node --require) into untimed hook runs of scripts/bench/hookStartup.mjs: notes when
// each part of one hook start happens, so the bench can say what the start costs part by part
// without a line of tracing in the hook itself. Written as JSON to $BENCH_TRACE_LOG at exit, every
// time in ms since the process began (performance.now()):
//   preload   when this file ran: node's own start-up is over, the hook's entry not begun
//   load      the work bundle's compile and first run (dist/hookWork.js, through vm.Script)
//   processes each program started (git, br, bd): its start and its exit
//   fsyncs    each fsync, and how long it took (durable writes: the session records, the ledger)
//   locks     each lock directory made (io/fileLock.ts)
//   answer    the first write to stdout (the agent's answer); exit: the process's end
'use strict';
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { performance } = require('node:perf_hooks');

const log = process.env.BENCH_TRACE_LOG;
if (log) {
  const trace = { preload: performance.now(), load: [], processes: [], fsyncs: [], locks: 0, answer: undefined, exit: undefined };

  const { runInThisContext } = vm.Script.prototype;
  const OriginalScript = vm.Script;
  // The compile (with the code cache) happens in the constructor, the module's top level in runInThisContext.
  vm.Script = class TracedScript extends OriginalScript {
    constructor(...args) {
      const started = performance.now();
      super(...args);
      this.traceStarted = started;
    }
  };
  vm.Script.prototype.runInThisContext = function traced(...args) {
    const result = runInThisContext.apply(this, args);
    trace.load.push({ start: this.traceStarted ?? performance.now(), end: performance.now() });
    return result;
  };

  const spawn = childProcess.ChildProcess.prototype.spawn;
  childProcess.ChildProcess.prototype.spawn = function traced(options) {
    const entry = { program: path.basename(String(options?.file ?? '')), start: performance.now(), end: undefined };
    trace.processes.push(entry);
    this.once('exit', () => (entry.end = performance.now()));
    return spawn.call(this, options);
  };

  // Durable writes fsync through a FileHandle (io/atomicWrite.ts): its prototype, from a handle opened here.
  void fs.promises.open(process.execPath).then((handle) => {
    const prototype = Object.getPrototypeOf(handle);
    const sync = prototype.sync;
    prototype.sync = async function traced(...args) {
      const started = performance.now();
      try {
        return await sync.apply(this, args);
      } finally {
        trace.fsyncs.push({ start: started, end: performance.now() });
      }
    };
    return handle.close();
  });

  const mkdir = fs.promises.mkdir;
  fs.promises.mkdir = function traced(target, ...rest) {
    if (String(target).endsWith('.lock')) trace.locks += 1;
    return mkdir.call(fs.promises, target, ...rest);
  };

  const write = process.stdout.write;
  process.stdout.write = function traced(...args) {
    trace.answer ??= performance.now();
    return write.apply(this, args);
  };

  process.on('exit', () => {
    trace.exit = performance.now();
    fs.writeFileSync(log, JSON.stringify(trace));
  });
}
