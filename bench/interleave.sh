#!/usr/bin/env bash
# What interleaving buys: the A/A knob test (two kdelta ab variants that
# set the same value) run k times interleaved (A B A B ...) and k times in
# blocks (all of A, then all of B), printing the spread of the measured
# difference in each order (see bench/interleave/main.go). Needs root: the
# variants write a kernel knob, which kdelta puts back.
#
#   ./bench/interleave.sh [-k 5] [-r 6] [-workload rcu:calls=20] [-metric mean]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/kdelta
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/kdelta
go run ./bench/interleave -kdelta "$bin" "$@"
