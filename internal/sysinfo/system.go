package sysinfo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// rcu reads the RCU flavour, the tick, adaptive-tick CPUs and the RCU
// run-time settings.
func (c *collector) rcu() {
	fp := c.fp
	cfg := c.config

	switch {
	case cfg != nil:
		if cfg.On("CONFIG_PREEMPT_RCU") {
			fp.PreemptRCU = Fact{Value: "y", Source: "kernel config (CONFIG_PREEMPT_RCU=y)"}
		} else {
			fp.PreemptRCU = Fact{Value: "n", Source: "kernel config (no CONFIG_PREEMPT_RCU)"}
		}
	case c.bootLog != "" && bootLogPreemptRCU(c.bootLog) != "":
		fp.PreemptRCU = Fact{Value: bootLogPreemptRCU(c.bootLog), Source: "boot log (" + c.bootLogSource + ")"}
	default:
		fp.PreemptRCU = Fact{Unknown: "no kernel config and no RCU banner in the boot log"}
	}

	if cfg != nil {
		if hz, src := hzFromConfig(cfg); hz != "" {
			fp.HZ = Fact{Value: hz, Source: src}
		} else {
			fp.HZ = Fact{Unknown: "kernel config sets no CONFIG_HZ"}
		}
	} else {
		fp.HZ = Fact{Unknown: "no kernel config: " + fp.Config.Unknown}
	}
	fp.NoHZFull = c.noHZFull()

	r := &fp.RCU
	r.Expedited = c.fs.fact("sys/kernel/rcu_expedited")
	r.Normal = c.fs.fact("sys/kernel/rcu_normal")
	if fp.Kernel.Cmdline.Known() {
		var params []string
		for _, p := range c.cmdList {
			if strings.HasPrefix(p, "rcu") {
				params = append(params, p)
			}
		}
		if len(params) == 0 {
			r.Cmdline = Fact{Value: "none", Source: "/proc/cmdline"}
		} else {
			r.Cmdline = Fact{Value: strings.Join(params, " "), Source: "/proc/cmdline"}
		}
	} else {
		r.Cmdline = Fact{Unknown: fp.Kernel.Cmdline.Unknown}
	}
	const dir = "sys/module/rcutree/parameters"
	names, err := c.fs.list(dir)
	if err != nil {
		r.TreeUnknown = reason(dir, err)
		return
	}
	for _, n := range names {
		s, err := c.fs.readString(dir + "/" + n)
		if err != nil {
			continue // a few parameters are write-only
		}
		if r.Tree == nil {
			r.Tree = map[string]string{}
		}
		r.Tree[n] = s
	}
}

// noHZFull says which CPUs run without the periodic tick.
func (c *collector) noHZFull() Fact {
	if c.config != nil && !c.config.On("CONFIG_NO_HZ_FULL") {
		return Fact{Value: "not built", Source: "kernel config (no CONFIG_NO_HZ_FULL)"}
	}
	if v, ok := c.cmdline["nohz_full"]; ok && v != "" {
		return Fact{Value: v, Source: "cmdline (nohz_full=" + v + ")"}
	}
	const file = cpuDir + "nohz_full"
	s, err := c.fs.readString(file)
	switch {
	case err == nil && (s == "" || s == "(null)"):
		return Fact{Value: "none", Source: "/" + file}
	case err == nil:
		return Fact{Value: s, Source: "/" + file}
	case c.config != nil:
		return Fact{Value: "none", Source: "no nohz_full= on the cmdline"}
	}
	return unknown(file, err)
}

