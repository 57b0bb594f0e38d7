#!/usr/bin/env bash
# The real-agent suite (`npm run test:agents`, and a suite of `npm test`): installs the pinned agent
# CLIs (scripts/setup-agents.sh), builds dist/ (the hooks under test), and runs test/agents under
# vitest with its own config. Pending tests (it.todo, each with its reason) count as neither.
# Ends with the plain line "N passed, N failed" (both runs together).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-agents.sh || { echo "0 passed, 1 failed"; exit 1; }
npm run -s build || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p test-results
scenarios=test-results/agents.json
startup=test-results/agents-startup.json
rm -f "$scenarios" "$startup"
# The scenarios two files at a time (an agent mostly waits on its own start-up), then the start-up
# cost alone, so nothing else runs while it is timed.
npx vitest run --config test/agents/vitest.config.mts --exclude test/agents/startup.test.ts --fileParallelism --maxWorkers=2 \
  --reporter=default --reporter=json --outputFile.json="$scenarios"
scenarios_status=$?
npx vitest run --config test/agents/vitest.config.mts test/agents/startup.test.ts \
  --reporter=default --reporter=json --outputFile.json="$startup"
startup_status=$?
counts=$(node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  for (const file of process.argv.slice(1)) {
    const report = JSON.parse(fs.readFileSync(file, "utf8"));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
  }
  console.log(`${passed} passed, ${failed} failed`);' "$scenarios" "$startup" 2>/dev/null) || counts="0 passed, 1 failed"
echo "$counts"
[ "$scenarios_status" = 0 ] && [ "$startup_status" = 0 ]
