#!/usr/bin/env bash
# Time from `kdelta vm` to a result set on every architecture kdelta
# boots, under TCG: per architecture, n rounds of `run syscall -r 1` (the
# workload's defaults: one warm-up, one measured run) and of a run that
# does almost nothing (`syscall:calls=1000 -r 1 --warmup 0`), which is
# the boot alone (qemu, the kernel's boot, the fingerprint, the way
# home). The architectures take turns within each round, so the host's
# drift falls on all; medians are printed.
#
#   ./bench/vm-arch.sh [n]        (default 3 rounds)
#
# Kernels are Debian's current builds by metapackage (fetched once into
# ~/.cache/kdelta/packages with apt-get, as root); the guest kdelta of each
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
declare -A full boot
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
secs() { # secs OUT ARGS...: run kdelta vm, print its wall time
	local out=$1 s e
	shift
	s=$(date +%s.%N)
	"$dir/kdelta" vm --accel tcg --no-store -o "$out" "$@" >/dev/null 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
for i in $(seq 1 "$n"); do
	for a in "${arches[@]}"; do
		full[$a]+="$(secs "$dir/f-$a-$i" --kernel "${kernel[$a]}" -- run syscall -r 1) "
		boot[$a]+="$(secs "$dir/b-$a-$i" --kernel "${kernel[$a]}" -- run syscall:calls=1000 -r 1 --warmup 0) "
	done
done
printf '%-8s %22s %14s\n' arch "run syscall -r 1 (s)" "boot alone (s)"
for a in "${arches[@]}"; do
	printf '%-8s %22.1f %14.1f\n' "$a" "$(tr ' ' '\n' <<<"${full[$a]}" | grep . | median)" "$(tr ' ' '\n' <<<"${boot[$a]}" | grep . | median)"
done
