package sysinfo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

const cpuDir = "sys/devices/system/cpu/"

// cpu reads the processor model, topology, SMT state, NUMA nodes and
// frequency and idle management.
func (c *collector) cpu() {
	fp := c.fp
	cpu := &fp.CPU

	data, err := c.fs.read("proc/cpuinfo")
	if err != nil {
		u := unknown("proc/cpuinfo", err)
		cpu.Vendor, cpu.Model, cpu.Family, cpu.Stepping, cpu.Microcode, cpu.Machine = u, u, u, u, u, u
	} else {
		ci, perr := ParseCPUInfo(data)
		if perr != nil {
			fp.Problems = append(fp.Problems, "/proc/cpuinfo: "+perr.Error())
		}
		if ci == nil {
			ci = &CPUInfo{}
		}
		c.cpuinfo = ci
		const src = "/proc/cpuinfo"
		field := func(v, what string) Fact {
			if v == "" {
				return Fact{Unknown: "/proc/cpuinfo names no " + what}
			}
			return Fact{Value: v, Source: src}
		}
		cpu.Vendor = field(ci.Vendor, "vendor")
		cpu.Model = field(ci.Model, "model")
		family := ci.Family
		if ci.ModelID != "" {
			family += " model " + ci.ModelID
		}
		cpu.Family = field(family, "family")
		cpu.Stepping = field(ci.Stepping, "stepping or revision")
		cpu.Microcode = field(ci.Microcode, "microcode")
		machine := strings.TrimSpace(ci.Platform + " " + ci.Machine)
		cpu.Machine = field(machine, "platform or machine")
		if ci.Arch == "s390x" {
			if m := c.s390Model(); m != "" {
				cpu.Machine = Fact{Value: m, Source: "/proc/sysinfo"}
			}
		}
	}

	cpu.Online = c.fs.fact(cpuDir + "online")
	// An empty isolated file means no CPU is isolated.
	if s, err := c.fs.readString(cpuDir + "isolated"); err != nil {
		cpu.Isolated = unknown(cpuDir+"isolated", err)
	} else if s == "" {
		cpu.Isolated = Fact{Value: "none", Source: "/" + cpuDir + "isolated"}
	} else {
		cpu.Isolated = Fact{Value: s, Source: "/" + cpuDir + "isolated"}
	}
	cpu.SMTControl = c.fs.fact(cpuDir + "smt/control")
	cpu.SMTActive = c.fs.fact(cpuDir + "smt/active")
	c.threadSiblings()
	cpu.NUMANodes = c.fs.fact("sys/devices/system/node/online")

	c.cpufreq()
	cpu.IdleDriver = c.fs.fact(cpuDir + "cpuidle/current_driver")
	cpu.IdleGovernor = c.fs.fact(cpuDir + "cpuidle/current_governor_ro")
	if !cpu.IdleGovernor.Known() {
		if g := c.fs.fact(cpuDir + "cpuidle/current_governor"); g.Known() {
			cpu.IdleGovernor = g
		}
	}

	c.vulnerabilities()
}

// s390Model returns "Type Model" from /proc/sysinfo ("2964 703 N96").
func (c *collector) s390Model() string {
	data, err := c.fs.read("proc/sysinfo")
	if err != nil {
		return ""
	}
	kv := sysinfoFields(data)
	return strings.Join(strings.Fields(kv["Type"]+" "+kv["Model"]), " ")
}

