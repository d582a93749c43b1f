#!/usr/bin/env bash
# What counters and monitors cost a run: interleaved runs with and without
# them, the median ratio and its 95% interval (see bench/overhead/main.go).
#
#   ./bench/overhead.sh [-pairs 15] [-cpus LIST] [-fifo PRIO]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/kdelta
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/kdelta
go run ./bench/overhead -kdelta "$bin" "$@"
