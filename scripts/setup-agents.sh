#!/usr/bin/env bash
# Installs, from the npm registry only, the agent CLIs the real-agent suite (test/agents) drives, at
# pinned versions, into $BEADS_RECOVERY_CACHE/agents (default ~/.cache/beads-recovery/agents).
# Each package ships its native binary as an npm optional dependency (Claude Code, Codex, Copilot
# CLI, opencode) or is plain JavaScript (Gemini CLI), so nothing is fetched from another host.
# A second run with the same versions only checks a marker file: well under a second.
set -euo pipefail
# Under `npm test` this script inherits npm's per-script environment; the nested install must see
# only its own settings.
while read -r name; do unset "$name"; done < <(compgen -e | grep -i '^npm_' || true)
CACHE="${BEADS_RECOVERY_CACHE:-$HOME/.cache/beads-recovery}"
DIR="$CACHE/agents"
# The versions the suite exercised; README's agent table names the same ones (keep them together).
PACKAGES=(
  @anthropic-ai/claude-code@2.1.332
  @openai/codex@0.171.0
  @google/gemini-cli@0.61.0
  @github/copilot@1.0.102
  opencode-ai@1.18.33
)
MARKER="$DIR/.installed-$(printf '%s\n' "${PACKAGES[@]}" | cksum | cut -d' ' -f1)"
if [ -f "$MARKER" ]; then
  echo "[setup-agents] agent CLIs ready in $DIR"
  exit 0
fi
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
echo "[setup-agents] installing ${PACKAGES[*]} (about half a minute)"
rm -rf "$DIR" && mkdir -p "$DIR"
echo '{"name":"beads-recovery-agents","private":true}' > "$DIR/package.json"
# --foreground-scripts: the postinstalls (Claude Code's and opencode's link their platform binary;
# Gemini CLI's optional node-pty compiles) print where they fail.
(cd "$DIR" && npm install --no-package-lock --foreground-scripts "${PACKAGES[@]}" >"$DIR/install.log" 2>&1) \
  || { tail -60 "$DIR/install.log"; echo "[setup-agents] npm install failed; full log: $DIR/install.log"; exit 1; }
for bin in claude codex gemini copilot opencode; do
  [ -x "$DIR/node_modules/.bin/$bin" ] || { echo "[setup-agents] $bin is missing after the install; see $DIR/install.log"; exit 1; }
done
touch "$MARKER"
echo "[setup-agents] agent CLIs ready in $DIR"
