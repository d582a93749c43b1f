package sysinfo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// An entry is one line of the fingerprint as env prints it and env diff
// compares it.
type entry struct {
	section string // heading in the text form
	name    string // stable identifier, the Field of a Difference
	label   string // what the text form prints
	fact    Fact
	// rank orders performance-relevant entries in a diff (lower first);
	// zero means not performance-relevant.
	rank int
}

// Ranks of the performance-relevant entries: the order in which a diff
// lists them, most likely explanation of a changed result first.
const (
	rankPreemptMode = 10 + iota*10
	rankPreemptModel
	rankPreemptDynamic
	rankPreemptRCU
	rankHZ
	rankNoHZ
	rankRCU
	rankSMT
	rankSELinux
	rankMitigations
	rankVulnerability
	rankGovernor
	rankCPUModel
	rankCPUs
	rankCgroup
	rankClocksource
	rankVirtualization
	rankTools
)

// entries lists the fingerprint in the order env prints it.
func (fp *Fingerprint) entries() []entry {
	var es []entry
	add := func(section, name, label string, f Fact, rank int) {
		es = append(es, entry{section: section, name: name, label: label, fact: f, rank: rank})
	}
	known := func(v string) Fact { return Fact{Value: v} }

	const kern = "kernel"
	add(kern, "kernel.release", "release", fp.Kernel.Release, 0)
	add(kern, "kernel.version", "version", fp.Kernel.Version, 0)
	add(kern, "kernel.compiler", "compiler", fp.Kernel.Compiler, 0)
	add(kern, "kernel.cmdline", "cmdline", fp.Kernel.Cmdline, 0)
	cfg := Fact{Unknown: fp.Config.Unknown}
	if fp.Config.Unknown == "" {
		cfg = Fact{Value: fmt.Sprintf("%s (%d options)", fp.Config.Source, fp.Config.Options)}
	}
	add(kern, "kernel.config", "config", cfg, 0)
	add(kern, "arch", "arch", fp.Arch, rankCPUModel)
	add(kern, "os", "os", fp.OS, 0)
	add(kern, "hostname", "hostname", fp.Hostname, 0)

	const pre = "preemption"
	add(pre, "preempt.mode", "mode (run time)", fp.Preempt.Mode, rankPreemptMode)
	add(pre, "preempt.model", "model (build)", fp.Preempt.Model, rankPreemptModel)
	add(pre, "preempt.dynamic", "PREEMPT_DYNAMIC", fp.Preempt.Dynamic, rankPreemptDynamic)
	add(pre, "preempt.debugfs", "debugfs preempt", fp.Preempt.Debugfs, 0)
	add(pre, "preempt.boot_log", "boot log", fp.Preempt.BootLog, 0)
	add(pre, "preempt.cmdline", "preempt=", fp.Preempt.Cmdline, 0)
	for i, ig := range fp.Ignored {
		add(pre, fmt.Sprintf("ignored.%d", i), "ignored", known(ig), rankPreemptModel)
	}
	add(pre, "preempt_rcu", "PREEMPT_RCU", fp.PreemptRCU, rankPreemptRCU)
	add(pre, "hz", "HZ", fp.HZ, rankHZ)
	add(pre, "nohz_full", "nohz_full", fp.NoHZFull, rankNoHZ)

	const rcu = "rcu"
	add(rcu, "rcu.expedited", "rcu_expedited", fp.RCU.Expedited, rankRCU)
	add(rcu, "rcu.normal", "rcu_normal", fp.RCU.Normal, rankRCU)
	add(rcu, "rcu.cmdline", "boot parameters", fp.RCU.Cmdline, rankRCU)
	if fp.RCU.TreeUnknown != "" {
		add(rcu, "rcutree", "rcutree.*", Fact{Unknown: fp.RCU.TreeUnknown}, rankRCU)
	}
	for _, k := range sortedKeys(fp.RCU.Tree) {
		add(rcu, "rcutree."+k, "rcutree."+k, known(fp.RCU.Tree[k]), rankRCU)
	}

	const cpu = "cpu"
	c := &fp.CPU
	add(cpu, "cpu.vendor", "vendor", c.Vendor, rankCPUModel)
	add(cpu, "cpu.model", "model", c.Model, rankCPUModel)
	add(cpu, "cpu.family", "family", c.Family, rankCPUModel)
	add(cpu, "cpu.stepping", "stepping", c.Stepping, rankCPUModel)
	add(cpu, "cpu.microcode", "microcode", c.Microcode, 0)
	add(cpu, "cpu.machine", "machine", c.Machine, rankCPUModel)
	add(cpu, "cpu.online", "online", withCount(c.Online), rankCPUs)
	add(cpu, "cpu.isolated", "isolated", c.Isolated, rankCPUs)
	smt := c.SMTControl
	if isDigits(smt.Value) {
		// POWER runs partial SMT: the file then holds the threads per core.
		smt.Value += " threads per core"
	}
	add(cpu, "smt.control", "SMT control", smt, rankSMT)
	add(cpu, "smt.active", "SMT active", c.SMTActive, rankSMT)
	add(cpu, "cpu.siblings", "thread siblings", siblingsFact(c), rankSMT)
	add(cpu, "numa.nodes", "NUMA nodes", withCount(c.NUMANodes), 0)
	add(cpu, "cpufreq.driver", "cpufreq driver", c.FreqDriver, 0)
	add(cpu, "cpufreq.governor", "governor", c.Governor, rankGovernor)
	add(cpu, "cpufreq.boost", "boost/turbo", c.Boost, rankGovernor)
	if c.FreqLimits != (Fact{}) {
		// Fingerprints from before the limits have none.
		add(cpu, "cpufreq.limits", "frequency limits", c.FreqLimits, rankGovernor)
	}
	add(cpu, "cpuidle.driver", "cpuidle driver", c.IdleDriver, 0)
	add(cpu, "cpuidle.governor", "cpuidle governor", c.IdleGovernor, 0)

	if cg := fp.Cgroup; cg != (Cgroup{}) {
		const cgr = "cgroup"
		add(cgr, "cgroup.version", "version", cg.Version, 0)
		add(cgr, "cgroup.path", "path", cg.Path, 0)
		add(cgr, "cgroup.cpu_quota", "CPU quota", cg.CPUQuota, rankCgroup)
		add(cgr, "cgroup.cpuset", "cpuset", cg.Cpuset, rankCgroup)
		add(cgr, "cgroup.memory_limit", "memory limit", cg.MemoryLimit, rankCgroup)
	}

	const sec = "security"
	add(sec, "selinux", "SELinux", fp.SELinux, rankSELinux)
	add(sec, "lockdown", "lockdown", fp.Lockdown, 0)
	add(sec, "audit", "audit", fp.Audit, 0)
	add(sec, "mitigations", "mitigations=", fp.Mitigations, rankMitigations)
	if fp.VulnerabilitiesUnknown != "" {
		add(sec, "vuln", "vulnerabilities", Fact{Unknown: fp.VulnerabilitiesUnknown}, rankVulnerability)
	}
	for _, k := range sortedKeys(fp.Vulnerabilities) {
		add(sec, "vuln."+k, k, mapFact(fp.Vulnerabilities[k]), rankVulnerability)
	}

	const sys = "system"
	add(sys, "virtualization", "virtualization", fp.Virtualization, rankVirtualization)
	add(sys, "tuned", "tuned profile", fp.Tuned, 0)
	add(sys, "thp", "THP", fp.THP, 0)
	mem := fp.MemTotal
	if g := memGiB(mem.Value); g != "" {
		mem.Value += " (" + g + ")"
	}
	add(sys, "mem_total", "MemTotal", mem, 0)
	add(sys, "loadavg", "load average", fp.LoadAvg, 0)
	add(sys, "processes", "processes", fp.Processes, 0)
	if fp.OtherRunnable != (Fact{}) {
		// Fingerprints from before the count have none.
		add(sys, "other_runnable", "other runnable", fp.OtherRunnable, 0)
	}
	add(sys, "perf_event_paranoid", "perf_event_paranoid", fp.PerfEventParanoid, 0)
	add(sys, "taint", "taint", fp.Taint, 0)
	add(sys, "clocksource", "clocksource", fp.Clocksource, rankClocksource)
	if fp.Shield != nil {
		add(sys, "shield", "CPU shield", known(fp.Shield.String()), rankCPUs)
	}
	if len(fp.Mounts) > 0 {
		add(sys, "mounts", "mounted by kdelta", known(strings.Join(fp.Mounts, ", ")), 0)
	}

	for _, k := range sortedKeys(fp.Tools) {
		add("tools", "tool."+k, k, mapFact(fp.Tools[k]), rankTools)
	}
	return es
}

