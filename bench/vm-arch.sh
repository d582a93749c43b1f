#!/usr/bin/env bash
# Time from `kdelta vm` to a result set on every architecture kdelta
# boots, under TCG: per architecture, n rounds of `run syscall -r 1` (the
# workload's defaults, one warm-up and one measured run, with the count a
# TCG guest of that architecture runs: see internal/vm/tcgwork.go) and of
# a run that does almost nothing (`syscall:calls=1000 -r 1 --warmup 0`),
# which is the boot alone (qemu, firmware, the kernel's boot, /init, the
# fingerprint, the way home). The architectures take turns within each
# round, so the host's drift falls on all; medians are printed, with the
# emulated cost of a call and the calls the default run made.
#
#   ./bench/vm-arch.sh [n]        (default 3 rounds)
#   FULL=1 ./bench/vm-arch.sh     also syscall:calls=10000000, the
#                                 workload's own default (minutes on s390x)
#
# Kernels are Debian's current builds by metapackage (fetched once into
# ~/.cache/kdelta/packages with apt-get, as root); amd64's is
# $KDELTA_TEST_KERNEL or scripts/vm-kernel.sh's. The guest kdelta of each
# architecture is built beside the host's.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
for a in ppc64le arm64 s390x; do
	CGO_ENABLED=0 GOARCH=$a go build -o "$dir/kdelta-linux-$a" ./cmd/kdelta
done
declare -A kernel=([amd64]="${KDELTA_TEST_KERNEL:-$(scripts/vm-kernel.sh)}" [ppc64le]=deb:linux-image-powerpc64le
	[arm64]=deb:linux-image-cloud-arm64 [s390x]=deb:linux-image-s390x)
arches=(amd64 ppc64le arm64 s390x)
declare -A full boot whole ns calls
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
secs() { # secs OUT ARGS...: run kdelta vm, print its wall time
	local out=$1 s e
	shift
	s=$(date +%s.%N)
	"$dir/kdelta" vm --accel tcg --no-store -o "$out" "$@" >"$out.txt" 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
# The ns/call and calls of the default run, from its result set.
figure() {
	python3 -c 'import json,sys,glob
s=json.load(open(glob.glob(sys.argv[1]+"/*.json")[0]))
b=s["benchmarks"][0]; r=[r for r in b["runs"] if not r.get("warmup")][0]
print(r["values"]["ns/call"] if sys.argv[2]=="ns" else b["params"]["calls"])' "$1" "$2"
}
for i in $(seq 1 "$n"); do
	for a in "${arches[@]}"; do
		full[$a]+="$(secs "$dir/f-$a-$i" --kernel "${kernel[$a]}" -- run syscall -r 1) "
		ns[$a]+="$(figure "$dir/f-$a-$i" ns) "
		calls[$a]=$(figure "$dir/f-$a-$i" calls)
		boot[$a]+="$(secs "$dir/b-$a-$i" --kernel "${kernel[$a]}" -- run syscall:calls=1000 -r 1 --warmup 0) "
		if [ -n "${FULL:-}" ]; then
			whole[$a]+="$(secs "$dir/w-$a-$i" --kernel "${kernel[$a]}" -- run syscall:calls=10000000 -r 1) "
		fi
	done
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
printf '%-8s %22s %14s %12s %10s' arch "run syscall -r 1 (s)" "boot alone (s)" "ns/call" calls
[ -z "${FULL:-}" ] || printf ' %26s' "calls=10000000 -r 1 (s)"
printf '\n'
for a in "${arches[@]}"; do
	printf '%-8s %22.1f %14.1f %12.0f %10s' "$a" "$(med "${full[$a]}")" "$(med "${boot[$a]}")" "$(med "${ns[$a]}")" "${calls[$a]}"
	[ -z "${FULL:-}" ] || printf ' %26.1f' "$(med "${whole[$a]}")"
	printf '\n'
done
