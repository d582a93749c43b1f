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
# perf's thread loop with raw calls, for the "(C with raw calls)" pair, and
# messaging's process mode in C, for the "(static C)" and "(dynamic C)"
# pairs (the static build needs libc6-dev's libc.a).
c=$(dirname "$bin")
if command -v gcc >/dev/null; then
	gcc -O2 -o "$c/pingpong" bench/fidelity/pingpong/pingpong.c -lpthread
	gcc -O2 -static -o "$c/msgc-static" bench/fidelity/msgc/msgc.c
	gcc -O2 -o "$c/msgc-dynamic" bench/fidelity/msgc/msgc.c
fi
go run ./bench/fidelity -kdelta "$bin" -pingpong "$c/pingpong" -msgc-static "$c/msgc-static" -msgc-dynamic "$c/msgc-dynamic" "$@"
