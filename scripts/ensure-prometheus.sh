#!/usr/bin/env bash
# The metrics tests run Debian's Prometheus: `promtool` checks and unit-tests the shipped alert
# rules (deploy/prometheus/), and a Prometheus server scrapes a service of two workers
# (tests/http/prometheus-scrape.server.test.ts). The package's own service is never used.
set -euo pipefail
source "$(dirname "$0")/debian-packages.sh"
missing=()
command -v "${PROMETHEUS:-prometheus}" >/dev/null 2>&1 || missing+=(prometheus)
command -v "${PROMTOOL:-promtool}" >/dev/null 2>&1 || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] || install_debian_packages 'the metrics tests' 'set PROMETHEUS and PROMTOOL to their programs' prometheus
