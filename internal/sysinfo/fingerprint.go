// Package sysinfo takes a machine's environment fingerprint — kernel,
// preemption model and mode, RCU, CPU, SMT, frequency scaling, security
// modules, virtualization, external tool versions — compares two of them,
// and checks a machine's tuning before a benchmark run.
//
// It answers the reviewer's first question about a kernel benchmark result
// ("does your preemption mode remain the same in the two cases?") from data
// stored with the result. Every reader is rooted at an FS so that tests run
// on fixture trees; reading never fails as a whole: a fact that cannot be
// read is kept with the reason it is unknown.
package sysinfo

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// Schema names the JSON layout of a Fingerprint written by this version.
const Schema = "kdelta/env/v1"

// A Fact is one item of the fingerprint: its value and where it came from,
// or, when it could not be found out, why.
type Fact struct {
	Value string `json:"value,omitempty"`
	// Source is the file the value was read from ("/proc/cmdline") or, for
	// a derived value, how it was decided ("boot log (/dev/kmsg)").
	Source string `json:"source,omitempty"`
	// Unknown is the reason the value is missing; empty when it is known.
	Unknown string `json:"unknown,omitempty"`
}

// Known tells whether f holds a value.
func (f Fact) Known() bool { return f.Unknown == "" }

// String returns the value, or "unknown: REASON".
func (f Fact) String() string {
	if !f.Known() {
		return "unknown: " + f.Unknown
	}
	return f.Value
}

// A Fingerprint describes the environment a benchmark ran in. It is stored
// in result sets as JSON.
type Fingerprint struct {
	Schema   string `json:"schema"`
	Hostname Fact   `json:"hostname"`
	// Arch is the machine name as uname -m prints it (x86_64, ppc64le,
	// s390x, aarch64).
	Arch   Fact         `json:"arch"`
	OS     Fact         `json:"os"`
	Kernel Kernel       `json:"kernel"`
	Config KernelConfig `json:"config"`

	Preempt Preemption `json:"preempt"`
	// Ignored lists the boot parameters this kernel ignores for want of
	// the config that gives them effect ("preempt=full on the command line
	// is ignored: this kernel has no PREEMPT_DYNAMIC; ...").
	Ignored    []string `json:"ignored_params,omitempty"`
	PreemptRCU Fact     `json:"preempt_rcu"`
	HZ         Fact     `json:"hz"`
	// NoHZFull is "not built", "none" or the adaptive-tick CPU list.
	NoHZFull Fact `json:"nohz_full"`
	RCU      RCU  `json:"rcu"`

	CPU CPU `json:"cpu"`
	// Cgroup is the measured process's control group and its limits.
	Cgroup Cgroup `json:"cgroup"`

	// Vulnerabilities maps each file of
	// /sys/devices/system/cpu/vulnerabilities to its one line.
	Vulnerabilities        map[string]string `json:"vulnerabilities,omitempty"`
	VulnerabilitiesUnknown string            `json:"vulnerabilities_unknown,omitempty"`
	// Mitigations is the mitigations= setting in effect.
	Mitigations Fact `json:"mitigations"`

	SELinux  Fact `json:"selinux"`
	Lockdown Fact `json:"lockdown"`
	Audit    Fact `json:"audit"`

	Virtualization Fact `json:"virtualization"`
	Tuned          Fact `json:"tuned"`
	THP            Fact `json:"thp"`
	MemTotal       Fact `json:"mem_total"`
	// LoadAvg holds the 1, 5 and 15 minute load averages at start.
	LoadAvg Fact `json:"loadavg"`
	// Processes is the number of tasks at start (field 4 of /proc/loadavg).
	Processes Fact `json:"processes"`
	// OtherRunnable is the number of runnable tasks at start that are not
	// kdelta's (the process and its descendants): the tasks that compete
	// with the runs now, where the load average still remembers tasks
	// that are gone, kdelta's own runs among them.
	OtherRunnable     Fact `json:"other_runnable"`
	PerfEventParanoid Fact `json:"perf_event_paranoid"`
	Taint             Fact `json:"taint"`
	Clocksource       Fact `json:"clocksource"`
	// BootID is /proc/sys/kernel/random/boot_id, new at every boot: which
	// boot a set was measured in (kdelta compare with no set pairs the
	// newest set with one of another boot). Empty when it could not be
	// read; it is not printed by env nor compared by env diff, where
	// every reboot would be a difference.
	BootID string `json:"boot_id,omitempty"`

	// Mounts lists the file systems kdelta mounted because they were
	// missing, as perf mounts tracefs when root ("tracefs on
	// /sys/kernel/tracing"); they stay mounted.
	Mounts []string `json:"mounts,omitempty"`

	// Shield is the CPU shield the runs had (kdelta run --shield); nil
	// for none.
	Shield *Shield `json:"shield,omitempty"`

	// Tools maps an external tool (perf, stress-ng, hackbench) to its
	// version, "not installed", or "unknown: REASON". See ToolVersions.
	Tools map[string]string `json:"tools,omitempty"`

	// Problems lists inputs that were read but were malformed in part
	// (a config line that is not an option), so the facts built from
	// them may be incomplete.
	Problems []string `json:"problems,omitempty"`
}

