package sysinfo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// competeThreshold is the number of runnable tasks other than kdelta's,
// per online CPU, above which the machine counts as busy at start. Above
// one half, a run is more likely than not to share its CPU with them,
// which shows as spread between runs rather than as a shift one could
// correct for. The count is of tasks runnable now (OtherRunnable), not the
// load average, which remembers for minutes tasks that are gone, kdelta's
// own runs among them.
const competeThreshold = 0.5

// Warnings is the tuning check done before a run: it returns one line per
// setting that makes results noisier or harder to compare, given the CPUs
// the run is pinned to (nil when it is not pinned). Facts that are unknown
// raise no warning.
func Warnings(fp *Fingerprint, pinnedCPUs []int) []string {
	if fp == nil {
		return nil
	}
	var ws []string
	c := &fp.CPU

	if c.Governor.Known() {
		for _, g := range strings.Split(c.Governor.Value, ",") {
			if g != "performance" {
				ws = append(ws, fmt.Sprintf("cpufreq governor is %q, not \"performance\": the clock rate follows the load and varies between runs", c.Governor.Value))
				break
			}
		}
	}
	if c.Boost.Known() && strings.Contains(c.Boost.Value, "on") {
		ws = append(ws, "turbo/boost is on ("+c.Boost.Source+"): the clock rate depends on temperature and on the load of the other cores")
	}

	ws = append(ws, fp.Ignored...)

	online := onlineCPUs(fp)
	if fp.OtherRunnable.Known() && len(online) > 0 {
		if n, err := strconv.Atoi(fp.OtherRunnable.Value); err == nil && float64(n) > competeThreshold*float64(len(online)) {
			ws = append(ws, fmt.Sprintf("%d runnable tasks other than kdelta's at start, more than %.0f%% of the %d online CPUs: other tasks compete with the runs", n, competeThreshold*100, len(online)))
		}
	}

	if len(pinnedCPUs) > 0 {
		ws = append(ws, pinningWarnings(fp, pinnedCPUs, online)...)
	}
	if n, ok := fp.Cgroup.CPUQuotaCPUs(); ok {
		ws = append(ws, fmt.Sprintf("kdelta runs under a CPU quota of %.2f CPU (cgroup %s: %s): runs that want more are throttled, and their times measure the quota, not the kernel",
			n, fp.Cgroup.Path.Value, fp.Cgroup.CPUQuota.Value))
	}

	for _, m := range fp.Mounts {
		ws = append(ws, "mounted "+m+", which was not mounted, "+mountPurpose(m)+"; it stays mounted")
	}
	if v := fp.Virtualization; v.Known() && v.Value != "none" {
		ws = append(ws, "the machine is virtualized ("+v.Value+"): steal time and the host's vCPU placement add noise")
	}
	return ws
}

// onlineCPUs returns the online CPUs, or nil when unknown.
func onlineCPUs(fp *Fingerprint) []int {
	if !fp.CPU.Online.Known() {
		return nil
	}
	cpus, err := sys.ParseCPUList(fp.CPU.Online.Value)
	if err != nil {
		return nil
	}
	return cpus
}

// pinningWarnings checks the pinned CPUs against the online ones and their
// SMT siblings: two pinned CPUs on one core share its execution units, and
// a pinned CPU whose sibling is left free shares them with whatever the
// scheduler puts there.
func pinningWarnings(fp *Fingerprint, pinned, online []int) []string {
	var ws []string
	isOnline := map[int]bool{}
	for _, n := range online {
		isOnline[n] = true
	}
	isPinned := map[int]bool{}
	for _, n := range pinned {
		isPinned[n] = true
	}
	var offline []int
	for _, n := range sortInts(pinned) {
		if len(online) > 0 && !isOnline[n] {
			offline = append(offline, n)
		}
	}
	if len(offline) > 0 {
		ws = append(ws, "pinned CPUs "+sys.FormatCPUList(offline)+" are not online ("+fp.CPU.Online.Value+")")
	}

	if fp.CPU.SMTActive.Known() && fp.CPU.SMTActive.Value == "0" {
		return ws
	}
	var shared, exposed []string
	seen := map[string]bool{}
	for _, n := range sortInts(pinned) {
		list, ok := fp.CPU.ThreadSiblings[n]
		if !ok || seen[list] {
			continue
		}
		seen[list] = true
		sibs, err := sys.ParseCPUList(list)
		if err != nil || len(sibs) < 2 {
			continue
		}
		var in, out []int
		for _, s := range sibs {
			if isPinned[s] {
				in = append(in, s)
			} else {
				out = append(out, s)
			}
		}
		if len(in) > 1 {
			shared = append(shared, sys.FormatCPUList(in))
		}
		if len(out) > 0 {
			exposed = append(exposed, fmt.Sprintf("%s (siblings %s)", sys.FormatCPUList(in), sys.FormatCPUList(out)))
		}
	}
	if len(shared) > 0 {
		ws = append(ws, "pinned CPUs are SMT siblings of one core: "+strings.Join(shared, ", ")+"; they share its execution units")
	}
	if len(exposed) > 0 {
		ws = append(ws, "pinned CPUs have SMT siblings left to other tasks: "+strings.Join(exposed, ", ")+"; pin or offline the siblings, or turn SMT off")
	}
	return ws
}

// sortInts sorts a copy of s.
func sortInts(s []int) []int {
	c := append([]int(nil), s...)
	sort.Ints(c)
	return c
}

// mountPurpose says why kdelta mounts a file system ("tracefs on DIR").
func mountPurpose(m string) string {
	switch fstype, _, _ := strings.Cut(m, " "); fstype {
	case "tracefs":
		return "to count tracepoints, as perf does when root"
	case "debugfs":
		return "to read the preemption mode"
	}
	return "as perf does when root"
}
