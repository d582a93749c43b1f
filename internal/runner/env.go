package runner

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
)

// MinimalEnv reads the fingerprint every result set carries: kernel, command
// line, CPU, host and tool versions. Unreadable files leave fields empty.
func MinimalEnv(version string) *result.Env {
	e := &result.Env{
		Arch:        runtime.GOARCH,
		CPUs:        runtime.NumCPU(),
		ToolVersion: version,
		GoVersion:   runtime.Version(),
	}
	e.Hostname, _ = os.Hostname()
	e.KernelRelease = readTrim("/proc/sys/kernel/osrelease")
	e.KernelVersion = readTrim("/proc/sys/kernel/version")
	e.Cmdline = readTrim("/proc/cmdline")
	e.OnlineCPUs = readTrim("/sys/devices/system/cpu/online")
	e.CPUModel = cpuModel()
	return e
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cpuModel takes the first model line /proc/cpuinfo has: "model name" on
// x86 and arm64 (when present), "cpu" on POWER, "machine" on s390x.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name", "cpu", "machine":
			return strings.TrimSpace(v)
		}
	}
	return ""
}
