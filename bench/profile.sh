#!/usr/bin/env bash
# What perf record costs a measured run (why kdelta run --profile keeps its
# profiled runs out of the statistics): interleaved runs with and without
# perf record, the median ratio and its 95% interval (see
# bench/profile/main.go). Needs perf and the right to use it (root, or
# perf_event_paranoid <= 1).
#
#   ./bench/profile.sh [-pairs 15] [-g] [-freq HZ]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/profile-bench
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./bench/profile
"$bin" "$@"
