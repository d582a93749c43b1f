package sysinfo

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Cgroup is where the measured process runs in the control-group tree and
// the limits it has there: what makes one setup slower than another with
// no kernel difference at all (a CPU quota of half a CPU doubles a busy
// loop's time).
type Cgroup struct {
	// Version is "v1", "v2", or "v1 (hybrid, v2 at /sys/fs/cgroup/unified)".
	Version Fact `json:"version"`
	// Path is the process's cgroup: the cpu controller's under v1, the
	// unified one under v2.
	Path Fact `json:"path"`
	// CPUQuota is "none" or the tightest CPU bandwidth limit on the path
	// from the root, "50000/100000 us (0.50 CPU) at /x".
	CPUQuota Fact `json:"cpu_quota"`
	// Cpuset is the CPUs the cgroup lets its tasks run on.
	Cpuset Fact `json:"cpuset"`
	// MemoryLimit is "none" or the tightest memory limit on the path, in
	// bytes and GiB.
	MemoryLimit Fact `json:"memory_limit"`
}

// noMemLimit is the memory limit v1 reports for none: the page-rounded
// largest signed 64-bit count; anything this large is no limit.
const noMemLimit = 1 << 62

// cgroup reads the process's cgroup and its limits, from /proc/self/cgroup
// and the cgroup file systems under /sys/fs/cgroup.
func (c *collector) cgroup() {
	cg := &c.fp.Cgroup
	s, err := c.fs.readString("proc/self/cgroup")
	if err != nil {
		u := unknown("proc/self/cgroup", err)
		*cg = Cgroup{Version: u, Path: u, CPUQuota: u, Cpuset: u, MemoryLimit: u}
		return
	}
	v1 := map[string]string{} // controller -> path
	unified, hasUnified := "", false
	for _, line := range strings.Split(s, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			unified, hasUnified = f[2], true
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			v1[ctl] = f[2]
		}
	}
	const src = "/proc/self/cgroup"
	switch {
	case c.fs.exists("sys/fs/cgroup/cgroup.controllers") && hasUnified:
		cg.Version = Fact{Value: "v2", Source: "/sys/fs/cgroup/cgroup.controllers"}
		cg.Path = Fact{Value: unified, Source: src}
		dir := func(string) string { return "sys/fs/cgroup" }
		cg.CPUQuota = c.cgroupLimit(dir, unified, "cpu", "cpu.max", parseCPUMax)
		cg.MemoryLimit = c.cgroupLimit(dir, unified, "memory", "memory.max", parseMemLimit)
		cg.Cpuset = c.cgroupFile(dir, unified, "cpuset.cpus.effective")
	case len(v1) > 0:
		cg.Version = Fact{Value: "v1", Source: src}
		if hasUnified && c.fs.exists("sys/fs/cgroup/unified/cgroup.controllers") {
			cg.Version.Value = "v1 (hybrid, v2 at /sys/fs/cgroup/unified)"
		}
		p, ok := v1["cpu"]
		if !ok {
			cg.Path = Fact{Unknown: "no cpu controller in " + src}
		} else {
			cg.Path = Fact{Value: p, Source: src}
		}
		cg.CPUQuota = c.cgroupLimit(c.v1Dir, v1["cpu"], "cpu", "cpu.cfs_quota_us", nil)
		cg.MemoryLimit = c.cgroupLimit(c.v1Dir, v1["memory"], "memory", "memory.limit_in_bytes", parseMemLimit)
		cg.Cpuset = c.cgroupFile(c.v1Dir, v1["cpuset"], "cpuset.effective_cpus")
		if !cg.Cpuset.Known() {
			if f := c.cgroupFile(c.v1Dir, v1["cpuset"], "cpuset.cpus"); f.Known() {
				cg.Cpuset = f
			}
		}
	default:
		u := Fact{Unknown: src + " names no cgroup"}
		*cg = Cgroup{Version: u, Path: u, CPUQuota: u, Cpuset: u, MemoryLimit: u}
	}
}

// v1Dir is the mount of a v1 controller: /sys/fs/cgroup/cpu, or the
// joint cpu,cpuacct mount where the kernel has no cpu link.
func (c *collector) v1Dir(ctl string) string {
	d := "sys/fs/cgroup/" + ctl
	if ctl == "cpu" && !c.fs.exists(d) && c.fs.exists("sys/fs/cgroup/cpu,cpuacct") {
		return "sys/fs/cgroup/cpu,cpuacct"
	}
	return d
}

