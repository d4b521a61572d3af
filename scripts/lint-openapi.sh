#!/usr/bin/env bash
# npm run lint:openapi
#
# Lints the OpenAPI document the service serves (built from the route table, no database needed)
# with Redocly (redocly.yaml) and Spectral (.spectral.yaml); fails on any error or warning of
# either. Both run offline.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
document="$dir/openapi.json"
node_modules/.bin/tsx scripts/openapi-document.ts "$document"
# No usage report, no update check: the linters run where there is no network.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  node_modules/.bin/redocly lint "$document" --config redocly.yaml --format=stylish --max-problems=1000
node_modules/.bin/spectral lint "$document" --ruleset .spectral.yaml --fail-severity=warn --quiet
echo "lint:openapi: no problems (Redocly, Spectral)"
