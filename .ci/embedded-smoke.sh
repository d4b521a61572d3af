#!/usr/bin/env bash
# Starts the service the way the README does (no DATABASE_URL), writes through the API, restarts it
# on the same data folder and reads the write back; the restart must not recompile an up-to-date
# build, and a third start after a source change must run the changed code. Fails loudly at the
# first step that does not hold.
set -euo pipefail
cd "$(dirname "$0")/.."

data_dir=$(mktemp -d)
# A port the system says is free now: a fixed or random one in the ephemeral range can be the local
# end of a connection still open from the tests (seen once: EADDRINUSE on 39300).
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
log=$(mktemp)
pid=
main_source=src/main.ts
main_backup=$(mktemp)
cp -p "$main_source" "$main_backup"
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  # A fresh mtime, so that the next build looks at the restored file again.
  cp "$main_backup" "$main_source"
  rm -rf "$data_dir" "$log" "$main_backup"
}
trap cleanup EXIT

start() {
  DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 npm start --silent >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "embedded smoke: the service exited at start"; exit 1; }
    sleep 0.5
  done
  cat "$log"; echo "embedded smoke: the service did not become healthy"; exit 1
}

stop() {
  kill -TERM "$pid"
  wait "$pid" || { cat "$log"; echo "embedded smoke: the service did not exit cleanly on SIGTERM"; exit 1; }
  pid=
}

built_at() { date -r dist/main.js +%s%N; }

json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

start
grep -q "embedded PostgreSQL" "$log" || { cat "$log"; echo "embedded smoke: the start-up log does not say where data lives"; exit 1; }
# `npm start` runs on the Node that package.json pins, whatever this machine's own Node is.
pinned=$(node -p 'require("./package.json").devDependencies.node')
grep -q "(Node v$pinned)" "$log" || { cat "$log"; echo "embedded smoke: the service did not run on the pinned Node $pinned"; exit 1; }
key=$(curl -fsS -X POST "http://127.0.0.1:$port/v1/accounts" -H 'Content-Type: application/json' \
  -d '{"email":"smoke@example.com","password":"smoke-test-password"}' | json api_key)
timeline=$(curl -fsS -X POST "http://127.0.0.1:$port/v1/timelines" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d '{"name":"Smoke","destination_time":"1969-07-20T20:17:40Z"}' | json id)
stop

first_build=$(built_at)

start
name=$(curl -fsS "http://127.0.0.1:$port/timeline/$timeline" -H "Authorization: Bearer $key" | json name)
stop
[ "$name" = "Smoke" ] || { echo "embedded smoke: expected the timeline back after a restart, got '$name'"; exit 1; }
[ "$(built_at)" = "$first_build" ] || { echo "embedded smoke: npm start recompiled a build that was up to date"; exit 1; }

marker="embedded-smoke $(date +%s%N)"
printf '// %s\n' "$marker" >>"$main_source"
start
name=$(curl -fsS "http://127.0.0.1:$port/timeline/$timeline" -H "Authorization: Bearer $key" | json name)
stop
[ "$name" = "Smoke" ] || { echo "embedded smoke: expected the timeline back after a rebuild, got '$name'"; exit 1; }
grep -q "$marker" dist/main.js || { echo "embedded smoke: npm start did not recompile after a source changed"; exit 1; }
echo "embedded smoke: 1 passed, 0 failed"
