package workload

import (
	"strconv"
	"strings"
	"sync"

	"github.com/kdelta/kdelta/internal/sysinfo"
)

// The reference tools these results are compared with decide some
// defaults: perf's version pipe's loop order (WORKLOADS.md §2: the legacy
// loop before perf 6.15, the symmetric one from 6.15), stress-ng's whether
// kill reads pid_max on every bogo-op (before 0.17.02) or not, glibc's
// what a thread's read or write costs in user space (before 2.41).
var tools struct {
	mu       sync.Mutex
	set      bool
	override map[string]string
}

// ReferenceTools are the tools whose versions decide defaults.
var ReferenceTools = []string{"perf", "stress-ng", "glibc"}

// ToolVersion returns the version of the reference tool name ("6.1.192")
// these results are compared with: the one on PATH, as the fingerprint
// records it, or the one SetToolVersions gave; "" when there is none.
func ToolVersion(name string) string {
	tools.mu.Lock()
	defer tools.mu.Unlock()
	if tools.set {
		return tools.override[name]
	}
	v := sysinfo.ToolVersion(name)
	if v == sysinfo.NotInstalled || strings.HasPrefix(v, "unknown") {
		return ""
	}
	return v
}

// ToolVersions returns the version of each of ReferenceTools that is
// installed, for a kdelta vm guest to answer with.
func ToolVersions() map[string]string {
	m := map[string]string{}
	for _, name := range ReferenceTools {
		if v := ToolVersion(name); v != "" {
			m[name] = v
		}
	}
	return m
}

// SetToolVersions makes m the tool versions this process answers with: a
// kdelta vm guest has neither perf nor stress-ng, and compares with the
// host's.
func SetToolVersions(m map[string]string) {
	tools.mu.Lock()
	tools.set, tools.override = true, m
	tools.mu.Unlock()
}

// PerfVersion is ToolVersion("perf").
func PerfVersion() string { return ToolVersion("perf") }

// versionBefore tells whether version v (major.minor[.patch], "" for none)
// is older than major.minor.patch; a version it cannot read is not.
func versionBefore(v string, want [3]int) bool {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return false
	}
	var got [3]int
	for i := range f {
		// Leading digits: "0.15.06", "6.15-rc1".
		d := strings.IndexFunc(f[i], func(r rune) bool { return r < '0' || r > '9' })
		if d < 0 {
			d = len(f[i])
		}
		n, err := strconv.Atoi(f[i][:d])
		if err != nil {
			return false
		}
		got[i] = n
	}
	for i := range got {
		if got[i] != want[i] {
			return got[i] < want[i]
		}
	}
	return false
}

// killPidMaxFor returns kill's pidmax for stress-ng version v: every-op
// before 0.17.02 (stress-ng read /proc/sys/kernel/pid_max before each
// guess of an unused pid until commit 59027b660, "Reduce the file
// operations if the unused pid can be found within several tries"), once
// from then on and without stress-ng.
func killPidMaxFor(v string) string {
	if versionBefore(v, [3]int{0, 17, 2}) {
		return "every-op"
	}
	return "once"
}

// pipeOrderFor returns the pipe loop order of perf version v: symmetric
// from 6.15, legacy before, and symmetric (today's perf) without one.
func pipeOrderFor(v string) string {
	if versionBefore(v, [3]int{6, 15, 0}) {
		return "legacy"
	}
	return "symmetric"
}

// cancelFor returns the cancel parameter of a run whose workers are
// threads (thread) or single-threaded processes, compared with C
// references linked with glibc version v: toggle for threads before glibc
// 2.41 (sys.CancelWord), none otherwise, since a single-threaded
// process's calls skip the bracket, glibc 2.41's only test a word, and
// without glibc there is none to match.
func cancelFor(thread bool, v string) string {
	if thread && v != "" && versionBefore(v, [3]int{2, 41, 0}) {
		return "toggle"
	}
	return "none"
}
