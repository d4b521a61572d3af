#!/usr/bin/env bash
# The reverse-proxy test (tests/http/reverse-proxy.test.ts) runs Debian's nginx in front of the
# service, with a self-signed certificate made by openssl. The test never uses the package's own
# service: on a machine with systemd, installing Debian's nginx also starts that on port 80.
set -euo pipefail
source "$(dirname "$0")/debian-packages.sh"
nginx="${NGINX_PATH:-/usr/sbin/nginx}"
missing=()
[ -x "$nginx" ] || missing+=(nginx)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
install_debian_packages 'the reverse-proxy test' "set NGINX_PATH to an nginx other than $nginx" "${missing[@]}"
