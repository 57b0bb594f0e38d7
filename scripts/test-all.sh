#!/usr/bin/env bash
# The project's test command (`npm test`): type check, lint, build, package, unit tests, the hook
# commands in Wine's cmd.exe (Windows), then the extension in a real VS Code (integration tests in
# the extension host, UI tests in the workbench), then the real agent CLIs against model stand-ins
# (test/agents).
# Every suite runs even when an earlier one fails. Logs go to test-results/<suite>.log; a summary
# table and the combined "N passed, N failed" line come last, and the exit code is non-zero if
# anything failed. A check that has no test count (type check, lint, build, package) counts as one.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/vscode/prepare.sh || { echo "Preparing the dependencies failed."; echo "0 passed, 1 failed"; exit 1; }

results=test-results
mkdir -p "$results"
rows=()
total_passed=0
total_failed=0

# run_suite NAME COUNTING COMMAND...   COUNTING: check | vitest:REPORT (vitest's JSON report, in test-results)
#                                     | tally ("N passed, N failed" last line)
run_suite() {
  local name=$1 counting=$2
  shift 2
  local log="$results/$name.log" started=$SECONDS passed=0 failed=0 counts
  echo
  echo "=== $name: $*"
  "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  case $counting in
    check) [ "$status" = 0 ] && passed=1 ;;
    vitest:*) counts=$(node -e '
      const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      console.log(report.numPassedTests, report.numFailedTests);' "$results/${counting#vitest:}" 2>/dev/null) \
        && read -r passed failed <<<"$counts" ;;
    tally) counts=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)
      [ -n "$counts" ] && read -r passed failed <<<"$counts" ;;
  esac
  # A failing command always counts as at least one failure, even when it reported none.
  if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  local verdict=ok
  [ "$failed" = 0 ] || verdict=FAILED
  rows+=("$(printf '%-12s %-7s %7s %7s %6ss' "$name" "$verdict" "$passed" "$failed" "$((SECONDS - started))")")
}

# No stale report or package: a suite that fails to produce them must not pass on old ones.
rm -f "$results"/vitest*.json "$results/faults.json" dist/beads-recovery.vsix
run_suite typecheck check npm run typecheck
run_suite lint check npm run lint
run_suite build check npm run build
run_suite package check npm run package
run_suite openvsx check node scripts/check-openvsx.mjs dist/beads-recovery.vsix
# The unit tests in their lanes (vitest.config.mts): the fast lane, the tests that start processes,
# and the randomized fault tests that keep both cores busy.
for lane in fast processes randomized; do
  run_suite "unit-$lane" "vitest:vitest-$lane.json" npx vitest run --project "$lane" --reporter=default --reporter=json --outputFile.json="$results/vitest-$lane.json"
done
# The model-based randomized test of the write path (test/faults): minutes, both cores busy, so not in the unit suite.
run_suite faults vitest:faults.json npx vitest run --config test/faults/vitest.config.mts --reporter=default --reporter=json --outputFile.json="$results/faults.json"
# The hook commands and the launcher in Wine's cmd.exe, as each agent's runner hands them over on
# Windows (test/windows): installs Wine from apt the first time (about 40 s), then about 10 s.
run_suite windows tally bash scripts/test-windows.sh
run_suite integration tally node scripts/run-vscode.mjs --integration
run_suite e2e tally node scripts/run-vscode.mjs --e2e
run_suite agents tally bash scripts/test-agents.sh

echo
printf '%-12s %-7s %7s %7s %7s\n' suite result passed failed time
printf '%s\n' "${rows[@]}"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
