#!/usr/bin/env bash
# The lean guest (issue 36): the size of the guest's /init, kdelta against
# kdelta-guest (static, linux/amd64), and the wall time of one kdelta vm
# command to its result set under TCG, the same host kdelta booting the
# test kernel with either binary as /init, interleaved, N boots each
# (default 7). Prints each boot with the load average, then the medians
# and their ratio.
#
#   ./bench/guest.sh [N]     (the kernel: $KDELTA_TEST_KERNEL or the one
#                             scripts/vm-kernel.sh left in the cache)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-7}
kernel=${KDELTA_TEST_KERNEL:-$(ls "${XDG_CACHE_HOME:-$HOME/.cache}"/kdelta/kernels/*-amd64/boot/vmlinuz-* | sort | tail -1)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$dir/kdelta" ./cmd/kdelta
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$dir/kdelta-guest" ./cmd/kdelta-guest
echo "size: kdelta $(stat -c %s "$dir/kdelta") bytes, kdelta-guest $(stat -c %s "$dir/kdelta-guest") bytes"
for i in $(seq 1 "$n"); do
	for g in kdelta kdelta-guest; do
		t0=$(date +%s.%N)
		"$dir/kdelta" vm --kernel "$kernel" --accel tcg --no-store --guest-binary "$dir/$g" -o "$dir/out-$g-$i" \
			-- run syscall:calls=1000 -r 1 --warmup 0 >"$dir/log" 2>&1 || { cat "$dir/log" >&2; exit 1; }
		t1=$(date +%s.%N)
		echo "$g $i $(echo "$t1 - $t0" | bc) load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$dir/times"
	done
done
awk '{t[$1]=t[$1]" "$3} END {for (g in t) print g, t[g]}' "$dir/times" | while read -r g ts; do
	echo "$g median $(echo "$ts" | tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}') s"
done
