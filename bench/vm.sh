#!/usr/bin/env bash
# Time from `kdelta vm` to a result set: boots the test kernel under TCG
# and runs `syscall -r 1` inside (the workload's defaults, one warm-up and
# one measured run), n times, and prints each wall time and their median.
# The guest's own boot-to-result time is printed by kdelta on stderr.
#
#   ./bench/vm.sh [n] [KERNEL]   (default 3 runs; KERNEL defaults to
#                                 $KDELTA_TEST_KERNEL, else the kernel that
#                                 scripts/vm-kernel.sh fetches)
#
# ACCEL=auto ./bench/vm.sh includes the KVM probe (remembered after its
# first failure on a host; see kdelta vm --help). RUN="syscall:calls=1000
# -r 1 --warmup 0" ./bench/vm.sh measures what a boot costs beyond the
# workload: qemu, the kernel's boot, the fingerprint, the way home.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
kernel=${2:-${KDELTA_TEST_KERNEL:-}}
if [ -z "$kernel" ]; then
	kernel=$(scripts/vm-kernel.sh)
fi
accel=${ACCEL:-tcg}
read -r -a run <<<"${RUN:-syscall -r 1}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
times=()
for i in $(seq 1 "$n"); do
	start=$(date +%s.%N)
	"$dir/kdelta" vm --accel "$accel" --kernel "$kernel" --no-store -o "$dir/out$i" -- run "${run[@]}" \
		>"$dir/show$i.txt" 2>"$dir/err$i.txt"
	end=$(date +%s.%N)
	t=$(echo "$end - $start" | bc)
	times+=("$t")
	ns=$(awk '/ns\/call/ {print $3; exit}' "$dir/show$i.txt")
	guest=$(grep -o 'result in [0-9.]* s' "$dir/err$i.txt" || true)
	printf 'run %d: %.1f s (qemu start to %s; %s ns/call emulated)\n' "$i" "$t" "$guest" "${ns:-no}"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
printf 'kdelta vm --accel %s -- run %s: median %.1f s over %d runs (load average %s)\n' \
	"$accel" "${run[*]}" "$median" "$n" "$(cut -d' ' -f1 /proc/loadavg)"
