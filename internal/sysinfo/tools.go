package sysinfo

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// toolTimeout bounds each version query: a tool that hangs (a perf that
// waits on a locked debuginfod cache) must not stall a run's start.
const toolTimeout = 5 * time.Second

// NotInstalled is the version recorded for a tool that is not on PATH.
const NotInstalled = "not installed"

// A tool is an external program kdelta runs or imports results from, with
// the arguments that make it print its version.
type tool struct {
	name string
	args []string
	// prog is the program to run, when it is not name.
	prog string
}

// tools are the external programs whose versions change what their
// benchmarks measure (perf 6.15 changed `perf bench sched pipe`'s loop).
var tools = []tool{
	{"perf", []string{"--version"}, ""},
	{"stress-ng", []string{"--version"}, ""},
	// hackbench (rt-tests) has no version flag; it prints "hackbench V 2.40"
	// before the usage text it gives for any unknown option.
	{"hackbench", []string{"--version"}, ""},
	// The C library the references run on: glibc before 2.41 brackets
	// each read and write of a multi-threaded program with two atomic
	// operations (sys.CancelWord), which thread modes reproduce.
	{"glibc", []string{"GNU_LIBC_VERSION"}, "getconf"},
}

func (t tool) program() string {
	if t.prog != "" {
		return t.prog
	}
	return t.name
}

// asked holds each tool's answer, asked once per process.
var asked = map[string]func() string{}

func init() {
	for _, t := range tools {
		asked[t.name] = sync.OnceValue(func() string { return toolVersion(t.program(), t.args, toolTimeout) })
	}
}

// ToolVersions returns the versions of perf, stress-ng, hackbench and
// glibc. A tool not on PATH is NotInstalled; one that fails or times out
// is "unknown: REASON". Each is asked once per process.
func ToolVersions() map[string]string {
	m := make(map[string]string, len(tools))
	for _, t := range tools {
		m[t.name] = asked[t.name]()
	}
	return m
}

// ToolVersion returns one of ToolVersions' answers: the version of perf,
// stress-ng, hackbench or glibc, NotInstalled, or "unknown: REASON".
func ToolVersion(name string) string {
	if f, ok := asked[name]; ok {
		return f()
	}
	return "unknown: " + name + " is not a tool kdelta knows"
}

// versionRE finds a dotted version number.
var versionRE = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)+\b`)

// toolVersion runs name args and returns the first version number printed.
// The exit status is ignored when the output names a version, since some
// tools exit non-zero after printing it.
func toolVersion(name string, args []string, timeout time.Duration) string {
	path, err := exec.LookPath(name)
	if err != nil {
		return NotInstalled
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "unknown: " + name + " " + strings.Join(args, " ") + ": timed out after " + timeout.String()
	}
	if v := parseToolVersion(string(out)); v != "" {
		return v
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return "unknown: " + err.Error()
	}
	return "unknown: no version in output of " + name + " " + strings.Join(args, " ") + ": " + quote(firstLine(string(out)))
}

// parseToolVersion returns the first version number on the first line
// that has one: "perf version 6.1.192", "stress-ng, version 0.15.06 (gcc
// 12.2.0, ...)", "hackbench V 2.40".
func parseToolVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if v := versionRE.FindString(line); v != "" {
			return v
		}
	}
	return ""
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
