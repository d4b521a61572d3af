#!/usr/bin/env bash
# The browser test (tests/e2e) drives Debian's Chromium, never a browser download of its own.
# Installs it when this machine can (root with apt-get, as on CI and fresh service machines);
# otherwise says what to install.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser test..." >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser test needs Chromium at $chromium: install Debian's 'chromium' package, or set CHROMIUM_PATH." >&2
exit 1
