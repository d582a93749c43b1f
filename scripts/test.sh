#!/usr/bin/env bash
# The README's test command: installs what the tests need, then runs every
# test kdelta has. Run it as root on Debian (CI does, through .ci/run).
#
#   sudo ./scripts/test.sh
#
# Tests that need root, perf, stress-ng, hackbench or qemu-user find them
# installed here, so in CI none of them skips.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step prints its name; when the next one starts (or the script ends),
# the time the last one took, and at the end a table of every step's time.
step_name=
step_start=
step_times=()
script_start=$(date +%s)
step_end() {
	[ -n "$step_name" ] || return 0
	local took=$(($(date +%s) - step_start))
	printf -- '-- %s: %d s\n' "$step_name" "$took"
	step_times+=("$(printf '%5d s  %s' "$took" "$step_name")")
	step_name=
}
step() {
	step_end
	step_name="$*"
	step_start=$(date +%s)
	printf '\n== %s\n' "$*"
}
# Every top-level test's seconds, from the go test runs below, for the
# table of the slowest at the end.
test_times=$(mktemp)
summary() {
	local rc=$?
	step_end
	if [ -s "$test_times" ]; then
		printf '\n== the 15 slowest tests\n'
		# awk reads to the end: head would close the pipe early, and under
		# pipefail sort's SIGPIPE made a passing run exit 141.
		sort -rn "$test_times" | awk -F '\t' 'NR <= 15 { printf "%7.1f s  %s %s\n", $1, $2, $3 }' || true
	fi
	rm -f "$test_times"
	printf '\n== step times (exit %d)\n' "$rc"
	printf '%s\n' "${step_times[@]}"
	printf '%5d s  in all\n' "$(($(date +%s) - script_start))"
}
trap summary EXIT

