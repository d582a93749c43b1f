#!/usr/bin/env bash
# Compares kdelta's pgbench workload with pgbench run by hand against an
# identical private server (same binaries, settings, scale, clients, threads
# and duration), interleaved pair by pair, and prints the median ratio of
# tps kdelta/by hand (target within ±10%) with each side's median and CV
# (see bench/pgbench/main.go).
#
#   ./bench/pgbench.sh [-pairs 5] [-scale 1] [-clients 2] [-jobs 2] [-duration 5] [-script select-only]
#
# Needs PostgreSQL (Debian package postgresql); as root, both servers run as
# the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/kdelta
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/kdelta
go run ./bench/pgbench -kdelta "$bin" "$@"