// A Shield describes a CPU shield: CPUs that every task and IRQ the
// kernel let move was moved off, for the measured tasks alone.
type Shield struct {
	// CPUs are the shielded CPUs, as a CPU list.
	CPUs string `json:"cpus"`
	// Mechanism says how: "cgroup v1 cpuset" or "cgroup v2 isolated
	// partition".
	Mechanism string `json:"mechanism"`
	// TasksMoved counts the tasks moved off the CPUs; TasksRefused those
	// the kernel kept there (kernel threads bound to a CPU).
	TasksMoved   int `json:"tasks_moved"`
	TasksRefused int `json:"tasks_refused"`
	// IRQsMoved counts the IRQs whose affinity was moved off the CPUs;
	// IRQsRefused those whose affinity the kernel would not change.
	IRQsMoved   int `json:"irqs_moved"`
	IRQsRefused int `json:"irqs_refused"`
}

// String says the shield in one line: "1 (cgroup v1 cpuset; tasks 180
// moved, 6 refused; IRQs 20 moved, 1 refused)".
func (s *Shield) String() string {
	return fmt.Sprintf("%s (%s; tasks %d moved, %d refused; IRQs %d moved, %d refused)",
		s.CPUs, s.Mechanism, s.TasksMoved, s.TasksRefused, s.IRQsMoved, s.IRQsRefused)
}

// Kernel identifies the running kernel.
type Kernel struct {
	Release Fact `json:"release"`
	// Version is what uname -v prints ("#1 SMP PREEMPT_DYNAMIC ...").
	Version Fact `json:"version"`
	// Compiler is the toolchain named in /proc/version.
	Compiler Fact `json:"compiler"`
	Cmdline  Fact `json:"cmdline"`
}

// KernelConfig holds the kernel's build configuration: all of it,
// compressed, and the options that bear on performance, readable.
type KernelConfig struct {
	// Source is the file the config was read from.
	Source  string `json:"source,omitempty"`
	Unknown string `json:"unknown,omitempty"`
	// Options counts the options the config sets or marks "is not set".
	Options int `json:"options,omitempty"`
	// Gzip is the whole config file, gzip-compressed (base64 in JSON).
	Gzip []byte `json:"gzip,omitempty"`
	// Perf maps the performance-relevant options (see PerfRelevant) to
	// their values; "n" stands for "is not set".
	Perf map[string]string `json:"perf,omitempty"`
}

// Preemption is the kernel's preemption model, fixed at build time, and its
// run-time mode, which a PREEMPT_DYNAMIC kernel takes from the command line
// or from debugfs.
type Preemption struct {
	// Model is the build-time choice: none, voluntary, full, lazy or rt.
	Model Fact `json:"model"`
	// Dynamic is "yes" when PREEMPT_DYNAMIC is in effect, else "no".
	Dynamic Fact `json:"dynamic"`
	// Mode is the run-time mode: none, voluntary, full or lazy (or rt on a
	// static PREEMPT_RT kernel). Its Source says which of the inputs below
	// decided it.
	Mode Fact `json:"mode"`
	// Debugfs is the content of /sys/kernel/debug/sched/preempt, the
	// current mode in parentheses.
	Debugfs Fact `json:"debugfs"`
	// BootLog is the mode of the last "Dynamic Preempt: MODE" kernel line.
	BootLog Fact `json:"boot_log"`
	// Cmdline is the preempt= boot parameter.
	Cmdline Fact `json:"cmdline"`
}

// RCU holds the RCU run-time settings.
type RCU struct {
	Expedited Fact `json:"expedited"`
	Normal    Fact `json:"normal"`
	// Cmdline lists the rcu_*, rcutree.* and rcupdate.* boot parameters,
	// or "none".
	Cmdline Fact `json:"cmdline"`
	// Tree maps each /sys/module/rcutree/parameters file to its value.
	Tree        map[string]string `json:"tree,omitempty"`
	TreeUnknown string            `json:"tree_unknown,omitempty"`
}

// CPU describes the processors, their topology and their power management.
type CPU struct {
	Vendor Fact `json:"vendor"`
	Model  Fact `json:"model"`
	Family Fact `json:"family"`
	// Stepping is the x86 stepping, the POWER revision (with its PVR), the
	// s390 version or the arm64 rNpN.
	Stepping  Fact `json:"stepping"`
	Microcode Fact `json:"microcode"`
	// Machine is the platform and machine model where the CPU file names
	// one (POWER, s390).
	Machine Fact `json:"machine"`

	Online   Fact `json:"online"`
	Isolated Fact `json:"isolated"`
	// SMTControl is on, off, forceoff, notsupported, notimplemented or,
	// on POWER, a number of threads per core.
	SMTControl Fact `json:"smt_control"`
	SMTActive  Fact `json:"smt_active"`
	// ThreadSiblings maps a CPU to its thread_siblings_list.
	ThreadSiblings        map[int]string `json:"thread_siblings,omitempty"`
	ThreadSiblingsUnknown string         `json:"thread_siblings_unknown,omitempty"`
	NUMANodes             Fact           `json:"numa_nodes"`

	FreqDriver Fact `json:"cpufreq_driver"`
	Governor   Fact `json:"cpufreq_governor"`
	// FreqLimits is each policy's scaling_min_freq-scaling_max_freq of
	// cpuinfo_max_freq, in MHz, distinct values joined.
	FreqLimits   Fact `json:"cpufreq_limits"`
	Boost        Fact `json:"boost"`
	IdleDriver   Fact `json:"cpuidle_driver"`
	IdleGovernor Fact `json:"cpuidle_governor"`
}