step "install test dependencies"
pkgs=(linux-perf stress-ng rt-tests time qemu-user qemu-system-x86 qemu-system-ppc qemu-system-arm qemu-system-misc cpio iproute2 util-linux procps git postgresql sysbench chromium rpm xz-utils zstd linux-source-6.1 make gcc ccache flex bison bc libelf-dev libssl-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# apt-get runs in the background while the checks and builds below, which
# need only Go, take the CPU: on a fresh machine it is mostly downloads and
# unpacking (133 s here), and those steps compile every package for six
# targets. The PostgreSQL step waits for it and prints its output.
apt_log=$(mktemp)
apt_pid=
if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing packages ${missing[*]}: run as root so they can be installed" >&2
		exit 2
	fi
	echo "installing ${missing[*]} (in the background)"
	(
		trap - EXIT
		# A mirror can be mid-sync for a minute: try a few times.
		for try in 1 2 3 4; do
			if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
				exit 0
			fi
			[ "$try" -lt 4 ] || exit 1
			echo "apt-get failed (try $try); again in 20 s" >&2
			sleep 20
		done
	) >"$apt_log" 2>&1 &
	apt_pid=$!
fi
go mod download
# benchstat, to check that kdelta's benchfmt output reads back; staticcheck
# and deadcode for the checks below. Pinned, so a new release cannot turn CI
# red on its own.
GOBIN="$(go env GOPATH)/bin" go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
GOBIN="$(go env GOPATH)/bin" go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOBIN="$(go env GOPATH)/bin" go install golang.org/x/tools/cmd/deadcode@v0.52.0
export PATH="$(go env GOPATH)/bin:$PATH"
# go test -json through slowtests prints what plain go test prints and
# keeps each test's time (the tests' table at the end).
slowtests="$(go env GOPATH)/bin/kdelta-slowtests"
go build -o "$slowtests" ./scripts/slowtests
# Every test that lacks something fails instead of skipping (internal/testenv):
# this script installs what the tests need, so a skip would hide a test.
export CI=${CI:-true}
# kdelta is built and shipped static (a guest's /init is the binary), and
# the tests run what is shipped: with cgo off everywhere but under the race
# detector, which needs it, the checks, the static amd64 build, the guests'
# binaries and the tests share one compile of every package (on an empty
# build cache a compile of kdelta and its modules is some 140 s of CPU).
export CGO_ENABLED=0

step "format, vet, staticcheck, deadcode, go mod tidy"
unformatted=$(gofmt -l cmd internal bench)
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...
staticcheck ./...
# Code that nothing calls, not even a test, is code nobody checks.
dead=$(deadcode -test ./...)
if [ -n "$dead" ]; then
	echo "deadcode -test reports unreachable functions:" >&2
	echo "$dead" >&2
	exit 1
fi
if ! tidy=$(go mod tidy -diff); then
	echo "go mod tidy would change go.mod or go.sum:" >&2
	echo "$tidy" >&2
	exit 1
fi
# Only internal/sys may import golang.org/x/sys/unix and netlink.
if grep -rlnE '"(golang.org/x/sys/unix|github.com/vishvananda/netlink)"' --include='*.go' cmd internal bench | grep -v '^internal/sys/'; then
	echo "golang.org/x/sys/unix or vishvananda/netlink imported outside internal/sys" >&2
	exit 1
fi

step "static builds for every architecture our users run"
for arch in amd64 arm64 ppc64le s390x; do
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -o /dev/null ./cmd/kdelta
	echo "linux/$arch ok"
done

step "darwin builds of the analysis commands"
# compare, import, show, history, results and profile diff run on a laptop
# over results fetched from a lab; only measuring needs Linux. kdelta
# builds for macOS, and the packages those commands need build there with
# their tests.
analysis=(./internal/result ./internal/stats ./internal/compare ./internal/report ./internal/explain ./internal/store ./internal/profile ./internal/golden ./internal/sysinfo ./internal/web ./internal/browsertest)
# Both architectures build kdelta; the analysis packages are vetted and
# their tests compiled for arm64, the Macs kernel engineers carry (the
# code has no per-architecture file there).
CGO_ENABLED=0 GOOS=darwin GOARCH=amd64 go build -o /dev/null ./cmd/kdelta
echo "darwin/amd64 ok"
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go build -o /dev/null ./cmd/kdelta
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go vet "${analysis[@]}"
# One go command for every package's test binary builds them side by side
# (6 s here against 23 s one package at a time).
darwin_tests=$(mktemp -d)
CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go test -c -o "$darwin_tests/" "${analysis[@]}"
rm -rf "$darwin_tests"
echo "darwin/arm64 ok"

step "the packages installed, and PostgreSQL on loopback for the store tests"
if [ -n "$apt_pid" ]; then
	apt_rc=0
	wait "$apt_pid" || apt_rc=$?
	cat "$apt_log"
	if [ "$apt_rc" -ne 0 ]; then
		echo "apt-get could not install ${missing[*]}" >&2
		exit 1
	fi
	echo "installed ${missing[*]}"
fi
rm -f "$apt_log"
# A throwaway cluster in a temporary directory; stopped when the tests end.
eval "$(./scripts/postgres.sh)"
trap 'summary; ./scripts/postgres.sh stop >/dev/null 2>&1 || true' EXIT
echo "store tests use $KDELTA_TEST_POSTGRES"

step "a Debian cloud kernel for the qemu tests"
KDELTA_TEST_KERNEL=$(./scripts/vm-kernel.sh)
export KDELTA_TEST_KERNEL
echo "vm tests boot $KDELTA_TEST_KERNEL"

# The race step below skips these tests (see there); they run here, once.
# The tests of kernels built from a tree (internal/vm's kbuild_e2e_test.go
# and ending_test.go) build and boot under TCG for minutes: they run once,
# here, not under the race detector too.
race_skip='^(TestVMKexec|TestKVMAbortFallsBack|TestKVMAbortCLI|TestVMModules|TestRPMKernel|TestContextSwitchOneSwitchPerHandoff|TestStubsMatchLinux|TestVMJobUntilConclusive|TestVMBuiltKernel|TestSeriesBuilt|TestBisectRunBuild|TestRootFSHost|TestGuestEndsAfterResult)$'
# Packages whose tests make no claim about time or the kernel's work (a
# job queue, qemu guests, web pages): the race step runs all of them but
# the tests above, so they run here only for those, not twice.
race_only='/internal/(lab|vm|web|browsertest)$'

step "tests"
# One package at a time: several tests write kernel knobs (rcu_expedited,
# rcutree) or time latencies that another package would disturb.
go test -json -count=1 -p 1 -timeout 25m $(go list ./... | grep -vE "$race_only") | "$slowtests" "$test_times"
# Under a loaded machine the kernels built from a tree and booted under TCG
# take minutes each (TestSeriesBuilt timed out at 10 minutes at load 25):
# the limit is for a hang, not a budget.
go test -json -count=1 -p 1 -timeout 30m -run "$race_skip" $(go list ./... | grep -E "$race_only") | "$slowtests" "$test_times"

step "race detector on the packages with concurrency (the ppc64le tests under qemu-user beside it)"
# The portable tests on ppc64le under qemu-user run in the background: pure
# computation in one emulated process at a time, while the race step mostly
# waits on children, guests and PostgreSQL, so together they take little
# more than the race step alone. Their output follows the race step's.
# They are the packages whose tests need no live kernel feature: parsers,
# statistics, reports, parameter handling.
# The statistics' simulations (the sessions' A/A, tens of thousands of
# comparisons, 13 s natively, and the power and coverage runs, 2 s) ran in
# the tests step; emulated they take forty times that, on a core the race
# step needs, and they exercise no byte order or parser. One simulation,
# compare's A/A, runs here, for the floating point of the architecture
# (Go fuses multiply-adds on ppc64le).
stats_sims='^(TestPriorClaimRates|TestSessionsFalsePositives|TestSessionsPower|TestCompareCoverage|TestPairDiffsKthLarge|TestComparePower|TestSpreadRatioCoverage|TestChangePointsFalseRate|TestChangePointsPlanted|TestCompareNeedRuns)$'
ppclog=$(mktemp)
(
	GOARCH=ppc64le CGO_ENABLED=0 go test -count=1 -exec qemu-ppc64le -skip "$stats_sims" \
		./internal/stats ./internal/result ./internal/report ./internal/golden &&
		GOARCH=ppc64le CGO_ENABLED=0 go test -count=1 -exec qemu-ppc64le \
			-run 'ParseSpec|Percentile|Parse|Fuzz|RawThread' ./internal/workload ./internal/sys &&
		# The raw-thread trampolines of every architecture but this one,
		# under messaging's thread mode (qemu-user cannot emulate the
		# forks of process mode), and on arm64 and s390x alone too.
		GOARCH=ppc64le CGO_ENABLED=0 go test -count=1 -exec qemu-ppc64le -run 'TestMessagingRuns/messaging:mode=thread' ./internal/workload &&
		GOARCH=arm64 CGO_ENABLED=0 go test -count=1 -exec qemu-aarch64 -run 'RawThread' ./internal/sys &&
		GOARCH=arm64 CGO_ENABLED=0 go test -count=1 -exec qemu-aarch64 -run 'TestMessagingRuns/messaging:mode=thread' ./internal/workload &&
		GOARCH=s390x CGO_ENABLED=0 go test -count=1 -exec qemu-s390x -run 'RawThread' ./internal/sys &&
		GOARCH=s390x CGO_ENABLED=0 go test -count=1 -exec qemu-s390x -run 'TestMessagingRuns/messaging:mode=thread' ./internal/workload
) >"$ppclog" 2>&1 &
ppc_pid=$!
# Every package that starts a goroutine outside its tests.
# With them the packages the tests step left to this one, whatever they
# start.
race_pkgs=$({
	grep -rlE --include='*.go' --exclude='*_test.go' '^[[:space:]]*go (func|[A-Za-z_.]+\()' cmd internal | xargs -n1 dirname
	go list -f '{{.Dir}}' ./... | grep -E "$race_only" | sed "s|^$PWD/||"
} | sort -u | sed 's|^|./|')
echo "race:" $race_pkgs
# Compile the race-instrumented packages with every core first: the -p 1
# below builds one package at a time too (on an empty build cache, 314 s
# for the compile alone against 229 s this way; 4 s when the cache is warm).
CGO_ENABLED=1 go build -race ./cmd/... ./internal/...
# The kernel boots of these vm tests (TestVMKexec's loader and second
# kernel among them) ran in the tests step; under the race
# detector TestVMEndToEnd's boot covers the console and result-channel
# goroutines they share, at a third of the time.
# TestContextSwitchOneSwitchPerHandoff starts many race-instrumented
# children (18 of them, each a 50,000-switch run) through the workload code the other tests drive
# too. TestStubsMatchLinux type-checks the package
# for four systems (20 s or more under the race detector) and starts no
# goroutine. TestVMJobUntilConclusive's four boots run in the agent's
# kdelta (built without the race detector), not in the test. race_skip
# is set before the tests step, which runs these.
# A race-built binary sleeps a second before it exits (the detector's
# atexit_sleep_ms, 1000 by default), and these tests start hundreds of
# re-executed test binaries as children: 63 s of runner's 73 were those
# sleeps.
GORACE="${GORACE:+$GORACE }atexit_sleep_ms=0" CGO_ENABLED=1 go test -json -count=1 -p 1 -race -timeout 15m -skip "$race_skip" $race_pkgs | "$slowtests" "$test_times"

step "portable tests on ppc64le under qemu-user (the rest of it)"
ppc_rc=0
wait "$ppc_pid" || ppc_rc=$?
cat "$ppclog"
rm -f "$ppclog"
[ "$ppc_rc" -eq 0 ] || exit "$ppc_rc"

step "fuzz every parser briefly"
# A fixed number of inputs per target, not a duration: a time-boxed go fuzz
# run can end in "context deadline exceeded" on a slow machine with nothing
# found (golang/go#56238 and its kin). A failure prints the fuzzer's own
# words; a crasher the fuzzer found is written under testdata/fuzz and shown.
# A failure that left no crasher is the engine's, and gets one more try.
# Each package's instrumented test binary is built once (go test -c -fuzz)
# and run for each of its targets as go test would run it, from the
# package's directory with go test's corpus cache: go test -fuzz links the
# binary again for every target, 1.2 of the 1.8 s a target took here.
# Two lanes of packages side by side, each lane's output printed whole
# once both have ended.
fuzz_bins=$(mktemp -d)
fuzz_cache="$(go env GOCACHE)/fuzz"
fuzz_lane() {
	trap - EXIT
	local fuzzlog pkg dir bin fz ok try new f
	fuzzlog=$(mktemp)
	for pkg in "$@"; do
		dir=${pkg#*=} pkg=${pkg%%=*}
		fz=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' || true)
		[ -n "$fz" ] || continue
		bin="$fuzz_bins/$(echo "$pkg" | tr / _).test"
		if ! go test -c -fuzz . -o "$bin" "$pkg" >"$fuzzlog" 2>&1; then
			echo "$pkg: building its fuzz test binary failed:"
			cat "$fuzzlog"
			rm -f "$fuzzlog"
			return 1
		fi
		for fz in $fz; do
			ok=
			for try in 1 2; do
				if (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${fz}\$" -test.fuzztime 5000x \
					-test.fuzzcachedir "$fuzz_cache/$pkg" -test.timeout 10m) >"$fuzzlog" 2>&1; then
					ok=1
					break
				fi
				echo "$pkg $fz failed (try $try):"
				tail -n 25 "$fuzzlog"
				new=$(git status --porcelain --untracked-files=all -- "$dir/testdata/fuzz/$fz" 2>/dev/null || true)
				if [ -n "$new" ]; then
					echo "the fuzzer found an input that fails:"
					for f in $(echo "$new" | awk '{print $2}'); do cat "$f"; done
					break
				fi
			done
			if [ -z "$ok" ]; then
				rm -f "$fuzzlog"
				return 1
			fi
			echo "$pkg $fz ok"
		done
	done
	rm -f "$fuzzlog"
}
# The packages with fuzz targets (as path=directory), alternately in one
# lane and the other.
fuzz_pkgs=($(go list -f '{{.ImportPath}}={{.Dir}}' ./... | while IFS= read -r pd; do
	! grep -q '^func Fuzz' "${pd#*=}"/*_test.go 2>/dev/null || echo "$pd"
done))
lane_a=() lane_b=()
for i in "${!fuzz_pkgs[@]}"; do
	if ((i % 2)); then lane_a+=("${fuzz_pkgs[$i]}"); else lane_b+=("${fuzz_pkgs[$i]}"); fi
done
lane_a_log=$(mktemp) lane_b_log=$(mktemp)
(fuzz_lane "${lane_a[@]}") >"$lane_a_log" 2>&1 &
lane_a_pid=$!
(fuzz_lane "${lane_b[@]}") >"$lane_b_log" 2>&1 &
lane_b_pid=$!
fuzz_rc=0
wait "$lane_a_pid" || fuzz_rc=1
wait "$lane_b_pid" || fuzz_rc=1
cat "$lane_a_log" "$lane_b_log"
rm -rf "$lane_a_log" "$lane_b_log" "$fuzz_bins"
if [ "$fuzz_rc" -ne 0 ]; then
	echo "a fuzz target failed (above)" >&2
	exit 1
fi

step "all tests passed"
