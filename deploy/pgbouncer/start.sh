#!/bin/sh
# Runs PgBouncer in the foreground with pgbouncer.ini.template beside this script, rendered from the
# environment into TNS_PGBOUNCER_DIR (default /tmp/pgbouncer), with the auth file for one user.
#   TNS_SERVER_HOST, TNS_SERVER_PORT (5432), TNS_DATABASE: the PostgreSQL server and database
#   TNS_DATABASE_USER, TNS_DATABASE_PASSWORD: the login clients use here and PgBouncer uses there
#   TNS_LISTEN_ADDR (*), TNS_LISTEN_PORT (6432), TNS_STATEMENT_TIMEOUT_MS (5000)
set -eu
: "${TNS_SERVER_HOST:?the PostgreSQL server}" "${TNS_DATABASE:?the database}"
: "${TNS_DATABASE_USER:?the login}" "${TNS_DATABASE_PASSWORD:?its password}"
export TNS_SERVER_PORT="${TNS_SERVER_PORT:-5432}"
export TNS_LISTEN_ADDR="${TNS_LISTEN_ADDR:-*}"
export TNS_LISTEN_PORT="${TNS_LISTEN_PORT:-6432}"
export TNS_STATEMENT_TIMEOUT_MS="${TNS_STATEMENT_TIMEOUT_MS:-5000}"
dir="${TNS_PGBOUNCER_DIR:-/tmp/pgbouncer}"
mkdir -p "$dir"
export TNS_AUTH_FILE="$dir/userlist.txt"
# The password file readable by this user alone; a double quote in a value is doubled, as PgBouncer reads it.
(
  umask 077
  printf '"%s" "%s"\n' "$(printf '%s' "$TNS_DATABASE_USER" | sed 's/"/""/g')" \
    "$(printf '%s' "$TNS_DATABASE_PASSWORD" | sed 's/"/""/g')" >"$TNS_AUTH_FILE"
)
# Only the ${TNS_...} names: nothing else in the file is touched.
envsubst '${TNS_DATABASE} ${TNS_SERVER_HOST} ${TNS_SERVER_PORT} ${TNS_STATEMENT_TIMEOUT_MS} ${TNS_LISTEN_ADDR} ${TNS_LISTEN_PORT} ${TNS_AUTH_FILE}' \
  <"$(dirname "$0")/pgbouncer.ini.template" >"$dir/pgbouncer.ini"
exec "${PGBOUNCER:-pgbouncer}" "$dir/pgbouncer.ini"
