#!/usr/bin/env bash
# The failover test (tests/http/failover.server.test.ts) runs Debian's Patroni, etcd and HAProxy as
# deploy/ha/ configures them, and PgBouncer in front as deploy/pgbouncer does, around the machine's
# PostgreSQL 15 programs. CI runs this before `npm test`; elsewhere the test is skipped, saying what
# is missing; `npm run bench:failover` needs them too. The packages' own services are never used.
set -euo pipefail
source "$(dirname "$0")/debian-packages.sh"
missing=()
[ -x /usr/lib/postgresql/15/bin/pg_rewind ] || missing+=(postgresql-15)
[ -x /usr/bin/patroni ] || missing+=(patroni)
[ -x /usr/bin/etcd ] || missing+=(etcd-server)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v envsubst >/dev/null 2>&1 || missing+=(gettext-base)
install_debian_packages 'the failover test' "run it as root on a machine with apt-get" "${missing[@]}"