// cgroupFile reads file in the cgroup at p of the controller mounted where
// dir says.
func (c *collector) cgroupFile(dir func(string) string, p, file string) Fact {
	ctl, _, _ := strings.Cut(file, ".")
	rel := path.Join(dir(ctl), p, file)
	return c.fs.fact(rel)
}

// A limit is one cgroup's share of a resource, as a fraction (CPUs, or
// bytes) and its text; none is no limit.
type limit struct {
	amount float64
	text   string
	none   bool
}

// cgroupLimit walks from the cgroup at p up to the root and returns the
// tightest limit on the way: a child cgroup cannot use more than its
// parents allow. parse reads one cgroup's file; nil means v1's CPU pair,
// cpu.cfs_quota_us over cpu.cfs_period_us.
func (c *collector) cgroupLimit(dir func(string) string, p, ctl, file string, parse func(string) (limit, error)) Fact {
	base := dir(ctl)
	if !c.fs.exists(base) {
		return Fact{Unknown: "no /" + base + " (the " + ctl + " controller is not mounted)"}
	}
	best, at, read := limit{none: true}, "", false
	for q := path.Clean("/" + p); ; q = path.Dir(q) {
		rel := path.Join(base, q, file)
		s, err := c.fs.readString(rel)
		if err == nil {
			var l limit
			if parse == nil {
				l, err = c.v1CPUQuota(rel, s)
			} else {
				l, err = parse(s)
			}
			if err != nil {
				return Fact{Unknown: "/" + rel + ": " + err.Error()}
			}
			read = true
			if !l.none && (best.none || l.amount < best.amount) {
				best, at = l, q
			}
		}
		if q == "/" {
			break
		}
	}
	if !read {
		return Fact{Unknown: "no " + file + " in /" + path.Join(base, p) + " or above"}
	}
	src := "/" + path.Join(base, p) + "/" + file + " and its parents"
	if best.none {
		return Fact{Value: "none", Source: src}
	}
	return Fact{Value: best.text + " at " + at, Source: src}
}

// v1CPUQuota reads cpu.cfs_quota_us (s) and the period beside it.
func (c *collector) v1CPUQuota(rel, s string) (limit, error) {
	quota, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return limit{}, fmt.Errorf("not a number: %q", s)
	}
	if quota < 0 {
		return limit{none: true}, nil
	}
	ps, err := c.fs.readString(path.Join(path.Dir(rel), "cpu.cfs_period_us"))
	if err != nil {
		return limit{}, err
	}
	return cpuLimit(strconv.FormatInt(quota, 10), ps)
}

// parseCPUMax reads v2's cpu.max, "max 100000" or "50000 100000".
func parseCPUMax(s string) (limit, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return limit{}, fmt.Errorf("not QUOTA PERIOD: %q", s)
	}
	if f[0] == "max" {
		return limit{none: true}, nil
	}
	return cpuLimit(f[0], f[1])
}

// cpuLimit is quota over period microseconds, as CPUs.
func cpuLimit(quota, period string) (limit, error) {
	q, err1 := strconv.ParseFloat(quota, 64)
	p, err2 := strconv.ParseFloat(period, 64)
	if err1 != nil || err2 != nil || p <= 0 || q < 0 {
		return limit{}, fmt.Errorf("bad quota %q over period %q", quota, period)
	}
	return limit{amount: q / p, text: fmt.Sprintf("%s/%s us (%.2f CPU)", quota, period, q/p)}, nil
}

// parseMemLimit reads memory.max ("max" or bytes) or v1's
// memory.limit_in_bytes.
func parseMemLimit(s string) (limit, error) {
	if s == "max" {
		return limit{none: true}, nil
	}
	b, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return limit{}, fmt.Errorf("not a number of bytes: %q", s)
	}
	if b >= noMemLimit {
		return limit{none: true}, nil
	}
	return limit{amount: b, text: fmt.Sprintf("%.0f bytes (%.2f GiB)", b, b/(1<<30))}, nil
}

// CPUQuotaCPUs returns the CPUs the process's CPU quota allows, and
// whether one applies.
func (cg Cgroup) CPUQuotaCPUs() (float64, bool) {
	if !cg.CPUQuota.Known() || cg.CPUQuota.Value == "none" {
		return 0, false
	}
	_, rest, ok := strings.Cut(cg.CPUQuota.Value, "(")
	v, _, ok2 := strings.Cut(rest, " CPU)")
	n, err := strconv.ParseFloat(v, 64)
	if !ok || !ok2 || err != nil {
		return 0, false
	}
	return n, true
}
