#!/bin/sh
# Runs one Patroni node in the foreground with patroni.yml.template beside this script, rendered
# from the environment into TNS_HA_DIR (its folder: the rendered file, the pgpass, the sockets).
#   TNS_HA_SCOPE (tns), TNS_HA_NODE: the cluster's name and this node's, unique in it
#   TNS_HA_ETCD_HOSTS: etcd's client endpoints, host:port[,host:port...]
#   TNS_HA_PG_LISTEN, TNS_HA_PG_ADDRESS: where PostgreSQL listens, and how the others reach it
#   TNS_HA_REST_LISTEN, TNS_HA_REST_ADDRESS: the same for Patroni's REST API (HAProxy's checks)
#   TNS_HA_DATA_DIR: PostgreSQL's data folder; TNS_HA_PG_BIN: its programs (Debian's 15 by default)
#   TNS_HA_SUPERUSER (postgres), TNS_HA_SUPERUSER_PASSWORD, TNS_HA_REPLICATION_USER (replicator),
#   TNS_HA_REPLICATION_PASSWORD: the logins Patroni makes at bootstrap and uses
#   TNS_HA_REST_USER (patroni), TNS_HA_REST_PASSWORD: the login of the REST API's changes
#   TNS_HA_CLIENTS (127.0.0.1/32): the addresses allowed to connect, by password
#   TNS_HA_MAX_CONNECTIONS (100)
set -eu
: "${TNS_HA_NODE:?this node's name}" "${TNS_HA_ETCD_HOSTS:?etcd's endpoints}" "${TNS_HA_DIR:?its folder}"
: "${TNS_HA_PG_LISTEN:?where PostgreSQL listens}" "${TNS_HA_REST_LISTEN:?where Patroni's API listens}"
: "${TNS_HA_DATA_DIR:?the data folder}"
: "${TNS_HA_SUPERUSER_PASSWORD:?the superuser's password}" "${TNS_HA_REPLICATION_PASSWORD:?the replication password}"
: "${TNS_HA_REST_PASSWORD:?the REST API's password}"
export TNS_HA_SCOPE="${TNS_HA_SCOPE:-tns}"
export TNS_HA_PG_ADDRESS="${TNS_HA_PG_ADDRESS:-$TNS_HA_PG_LISTEN}"
export TNS_HA_REST_ADDRESS="${TNS_HA_REST_ADDRESS:-$TNS_HA_REST_LISTEN}"
export TNS_HA_PG_BIN="${TNS_HA_PG_BIN:-/usr/lib/postgresql/15/bin}"
export TNS_HA_SUPERUSER="${TNS_HA_SUPERUSER:-postgres}"
export TNS_HA_REPLICATION_USER="${TNS_HA_REPLICATION_USER:-replicator}"
export TNS_HA_CLIENTS="${TNS_HA_CLIENTS:-127.0.0.1/32}"
export TNS_HA_MAX_CONNECTIONS="${TNS_HA_MAX_CONNECTIONS:-100}"
# Patroni's own variables for the logins, read from its environment: never written to a file.
export PATRONI_SUPERUSER_USERNAME="$TNS_HA_SUPERUSER" PATRONI_SUPERUSER_PASSWORD="$TNS_HA_SUPERUSER_PASSWORD"
export PATRONI_REPLICATION_USERNAME="$TNS_HA_REPLICATION_USER" PATRONI_REPLICATION_PASSWORD="$TNS_HA_REPLICATION_PASSWORD"
export PATRONI_RESTAPI_USERNAME="${TNS_HA_REST_USER:-patroni}" PATRONI_RESTAPI_PASSWORD="$TNS_HA_REST_PASSWORD"
# Its folder (the rendered file, the pgpass Patroni writes, the sockets) is this user's alone.
umask 077
mkdir -p "$TNS_HA_DIR"
chmod 700 "$TNS_HA_DIR"
envsubst "$(env | sed -n 's/^\(TNS_HA_[A-Z_]*\)=.*/${\1}/p' | tr '\n' ' ')" \
  <"$(dirname "$0")/patroni.yml.template" >"$TNS_HA_DIR/patroni.yml"
exec "${PATRONI:-patroni}" "$TNS_HA_DIR/patroni.yml"
