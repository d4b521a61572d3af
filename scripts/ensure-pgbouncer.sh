#!/usr/bin/env bash
# The connection-pooler test (tests/http/connection-pooler.server.test.ts) runs Debian's pgbouncer in
# front of the test PostgreSQL, configured by deploy/pgbouncer/start.sh (which uses envsubst).
# Installs both when this machine can (root with apt-get, as on CI); otherwise says what to install
# and stops, as ensure-nginx.sh does. The test never uses the package's own service.
set -euo pipefail
# Like every *.server.test.ts, the test runs only against a PostgreSQL server.
[ -n "${DATABASE_URL:-}" ] || exit 0
pgbouncer="${PGBOUNCER:-/usr/sbin/pgbouncer}"
missing=()
[ -x "$pgbouncer" ] || missing+=(pgbouncer)
command -v envsubst >/dev/null 2>&1 || missing+=(gettext-base)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's ${missing[*]} for the connection-pooler test..." >&2
  # Wait for another apt run (a parallel install) rather than fail on its lock.
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "The connection-pooler test needs ${missing[*]}: install Debian's '${missing[*]}' package(s) (pgbouncer at $pgbouncer, or set PGBOUNCER)." >&2
exit 1