// system reads the remaining machine-wide settings and the load at start.
func (c *collector) system() {
	fp := c.fp
	fp.THP = c.selectorFact("sys/kernel/mm/transparent_hugepage/enabled")

	const tuned = "etc/tuned/active_profile"
	if s, err := c.fs.readString(tuned); err == nil {
		if s == "" {
			s = "none"
		}
		fp.Tuned = Fact{Value: s, Source: "/" + tuned}
	} else if c.fs.exists("etc") && !c.fs.exists("etc/tuned") {
		fp.Tuned = Fact{Value: "none", Source: "no /etc/tuned (tuned not installed)"}
	} else {
		fp.Tuned = unknown(tuned, err)
	}

	fp.MemTotal = c.memTotal()
	if s, err := c.fs.readString("proc/loadavg"); err != nil {
		fp.LoadAvg = unknown("proc/loadavg", err)
		fp.Processes = fp.LoadAvg
	} else if f := strings.Fields(s); len(f) >= 4 {
		fp.LoadAvg = Fact{Value: strings.Join(f[:3], " "), Source: "/proc/loadavg"}
		if _, total, ok := strings.Cut(f[3], "/"); ok {
			fp.Processes = Fact{Value: total, Source: "/proc/loadavg"}
		} else {
			fp.Processes = Fact{Unknown: "/proc/loadavg: field 4 is not RUNNING/TOTAL: " + quote(f[3])}
		}
	} else {
		fp.LoadAvg = Fact{Unknown: "/proc/loadavg: fewer than 4 fields: " + quote(s)}
		fp.Processes = fp.LoadAvg
	}
	fp.OtherRunnable = c.otherRunnable()
	fp.PerfEventParanoid = c.fs.fact("proc/sys/kernel/perf_event_paranoid")
	fp.Taint = c.taint()
	fp.Clocksource = c.fs.fact("sys/devices/system/clocksource/clocksource0/current_clocksource")
	if id, err := c.fs.readString("proc/sys/kernel/random/boot_id"); err == nil {
		fp.BootID = strings.TrimSpace(id)
	}
}

// selectorFact reads a "a [b] c" selector file into its selected value.
func (c *collector) selectorFact(rel string) Fact {
	s, err := c.fs.readString(rel)
	if err != nil {
		return unknown(rel, err)
	}
	if v := selected(s); v != "" {
		return Fact{Value: v, Source: "/" + rel}
	}
	return Fact{Unknown: "/" + rel + ": no [selected] value in " + quote(s)}
}

// memTotal reads MemTotal from /proc/meminfo.
func (c *collector) memTotal() Fact {
	data, err := c.fs.read("proc/meminfo")
	if err != nil {
		return unknown("proc/meminfo", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			return Fact{Value: strings.Join(strings.Fields(v), " "), Source: "/proc/meminfo"}
		}
	}
	return Fact{Unknown: "no MemTotal in /proc/meminfo"}
}

// taintFlags are the letters of the kernel taint bits, bit 0 first
// (Documentation/admin-guide/tainted-kernels.rst).
const taintFlags = "PFSRMBUDAWCIOELKXTNJ"

// taint reads the taint mask and spells its flags: "4096 (O)".
func (c *collector) taint() Fact {
	const file = "proc/sys/kernel/tainted"
	s, err := c.fs.readString(file)
	if err != nil {
		return unknown(file, err)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return Fact{Unknown: "/" + file + ": not a number: " + quote(s)}
	}
	if n == 0 {
		return Fact{Value: "0 (not tainted)", Source: "/" + file}
	}
	var flags []string
	for bit := 0; bit < 64; bit++ {
		if n&(1<<bit) == 0 {
			continue
		}
		if bit < len(taintFlags) {
			flags = append(flags, taintFlags[bit:bit+1])
		} else {
			flags = append(flags, fmt.Sprintf("bit%d", bit))
		}
	}
	return Fact{Value: fmt.Sprintf("%d (%s)", n, strings.Join(flags, " ")), Source: "/" + file}
}

