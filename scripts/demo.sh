#!/usr/bin/env bash
# Serves the packaged extension in a real VS Code on a demo workspace (issue demo-1 in progress,
# the stand-in br CLI on PATH): open the printed URL in a browser. PORT sets the port (13370).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/vscode/prepare.sh
npm run build
npm run package
exec node scripts/run-vscode.mjs --demo