// sysinfoFields parses the "Key:   value" lines of s390 /proc/sysinfo,
// keeping the first value of each key.
func sysinfoFields(data []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, seen := m[k]; !seen && k != "" {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// threadSiblings reads each online CPU's topology/thread_siblings_list,
// for the tuning check of pinned CPUs.
func (c *collector) threadSiblings() {
	cpu := &c.fp.CPU
	var cpus []int
	if cpu.Online.Known() {
		cpus, _ = sys.ParseCPUList(cpu.Online.Value)
	}
	if cpus == nil {
		names, err := c.fs.list(strings.TrimSuffix(cpuDir, "/"))
		if err != nil {
			cpu.ThreadSiblingsUnknown = reason(strings.TrimSuffix(cpuDir, "/"), err)
			return
		}
		for _, n := range names {
			if id, ok := strings.CutPrefix(n, "cpu"); ok && isDigits(id) {
				i, _ := strconv.Atoi(id)
				cpus = append(cpus, i)
			}
		}
		sort.Ints(cpus)
	}
	var firstErr error
	firstRel := ""
	for _, n := range cpus {
		rel := fmt.Sprintf("%scpu%d/topology/thread_siblings_list", cpuDir, n)
		s, err := c.fs.readString(rel)
		if err != nil {
			if firstErr == nil {
				firstErr, firstRel = err, rel
			}
			continue
		}
		if cpu.ThreadSiblings == nil {
			cpu.ThreadSiblings = map[int]string{}
		}
		cpu.ThreadSiblings[n] = s
	}
	if cpu.ThreadSiblings == nil {
		if firstErr != nil {
			cpu.ThreadSiblingsUnknown = reason(firstRel, firstErr)
		} else {
			cpu.ThreadSiblingsUnknown = "no CPUs listed"
		}
	}
}

// cpufreq reads the scaling driver and governor of every cpufreq policy
// and the boost (turbo) switch.
func (c *collector) cpufreq() {
	cpu := &c.fp.CPU
	const dir = cpuDir + "cpufreq"
	names, err := c.fs.list(dir)
	var policies []string
	for _, n := range names {
		if strings.HasPrefix(n, "policy") {
			policies = append(policies, n)
		}
	}
	sort.Slice(policies, func(i, j int) bool { return policyNum(policies[i]) < policyNum(policies[j]) })
	switch {
	case err != nil:
		cpu.FreqDriver = unknown(dir, err)
		cpu.Governor = cpu.FreqDriver
	case len(policies) == 0:
		why := "no cpufreq policy in /" + dir + " (no frequency scaling driver, as in most VMs)"
		cpu.FreqDriver = Fact{Unknown: why}
		cpu.Governor = Fact{Unknown: why}
	default:
		cpu.FreqDriver = c.distinct(dir, policies, "scaling_driver")
		cpu.Governor = c.distinct(dir, policies, "scaling_governor")
		cpu.FreqLimits = c.freqLimits(dir, policies)
	}
	if err != nil || len(policies) == 0 {
		cpu.FreqLimits = cpu.Governor
	}

	// Boost: the global switch of acpi-cpufreq and amd-pstate, then
	// intel_pstate's inverted no_turbo, then per-policy switches.
	if s, err := c.fs.readString(dir + "/boost"); err == nil {
		cpu.Boost = Fact{Value: onOff(s == "1"), Source: "/" + dir + "/boost"}
		return
	}
	if s, err := c.fs.readString(cpuDir + "intel_pstate/no_turbo"); err == nil {
		cpu.Boost = Fact{Value: onOff(s == "0"), Source: "/" + cpuDir + "intel_pstate/no_turbo"}
		return
	}
	if len(policies) > 0 {
		if f := c.distinct(dir, policies, "boost"); f.Known() {
			vals := strings.Split(f.Value, ",")
			for i, v := range vals {
				vals[i] = onOff(v == "1")
			}
			cpu.Boost = Fact{Value: strings.Join(vals, ","), Source: f.Source}
			return
		}
	}
	cpu.Boost = Fact{Unknown: "no boost switch (/" + dir + "/boost, /" + cpuDir + "intel_pstate/no_turbo)"}
}

// freqLimits reads each policy's scaling range and hardware maximum, as
// "800-3500 of 3500 MHz", distinct values joined with commas.
func (c *collector) freqLimits(dir string, policies []string) Fact {
	var vals []string
	seen := map[string]bool{}
	for _, p := range policies {
		var khz [3]int
		for i, f := range []string{"scaling_min_freq", "scaling_max_freq", "cpuinfo_max_freq"} {
			s, err := c.fs.readString(dir + "/" + p + "/" + f)
			if err != nil {
				return unknown(dir+"/"+p+"/"+f, err)
			}
			if khz[i], err = strconv.Atoi(s); err != nil {
				return Fact{Unknown: "/" + dir + "/" + p + "/" + f + ": not kHz: " + quote(s)}
			}
		}
		v := fmt.Sprintf("%d-%d of %d MHz", khz[0]/1000, khz[1]/1000, khz[2]/1000)
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	return Fact{Value: strings.Join(vals, ","), Source: "/" + dir + "/policy*/{scaling_min,scaling_max,cpuinfo_max}_freq"}
}

// policyNum returns N of "policyN", for numeric order.
func policyNum(s string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(s, "policy"))
	return n
}

// distinct reads file in every policy directory and joins the distinct
// values with commas, in policy order.
func (c *collector) distinct(dir string, policies []string, file string) Fact {
	var vals []string
	seen := map[string]bool{}
	var firstErr error
	firstRel := ""
	for _, p := range policies {
		rel := dir + "/" + p + "/" + file
		s, err := c.fs.readString(rel)
		if err != nil {
			if firstErr == nil {
				firstErr, firstRel = err, rel
			}
			continue
		}
		if !seen[s] {
			seen[s] = true
			vals = append(vals, s)
		}
	}
	if len(vals) == 0 {
		if firstErr == nil {
			return Fact{Unknown: "no cpufreq policy"}
		}
		return unknown(firstRel, firstErr)
	}
	return Fact{Value: strings.Join(vals, ","), Source: "/" + dir + "/policy*/" + file}
}

// onOff spells a switch.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// vulnerabilities reads every file of the vulnerabilities directory, and
// the mitigations= setting that chose among them.
func (c *collector) vulnerabilities() {
	fp := c.fp
	const dir = cpuDir + "vulnerabilities"
	names, err := c.fs.list(dir)
	if err != nil {
		fp.VulnerabilitiesUnknown = reason(dir, err)
	} else {
		for _, n := range names {
			s, err := c.fs.readString(dir + "/" + n)
			if err != nil {
				s = "unknown: " + reason(dir+"/"+n, err)
			}
			if fp.Vulnerabilities == nil {
				fp.Vulnerabilities = map[string]string{}
			}
			fp.Vulnerabilities[n] = s
		}
		if len(names) == 0 {
			fp.VulnerabilitiesUnknown = "/" + dir + " is empty"
		}
	}

	switch v, ok := c.cmdline["mitigations"]; {
	case ok:
		fp.Mitigations = Fact{Value: v, Source: "cmdline (mitigations=" + v + ")"}
	case !fp.Kernel.Cmdline.Known():
		fp.Mitigations = Fact{Unknown: fp.Kernel.Cmdline.Unknown}
	case c.config != nil && c.config["CONFIG_CPU_MITIGATIONS"] == "n":
		// Only an explicit "is not set": before 6.9 the option was
		// x86's SPECULATION_MITIGATIONS and other arches had none.
		fp.Mitigations = Fact{Value: "off", Source: "kernel config (CONFIG_CPU_MITIGATIONS is not set)"}
	default:
		fp.Mitigations = Fact{Value: "auto", Source: "kernel default (no mitigations= on the cmdline)"}
	}
}

// cpuListLen counts the items of a kernel list ("0-3,8" has 5).
func cpuListLen(s string) (int, error) {
	l, err := sys.ParseCPUList(s)
	return len(l), err
}
