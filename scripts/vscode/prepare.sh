# Sourced by scripts/test-all.sh and scripts/demo.sh: installs the npm dependencies when
# node_modules is missing or older than package-lock.json, then the real VS Code runtime.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[prepare] npm ci"
  npm ci --no-audit --no-fund || return 1
fi
bash scripts/setup-vscode.sh