// virtualization decides whether the machine runs under a hypervisor.
func (c *collector) virtualization() {
	fp := c.fp
	if s, err := c.fs.readString("sys/hypervisor/type"); err == nil && s != "" {
		fp.Virtualization = Fact{Value: "vm (" + s + ")", Source: "/sys/hypervisor/type"}
		return
	}
	vendor, _ := c.fs.readString("sys/class/dmi/id/sys_vendor")
	product, _ := c.fs.readString("sys/class/dmi/id/product_name")
	dmi := strings.TrimSpace(vendor + " " + product)
	ci := c.cpuinfo
	arch := fp.Arch.Value
	if ci != nil && ci.Arch != "" {
		arch = ci.Arch
	}
	switch {
	case ci == nil:
		fp.Virtualization = Fact{Unknown: "no /proc/cpuinfo: " + fp.CPU.Model.Unknown}
	case arch == "s390x":
		fp.Virtualization = c.s390Virtualization()
	case arch == "ppc64le" || arch == "ppc64":
		switch {
		case strings.EqualFold(ci.Platform, "PowerNV"):
			fp.Virtualization = Fact{Value: "none", Source: "cpuinfo (platform PowerNV: bare metal)"}
		case strings.Contains(strings.ToLower(ci.Machine), "qemu"):
			fp.Virtualization = Fact{Value: "vm (KVM/QEMU pSeries guest)", Source: "cpuinfo (platform, model)"}
		case strings.EqualFold(ci.Platform, "pSeries"):
			fp.Virtualization = Fact{Value: "lpar (PowerVM pSeries)", Source: "cpuinfo (platform pSeries)"}
		default:
			fp.Virtualization = Fact{Unknown: "cpuinfo platform " + quote(ci.Platform) + " is neither PowerNV nor pSeries"}
		}
	case arch == "x86_64":
		switch {
		case ci.Hypervisor && dmi != "":
			fp.Virtualization = Fact{Value: "vm (" + dmi + ")", Source: "cpuinfo hypervisor flag, DMI"}
		case ci.Hypervisor:
			fp.Virtualization = Fact{Value: "vm", Source: "cpuinfo hypervisor flag (no DMI)"}
		default:
			fp.Virtualization = Fact{Value: "none", Source: "cpuinfo (no hypervisor flag)"}
		}
	default:
		if dmiNamesHypervisor(dmi) {
			fp.Virtualization = Fact{Value: "vm (" + dmi + ")", Source: "DMI"}
		} else if dmi != "" {
			fp.Virtualization = Fact{Unknown: "no hypervisor flag on " + arch + "; DMI " + quote(dmi) + " names no hypervisor"}
		} else {
			fp.Virtualization = Fact{Unknown: "no hypervisor flag on " + arch + " and no DMI"}
		}
	}
}

// dmiNamesHypervisor tells whether DMI vendor and product name a virtual
// machine.
func dmiNamesHypervisor(dmi string) bool {
	d := strings.ToLower(dmi)
	for _, w := range []string{"qemu", "kvm", "vmware", "virtualbox", "xen", "virtual machine", "bochs", "cloud hypervisor", "firecracker"} {
		if strings.Contains(d, w) {
			return true
		}
	}
	return false
}

// s390Virtualization reads the levels of /proc/sysinfo: every s390 Linux
// runs in an LPAR, possibly under z/VM or KVM, possibly nested.
func (c *collector) s390Virtualization() Fact {
	data, err := c.fs.read("proc/sysinfo")
	if err != nil {
		return unknown("proc/sysinfo", err)
	}
	kv := sysinfoFields(data)
	levels := []string{"lpar"}
	var keys []string
	for k := range kv {
		if strings.HasPrefix(k, "VM") && strings.HasSuffix(k, " Control Program") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		levels = append(levels, strings.Join(strings.Fields(kv[k]), " "))
	}
	if len(levels) == 1 {
		return Fact{Value: "lpar", Source: "/proc/sysinfo (no VM level)"}
	}
	return Fact{Value: "vm (" + strings.Join(levels, " > ") + ")", Source: "/proc/sysinfo"}
}
