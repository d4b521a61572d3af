#!/usr/bin/env bash
# The browser test (tests/e2e) drives Debian's Chromium, never a browser download of its own.
set -euo pipefail
source "$(dirname "$0")/debian-packages.sh"
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
install_debian_packages 'the browser test' "set CHROMIUM_PATH to a Chromium other than $chromium" chromium
