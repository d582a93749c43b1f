package workload

import (
	"strconv"
	"strings"
	"sync"

	"github.com/kdelta/kdelta/internal/sysinfo"
)

// The perf that pipe's results are compared with decides its default
// loop order (WORKLOADS.md §2): perf before 6.15 runs the legacy loop,
// 6.15 and later the symmetric one.
var perf struct {
	mu       sync.Mutex
	set      bool
	override string
}

// PerfVersion returns the version of the perf these results are compared
// with ("6.1.192"): the one on PATH, as the fingerprint records it, or
// the one SetPerfVersion gave; "" when there is none.
func PerfVersion() string {
	perf.mu.Lock()
	defer perf.mu.Unlock()
	if perf.set {
		return perf.override
	}
	v := sysinfo.ToolVersion("perf")
	if v == sysinfo.NotInstalled || strings.HasPrefix(v, "unknown") {
		return ""
	}
	return v
}

// SetPerfVersion makes v the perf version this process answers with: a
// kdelta vm guest has no perf, and compares with the host's.
func SetPerfVersion(v string) {
	perf.mu.Lock()
	perf.set, perf.override = true, v
	perf.mu.Unlock()
}

// pipeOrderFor returns the pipe loop order of perf version v: symmetric
// from 6.15, legacy before, and symmetric (today's perf) without one.
func pipeOrderFor(v string) string {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return "symmetric"
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return "symmetric"
	}
	if major < 6 || major == 6 && minor < 15 {
		return "legacy"
	}
	return "symmetric"
}
