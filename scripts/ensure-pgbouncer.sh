#!/usr/bin/env bash
# The connection-pooler test (tests/http/connection-pooler.server.test.ts) runs Debian's pgbouncer
# in front of the test PostgreSQL, configured by deploy/pgbouncer/start.sh (which uses envsubst).
# The test never uses the package's own service.
set -euo pipefail
# Like every *.server.test.ts, the test runs only against a PostgreSQL server.
[ -n "${DATABASE_URL:-}" ] || exit 0
source "$(dirname "$0")/debian-packages.sh"
pgbouncer="${PGBOUNCER:-/usr/sbin/pgbouncer}"
missing=()
[ -x "$pgbouncer" ] || missing+=(pgbouncer)
command -v envsubst >/dev/null 2>&1 || missing+=(gettext-base)
install_debian_packages 'the connection-pooler test' "set PGBOUNCER to a pgbouncer other than $pgbouncer" "${missing[@]}"
