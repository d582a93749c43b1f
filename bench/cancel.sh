#!/usr/bin/env bash
# What glibc adds to a cancellable call of a multi-threaded C program,
# beside what kdelta's sys.CancelWord (pipe:cancel=toggle) adds to its
# raw calls: read(fd, &b, 0) on a pipe on CPU 1, interleaved round by
# round, medians of the per-call additions and their ratio.
#
#   ./bench/cancel.sh [rounds]
#
# Needs gcc. With glibc 2.41 or later the C side adds almost nothing, and
# cancel=auto is none there.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-9}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gcc -O2 -Wall -o "$dir/cancel" bench/cancel/cancel.c -lpthread
go test -c -o "$dir/sys.test" ./internal/sys
echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
for ((i = 0; i < rounds; i++)); do
	taskset -c 1 "$dir/cancel" 2000000 1 | awk '{print "c", $8}'
	taskset -c 1 "$dir/sys.test" -test.run '^$' -test.bench '^BenchmarkCancelWord$' -test.count 1 |
		awk '/^BenchmarkCancelWord/ {for (f = 1; f < NF; f++) if ($(f+1) == "added-ns/call") print "go", $f}'
done >"$dir/added"
awk '
	{ v[$1, ++n[$1]] = $2 }
	function median(k,    i, j, t, m) {
		m = n[k]
		for (i = 1; i <= m; i++) a[i] = v[k, i]
		for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
	}
	END {
		c = median("c"); g = median("go")
		printf "added per call, median of %d rounds: glibc read() over syscall(2) %.2f ns, CancelWord %.2f ns, ratio %.2f\n", n["c"], c, g, (c ? g / c : 0)
	}' "$dir/added"