// Options adjusts what Collect reads.
type Options struct {
	// BootLog, when not empty, is the kernel log to search for the
	// "Dynamic Preempt:" line (dmesg output or /dev/kmsg records). When
	// empty, Collect reads dmesg.txt at the root of a fixture tree, and
	// /dev/kmsg (without waiting for new records) on a live machine or a
	// tree without dmesg.txt.
	BootLog string
	// Tools is stored as the fingerprint's tool versions; a live caller
	// passes ToolVersions().
	Tools map[string]string
}

// Collect reads the fingerprint of the machine whose root is fs. It never
// fails: what cannot be read is left Unknown with the reason.
func Collect(fs FS, opt Options) *Fingerprint {
	fp := &Fingerprint{Schema: Schema}
	c := &collector{fs: fs, fp: fp}
	if c.live() {
		// Tracepoint counters need tracefs; the fingerprint is taken
		// before them, so that what was mounted is in it and in the
		// tuning check. A failure is told by the counter that needed it.
		_, _ = sys.MountTracefs()
	}

	// Order matters: later readers use what earlier ones found (the
	// config, the command line, the lockdown level, the cpuinfo layout).
	c.kernel()
	c.readConfig()
	c.readBootLog(opt)
	c.security()
	c.preemption()
	c.ignoredParams()
	c.rcu()
	c.cpu()
	c.system()
	c.cgroup()
	c.arch()
	c.virtualization()

	if c.live() {
		fp.Mounts = sys.Mounted()
	}
	if len(opt.Tools) > 0 {
		fp.Tools = make(map[string]string, len(opt.Tools))
		for k, v := range opt.Tools {
			fp.Tools[k] = v
		}
	}
	return fp
}

// A collector carries what the readers share while one fingerprint is
// taken: the parsed command line, config, cpuinfo and boot log.
type collector struct {
	fs FS
	fp *Fingerprint

	cmdline map[string]string // boot parameters, last one wins
	cmdList []string          // boot parameters in order
	config  Config            // nil when unknown
	cpuinfo *CPUInfo          // nil when unknown
	uname   string            // uname -v

	bootLog       string // the log text, when read
	bootLogSource string // where it came from
	bootLogErr    string // why it could not be read
}

// live tells whether the FS is this machine's own root, where a few facts
// (the architecture the binary runs as) come from the process itself.
func (c *collector) live() bool {
	return c.fs.Root == "" || c.fs.Root == "/"
}

// arch decides the machine name from the config, then the kernel release,
// then the CPU file's layout, and on a live machine from the Go runtime.
func (c *collector) arch() {
	fp := c.fp
	if c.config != nil {
		if a := archFromConfig(c.config); a != "" {
			fp.Arch = Fact{Value: a, Source: "kernel config"}
			return
		}
	}
	if r := fp.Kernel.Release.Value; r != "" {
		for _, a := range []string{"x86_64", "ppc64le", "ppc64", "s390x", "aarch64", "riscv64"} {
			if strings.HasSuffix(r, "."+a) || strings.HasSuffix(r, "-"+a) {
				fp.Arch = Fact{Value: a, Source: "kernel release"}
				return
			}
		}
	}
	if c.cpuinfo != nil && c.cpuinfo.Arch != "" {
		fp.Arch = Fact{Value: c.cpuinfo.Arch, Source: "cpuinfo layout"}
		return
	}
	if c.live() {
		fp.Arch = Fact{Value: goarchToUname(runtime.GOARCH), Source: "kdelta binary (GOARCH)"}
		return
	}
	fp.Arch = Fact{Unknown: "no kernel config, release suffix or known cpuinfo layout names it"}
}

// archFromConfig returns the uname -m name the config was built for.
func archFromConfig(cfg Config) string {
	switch {
	case cfg.On("CONFIG_X86_64"):
		return "x86_64"
	case cfg.On("CONFIG_PPC64") && cfg.On("CONFIG_CPU_LITTLE_ENDIAN"):
		return "ppc64le"
	case cfg.On("CONFIG_PPC64"):
		return "ppc64"
	case cfg.On("CONFIG_S390"):
		return "s390x"
	case cfg.On("CONFIG_ARM64"):
		return "aarch64"
	case cfg.On("CONFIG_RISCV") && cfg.On("CONFIG_64BIT"):
		return "riscv64"
	}
	return ""
}

// goarchToUname maps a GOARCH to the name uname -m prints for it.
func goarchToUname(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return goarch
}
