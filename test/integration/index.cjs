// Entry point the extension host requires (extensionTestsPath): runs every *.test.cjs file with
// Mocha. Each file registers its suites only for the scenarios it covers (see scenario.cjs);
// BEADS_IT_GREP narrows the run to the tests whose full title matches it.
// The extension host's console never reaches the driver, so the reporter output is also written to
// BEADS_IT_OUTPUT and the counts to BEADS_IT_RESULT.
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const Mocha = require('mocha');

function run() {
  const outputFile = process.env.BEADS_IT_OUTPUT;
  const resultFile = process.env.BEADS_IT_RESULT;
  const print = Mocha.reporters.Base.consoleLog;
  Mocha.reporters.Base.consoleLog = (...parts) => {
    if (outputFile) fs.appendFileSync(outputFile, `${util.format(...parts)}\n`);
    print(...parts);
  };
  const writeResult = (result) => {
    if (resultFile) fs.writeFileSync(resultFile, JSON.stringify(result));
  };

  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 30_000, grep: process.env.BEADS_IT_GREP });
  for (const file of fs.readdirSync(__dirname).filter((name) => name.endsWith('.test.cjs')).sort()) {
    mocha.addFile(path.join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        writeResult({ passes: runner.stats.passes, failures, pending: runner.stats.pending });
        if (failures > 0) reject(new Error(`${failures} integration tests failed`));
        else resolve();
      });
    } catch (error) {
      writeResult({ passes: 0, failures: 1, error: String(error.stack ?? error) });
      if (outputFile) fs.appendFileSync(outputFile, `Loading the tests failed: ${error.stack ?? error}\n`);
      reject(error);
    }
  });
}

module.exports = { run };
