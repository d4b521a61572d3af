#!/usr/bin/env bash
# The reverse-proxy test (tests/http/reverse-proxy.test.ts) runs Debian's nginx in front of the
# service, with a self-signed certificate made by openssl. Installs both when this machine can (root
# with apt-get, as on CI); otherwise says what to install and stops, as ensure-chromium.sh does (run
# alone, the test fails with the same message). The test never uses the package's own service: on a
# machine with systemd, installing Debian's nginx also starts that on port 80.
set -euo pipefail
nginx="${NGINX_PATH:-/usr/sbin/nginx}"
missing=()
[ -x "$nginx" ] || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's ${missing[*]} for the reverse-proxy test..." >&2
  # Wait for another apt run (a parallel install) rather than fail on its lock.
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The reverse-proxy test needs ${missing[*]}: install Debian's '${missing[*]}' package(s) (nginx at $nginx, or set NGINX_PATH)." >&2
exit 1
