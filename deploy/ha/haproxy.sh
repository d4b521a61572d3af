#!/bin/sh
# Runs HAProxy in the foreground with haproxy.cfg.template beside this script, rendered from the
# environment into TNS_HA_PROXY_DIR (default /tmp/tns-haproxy).
#   TNS_HA_PROXY_LISTEN: where the service connects, host:port (the service's DATABASE_URL)
#   TNS_HA_SERVERS: the cluster's nodes, space-separated name=host:pg-port:rest-port
#     (PostgreSQL's port, and Patroni's REST API port on the same host)
#   TNS_HA_PROXY_MAXCONN (1000)
set -eu
: "${TNS_HA_PROXY_LISTEN:?where the service connects}" "${TNS_HA_SERVERS:?the nodes, name=host:pg-port:rest-port}"
export TNS_HA_PROXY_MAXCONN="${TNS_HA_PROXY_MAXCONN:-1000}"
dir="${TNS_HA_PROXY_DIR:-/tmp/tns-haproxy}"
mkdir -p "$dir"
lines=""
for server in $TNS_HA_SERVERS; do
  name="${server%%=*}"
  address="${server#*=}"
  rest="${address##*:}"
  postgres="${address%:*}"
  lines="$lines    server $name $postgres check port $rest
"
done
export TNS_HA_SERVER_LINES="$lines"
envsubst '${TNS_HA_PROXY_LISTEN} ${TNS_HA_PROXY_MAXCONN} ${TNS_HA_SERVER_LINES}' \
  <"$(dirname "$0")/haproxy.cfg.template" >"$dir/haproxy.cfg"
exec "${HAPROXY:-haproxy}" -W -db -f "$dir/haproxy.cfg"
