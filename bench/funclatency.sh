#!/usr/bin/env bash
# What kdelta run --funclatency costs the runs it watches: syscall and
# bridge with no --funclatency, with it on a function they do not call, and
# with it on one they call every operation, interleaved round by round;
# medians, the change against none with its 95% interval, and the cost per
# traced call (see bench/funclatency/main.go).
#
#   ./bench/funclatency.sh [-rounds 5] [-where auto|host|vm] [-r 3]
#
# On a kernel without the function_graph tracer (as this project's host)
# each setting of each round boots the Debian 6.1 test kernel under
# `kdelta vm` (scripts/vm-kernel.sh fetches it; KERNEL=IMAGE overrides),
# with its modules for bridge.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/kdelta
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/kdelta
kernel=${KERNEL:-${KDELTA_TEST_KERNEL:-}}
if [ -z "$kernel" ] && ! grep -qw function_graph /sys/kernel/tracing/available_tracers 2>/dev/null; then
	kernel=$(scripts/vm-kernel.sh)
fi
vm=()
if [ -n "$kernel" ]; then
	# The package's tree, as vm-kernel.sh unpacks it: .../PKG/boot/vmlinuz-*.
	vm=(-kernel "$kernel" -modules "$(dirname "$(dirname "$kernel")")")
fi
go run ./bench/funclatency -kdelta "$bin" "${vm[@]}" "$@"
