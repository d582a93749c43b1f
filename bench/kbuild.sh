#!/usr/bin/env bash
# Build times of the test kernel (Debian's linux-source-6.1, tinyconfig
# plus kdelta's guest fragment, make -jN with N the CPUs) through kdelta's
# own build (internal/kbuild), each in a cache of its own so nothing is
# found built:
#   cold        ccache emptied (CCACHE_DIR a new directory), a new build tree
#   ccache-warm the same commit again in a new build tree: every compile a
#               ccache hit, the rest (host tools, links, the image) done again
#   no-change   the same commit built once more in the same build tree with
#               the cache entry removed: make finds nothing to do but link
# then the time `kdelta vm --kernel git:HEAD` takes to a result set when the
# kernel is in the cache (it builds nothing).
#
#   ./bench/kbuild.sh            (the source is unpacked into
#                                 $KDELTA_TEST_CACHE, /var/tmp/kdelta-test,
#                                 as the tests do, if they have not)
set -euo pipefail
cd "$(dirname "$0")/.."
root=${KDELTA_TEST_CACHE:-/var/tmp/kdelta-test}
src=$root/linux-6.1
if ! git -C "$src" rev-parse --verify --quiet kdelta-base >/dev/null; then
	go test ./internal/kbuild -run TestBuildCached -count=1 >/dev/null || true
fi
git -C "$src" rev-parse --verify --quiet kdelta-base >/dev/null || { echo "no kernel source in $src (install linux-source-6.1)" >&2; exit 1; }
dir=$(mktemp -d /var/tmp/kdelta-kbuild-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/kdelta" ./cmd/kdelta
ref="git:$src@kdelta-base"
run() { # name cache [env...]: boot once (building as needed), print the build's time
	local name=$1 cache=$2
	shift 2
	local start end
	start=$(date +%s.%N)
	env "$@" KDELTA_KBUILD_CACHE="$cache" XDG_DATA_HOME="$dir/data" "$dir/kdelta" vm --kernel "$ref" --config tinyconfig \
		--accel tcg --no-store -- run syscall:calls=10000 -r 1 --warmup 0 >"$dir/$name.out" 2>"$dir/$name.err"
	end=$(date +%s.%N)
	local built
	built=$(grep -o 'built commit .* in [0-9hms]*' "$dir/$name.err" | grep -o 'in [0-9hms]*$' || echo "in 0s (cached)")
	printf '%-12s build %s; kdelta vm to a result %.1f s\n' "$name" "${built#in }" "$(echo "$end - $start" | bc)"
}
run cold "$dir/c1" CCACHE_DIR="$dir/ccache"
run ccache-warm "$dir/c2" CCACHE_DIR="$dir/ccache"
rm -rf "$dir"/c2/kernels
run no-change "$dir/c2" CCACHE_DIR="$dir/ccache"
run cached "$dir/c2" CCACHE_DIR="$dir/ccache"
printf 'machine: %s CPUs, load average %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
