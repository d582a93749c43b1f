#!/usr/bin/env bash
# Runs every kdelta workload beside its C reference, interleaved, and prints
# median ratios and per-operation kernel work (see bench/fidelity/main.go).
#
#   ./bench/fidelity.sh [-pairs N] [-only syscall,pipe,messaging,kill] [-passes default,fifo] [-fifo 98] [-rounds 3]
#
# By default every pair runs at default scheduling, then the pinned ones
# under SCHED_FIFO 98; the output ends with the README table.
#
# Needs perf (linux-perf) and stress-ng; run as root so perf can count
# tracepoints.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/kdelta
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/kdelta
# perf's thread loop with raw calls, for the "(C with raw calls)" pair.
pingpong=$(dirname "$bin")/pingpong
if command -v gcc >/dev/null; then
	gcc -O2 -o "$pingpong" bench/fidelity/pingpong/pingpong.c -lpthread
fi
go run ./bench/fidelity -kdelta "$bin" -pingpong "$pingpong" "$@"
