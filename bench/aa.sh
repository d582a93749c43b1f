#!/usr/bin/env bash
# A/A check of kdelta's verdicts on this machine: runs k pairs of
# `kdelta run --quick` back to back (nothing changes between the two sets of
# a pair) and prints how many verdicts claimed a change (improved or
# regressed) out of how many comparisons. A trustworthy verdict claims few;
# a machine that drifts between the two runs of a pair makes it claim more.
#
#   ./bench/aa.sh [k]        (default 3 pairs)
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
claims=0 total=0 inconclusive=0
for i in $(seq 1 "$k"); do
	"$dir/kdelta" run --quick -o "$dir/a$i.json" >/dev/null 2>&1
	"$dir/kdelta" run --quick -o "$dir/b$i.json" >/dev/null 2>&1
	"$dir/kdelta" compare "$dir/a$i.json" "$dir/b$i.json" >"$dir/c$i.txt"
	# One "B vs A: change [interval] p verdict" line per workload and metric.
	t=$(grep -c ' vs A: ' "$dir/c$i.txt" || true)
	c=$(grep -cE ' vs A: .* (improved|regressed)$' "$dir/c$i.txt" || true)
	n=$(grep -cE ' vs A: .* inconclusive' "$dir/c$i.txt" || true)
	echo "pair $i: $c of $t verdicts claimed a change ($n inconclusive)"
	claims=$((claims + c)) total=$((total + t)) inconclusive=$((inconclusive + n))
done
echo "A/A: $claims of $total verdicts claimed a change over $k pairs ($inconclusive inconclusive)"
