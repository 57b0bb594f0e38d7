#!/usr/bin/env bash
# The real-agent suite (`npm run test:agents`, and a suite of `npm test`): installs the pinned agent
# CLIs (scripts/setup-agents.sh), builds dist/ (the hooks under test), and runs test/agents under
# vitest with its own config, two files at a time (an agent mostly waits on its own start-up).
# Pending tests (it.todo, each with its reason) count as neither. Ends with the plain line
# "N passed, N failed". The hook's start-up cost is a benchmark (`npm run bench agents`), not a test.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-agents.sh || { echo "0 passed, 1 failed"; exit 1; }
npm run -s build || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p test-results
report=test-results/agents.json
rm -f "$report"
npx vitest run --config test/agents/vitest.config.mts --fileParallelism --maxWorkers=2 \
  --reporter=default --reporter=json --outputFile.json="$report"
status=$?
counts=$(node -e '
  const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);' "$report" 2>/dev/null) || counts="0 passed, 1 failed"
echo "$counts"
exit $status
