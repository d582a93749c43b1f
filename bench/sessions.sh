#!/usr/bin/env bash
# Session noise on this machine, issue 15's acceptance 2: two kernels are
# two sessions, and two sessions of one kernel differ by more than their
# runs. The script calibrates the host (kdelta calibrate, N A/A sessions),
# then runs k back-to-back A/A pairs of separate `kdelta run` invocations of
# syscall and pipe (nothing changes between the two sets of a pair) and
# compares each pair twice: without the calibration (a store that has none)
# and with it. It prints, for each, how many of the primary verdicts (each
# benchmark's first metric) claimed a change: without the calibration every
# verdict rests on the prior session noise for a virtual machine, which it
# names ("session noise ±10.0% assumed for a virtual machine"); with the
# calibration, on the noise measured. Either way at most α of them should
# claim one. Then, as root with a
# cgroup cpu controller, a real effect across sessions: a set under a CPU
# quota of half a CPU against one just before it, both in cgroups of the
# largest weight (which it makes, then removes), calibrated: about +100% on
# both, regressed. It stops by itself, after about (2N + 2k + 2) × 9 runs
# of each workload.
#
#   ./bench/sessions.sh [k] [N]        (default 10 pairs, 8 sessions)
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-10}
sessions=${2:-8}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT # and the cgroups, below
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
work=(syscall:calls=3000000 pipe:loops=20000,cpus=same)
flags=(-r 8 --cpus 0 --timeout 5m)
calibrated="$dir/calibrated.db"
# when says the time of day and the load average, which the figures depend on.
when() { echo "$(date -u +%H:%M) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "start: $(when)"
echo "kdelta calibrate ${work[*]} -r 8 --cpus 0 --sessions $sessions"
KDELTA_STORE=$calibrated "$dir/kdelta" calibrate "${work[@]}" -r 8 --cpus 0 --sessions "$sessions" 2>/dev/null

# primary prints the change and the verdict of each benchmark's first
# metric of a Markdown comparison, one a line: the rows of its table after
# the header.
primary() {
	awk -F'|' '/^\| / { w = $2; gsub(/^ +| +$/, "", w); if (w == "workload" || w ~ /^-+$/ || w in seen) next; seen[w] = 1
		c = $6; v = $9; gsub(/^ +| +$/, "", c); gsub(/^ +| +$/, "", v); print c " " v }' "$1"
}

declare -A claims=() total=() unknown=()
for i in $(seq 1 "$k"); do
	for s in a b; do
		"$dir/kdelta" run "${work[@]}" "${flags[@]}" --no-store -o "$dir/$s$i.json" >/dev/null 2>&1
	done
	for how in without with; do
		store="$dir/none.db"
		[ "$how" = with ] && store=$calibrated
		KDELTA_STORE=$store "$dir/kdelta" compare "$dir/a$i.json" "$dir/b$i.json" --format markdown >"$dir/c$i-$how.md" 2>/dev/null
		primary "$dir/c$i-$how.md" >"$dir/v$i-$how.txt"
		t=$(wc -l <"$dir/v$i-$how.txt")
		c=$(grep -cE '^[^ ]+ (improved|regressed)' "$dir/v$i-$how.txt" || true)
		u=$(grep -c 'assumed for' "$dir/v$i-$how.txt" || true)
		claims[$how]=$((${claims[$how]:-0} + c)) total[$how]=$((${total[$how]:-0} + t)) unknown[$how]=$((${unknown[$how]:-0} + u))
		echo "pair $i ($(when)), $how calibration: $(paste -sd';' "$dir/v$i-$how.txt" | sed 's/;/; /g')"
	done
done
echo "end of the A/A pairs: $(when)"
for how in without with; do
	echo "A/A $how calibration: ${claims[$how]} claims in ${total[$how]} primary verdicts over $k pairs (${unknown[$how]} on the assumed prior)"
done

# The real effect: a set under a CPU quota of half a CPU against a set
# measured just before it, both in cgroups of the largest weight (v2
# cpu.weight, v1 cpu.shares) that the script makes and removes, the one
# with the quota and the other without. At the root's weight a run on this
# busy machine shares its CPU with the other sessions' autogroups (nice
# does not count across them) and may get half a CPU anyway, and then a
# quota of half a CPU takes little more: measured so, it was +1.4% and
# -2.1% against the last A/A set. The host is calibrated again in the
# weighted cgroup, as the two sets run: its sessions there are quieter.
cgroups=()
cleanup() {
	local cg
	for cg in "${cgroups[@]}"; do
		for _ in 1 2 3 4 5; do rmdir "$cg" 2>/dev/null && break; sleep 0.2; done
		[ -d "$cg" ] && echo "warning: cgroup $cg left behind" >&2
	done
	if [ -n "${cpu_enabled:-}" ]; then echo -cpu >/sys/fs/cgroup/cgroup.subtree_control || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
# cgroup NAME QUOTA makes a cgroup of the largest weight with QUOTA µs a
# 100 ms period (or max), added to cgroups for cleanup to remove.
cgroup() {
	local cg
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		if ! grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
			echo +cpu >/sys/fs/cgroup/cgroup.subtree_control && cpu_enabled=1
		fi
		cg=/sys/fs/cgroup/kdelta-$1-$$
		mkdir "$cg" && cgroups+=("$cg")
		echo "$2 100000" >"$cg/cpu.max" && echo 10000 >"$cg/cpu.weight"
	else
		cg=/sys/fs/cgroup/cpu/kdelta-$1-$$
		mkdir "$cg" && cgroups+=("$cg")
		echo 100000 >"$cg/cpu.cfs_period_us" && echo 262144 >"$cg/cpu.shares"
		[ "$2" = max ] || echo "$2" >"$cg/cpu.cfs_quota_us"
	fi
}
# inside CGROUP CMD... runs CMD in CGROUP: the shell joins it, then becomes CMD.
inside() { sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$@"; }
if [ "$(id -u)" -eq 0 ] && { [ -f /sys/fs/cgroup/cgroup.controllers ] || [ -d /sys/fs/cgroup/cpu ]; }; then
	cgroup free max
	cgroup half 50000
	# Calibrated as the two sets run: in the cgroup of the largest weight.
	weighted="$dir/weighted.db"
	echo "kdelta calibrate ... --sessions $sessions, in a cgroup of the largest weight:"
	KDELTA_STORE=$weighted inside "${cgroups[0]}" "$dir/kdelta" calibrate "${work[@]}" -r 8 --cpus 0 --sessions "$sessions" 2>/dev/null | grep -E '(ns/call|usecs/op) ±'
	inside "${cgroups[0]}" "$dir/kdelta" run "${work[@]}" "${flags[@]}" --no-store -o "$dir/free.json" >/dev/null 2>&1
	inside "${cgroups[1]}" "$dir/kdelta" run "${work[@]}" "${flags[@]}" --no-store -o "$dir/half.json" >/dev/null 2>&1
	KDELTA_STORE=$weighted "$dir/kdelta" compare "$dir/free.json" "$dir/half.json" --format markdown >"$dir/half.md" 2>/dev/null
	echo "half a CPU against a set just before it, both in cgroups of the largest weight, calibrated there: $(primary "$dir/half.md" | paste -sd';' | sed 's/;/; /g')"
else
	echo "half a CPU: skipped (needs root and a cgroup cpu controller)"
fi
