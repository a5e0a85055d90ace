#!/usr/bin/env bash
# Installs what the browser tests (CTest label `ui`, tests/ui/) need: Debian's chromium and
# chromium-driver, Node.js and npm, and the npm packages pinned in tests/ui/package-lock.json
# (playwright-core, which drives the Debian chromium, and axe-core) into tests/ui/node_modules.
# Idempotent: installs only what is missing, reruns `npm ci` only when node_modules is
# missing or was installed from another package-lock.json, and prints nothing when all is
# present. Uses sudo when not root. Neither the build nor `frugal` needs any of this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages, checked one by one as scripts/setup.sh does. Node.js and npm count as
# present when their commands are (a Node.js from elsewhere, e.g. NodeSource's, bundles npm
# and conflicts with Debian's npm package).
PKGS=(chromium chromium-driver)
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "ui-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages: `npm ci` from the lock file when node_modules is absent or stale (the lock
# file's digest is kept beside the packages it installed).
dir=tests/ui
stamp=$dir/node_modules/.frugal-lock.sha256
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] ||
   [ ! -f "$dir/node_modules/playwright-core/package.json" ] ||
   [ ! -f "$dir/node_modules/axe-core/axe.min.js" ]; then
  echo "ui-deps: npm ci in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
fi
