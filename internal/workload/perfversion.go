package workload

import (
	"os/exec"
	"regexp"
	"strconv"
	"sync"
)

// The perf that pipe's results are compared with decides its default
// loop order (WORKLOADS.md §2): perf before 6.15 runs the legacy loop,
// 6.15 and later the symmetric one.
var perf struct {
	once    sync.Once
	version string
}

var perfVersionRE = regexp.MustCompile(`(\d+)\.(\d+)(\.\d+)*`)

// PerfVersion returns the version of the perf on PATH ("6.1.192"), or ""
// when there is none. It runs `perf version` once per process.
func PerfVersion() string {
	perf.once.Do(func() {
		out, err := exec.Command("perf", "version").Output()
		if err == nil {
			perf.version = perfVersionRE.FindString(string(out))
		}
	})
	return perf.version
}

// SetPerfVersion makes v the perf version this process answers with: a
// kdelta vm guest has no perf, and compares with the host's.
func SetPerfVersion(v string) {
	perf.once.Do(func() {})
	perf.version = v
}

// pipeOrderFor returns the pipe loop order of perf version v: symmetric
// from 6.15, legacy before, and symmetric (today's perf) without one.
func pipeOrderFor(v string) string {
	m := perfVersionRE.FindStringSubmatch(v)
	if m == nil {
		return "symmetric"
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 6 || major == 6 && minor < 15 {
		return "legacy"
	}
	return "symmetric"
}