// mapFact makes a Fact of a map value, where "unknown: REASON" stands for
// a value that could not be read.
func mapFact(v string) Fact {
	if u, ok := strings.CutPrefix(v, "unknown: "); ok {
		return Fact{Unknown: u}
	}
	return Fact{Value: v}
}

// withCount appends the number of items to a CPU or node list: "0-7 (8)".
func withCount(f Fact) Fact {
	if !f.Known() {
		return f
	}
	n, err := cpuListLen(f.Value)
	if err != nil {
		return f
	}
	f.Value = fmt.Sprintf("%s (%d)", f.Value, n)
	return f
}

// siblingsFact summarises the thread siblings as the distinct sibling
// groups, "0-1 2-3", which is what matters to pinning.
func siblingsFact(c *CPU) Fact {
	if c.ThreadSiblingsUnknown != "" {
		return Fact{Unknown: c.ThreadSiblingsUnknown}
	}
	if len(c.ThreadSiblings) == 0 {
		return Fact{Unknown: "not read"}
	}
	cpus := make([]int, 0, len(c.ThreadSiblings))
	for n := range c.ThreadSiblings {
		cpus = append(cpus, n)
	}
	sort.Ints(cpus)
	seen := map[string]bool{}
	var groups []string
	for _, n := range cpus {
		g := c.ThreadSiblings[n]
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	return Fact{Value: strings.Join(groups, " ")}
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// memGiB formats a MemTotal of "N kB" in GiB.
func memGiB(v string) string {
	f := strings.Fields(v)
	if len(f) != 2 || f[1] != "kB" {
		return ""
	}
	kb, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%.1f GiB", kb/(1<<20))
}

// An Entry is one line of the fingerprint as kdelta env prints it: its
// section (the heading), stable name (a Difference's Field), label and
// fact.
type Entry struct {
	Section, Name, Label string
	Fact                 Fact
}

// Entries lists the fingerprint in the order kdelta env prints it.
func (fp *Fingerprint) Entries() []Entry {
	var out []Entry
	for _, e := range fp.entries() {
		out = append(out, Entry{Section: e.section, Name: e.name, Label: e.label, Fact: e.fact})
	}
	return out
}
