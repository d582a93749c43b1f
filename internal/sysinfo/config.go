package sysinfo

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A Config is a parsed kernel .config: option name (with its CONFIG_
// prefix) to value. Options written "# CONFIG_X is not set" map to "n";
// options the file does not mention are absent, which Kconfig treats the
// same as "n" for booleans.
type Config map[string]string

// On tells whether option name is set to y or m.
func (c Config) On(name string) bool {
	v := c[name]
	return v == "y" || v == "m"
}

// Get returns the value of name, "n" when the option is absent.
func (c Config) Get(name string) string {
	if v, ok := c[name]; ok {
		return v
	}
	return "n"
}

// A ConfigError reports a line of a kernel config that is neither an
// option, a comment nor blank.
type ConfigError struct {
	Line int
	Text string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("config line %d: not an option: %q", e.Line, e.Text)
}

// maxConfigErrors bounds the errors ParseConfig reports for one file, so a
// file that is not a config at all yields a short message.
const maxConfigErrors = 5

// ParseConfig parses a kernel config in the format Kconfig writes
// (/proc/config.gz uncompressed, /boot/config-*). It returns every option
// it could read; the error, if not nil, joins *ConfigError values for the
// first few malformed lines.
func ParseConfig(data []byte) (Config, error) {
	cfg := make(Config)
	var errs []error
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			// "# CONFIG_FOO is not set"; other comments are section titles.
			body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
			if name, ok := strings.CutSuffix(body, " is not set"); ok && isOptionName(name) {
				cfg[name] = "n"
			}
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || !isOptionName(name) {
			if len(errs) < maxConfigErrors {
				errs = append(errs, &ConfigError{Line: n + 1, Text: truncate(line, 80)})
			}
			continue
		}
		cfg[name] = value
	}
	return cfg, errors.Join(errs...)
}

// isOptionName tells whether s is CONFIG_ followed by an identifier.
func isOptionName(s string) bool {
	rest, ok := strings.CutPrefix(s, "CONFIG_")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// truncate shortens s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// perfPrefixes and perfNames select the options PerfRelevant keeps: the
// preemption model, tick and RCU flavour, scheduler features, security
// modules on syscall paths, speculation mitigations, NUMA and huge pages,
// the options of the bridge and veth workloads, and debug options that
// slow the kernel down (lock debugging, sanitizers, page and object
// debugging). Names are without the CONFIG_ prefix.
var (
	perfPrefixes = []string{
		"PREEMPT", "HZ", "NO_HZ", "RCU_", "SCHED_", "SECURITY_SELINUX",
		"SECURITY_LOCKDOWN", "LOCK_DOWN_", "AUDIT", "MITIGATION", "SPECULATION",
		"TRANSPARENT_HUGEPAGE", "NUMA", "KASAN", "KCSAN", "KMSAN",
		"UBSAN", "DEBUG_OBJECTS", "DEBUG_VM", "PARAVIRT", "CONTEXT_TRACKING",
		"VIRT_CPU_ACCOUNTING", "HAVE_PREEMPT_DYNAMIC", "INIT_ON_", "KFENCE",
		"RANDOMIZE_KSTACK_OFFSET", "CPU_IDLE_GOV", "CPU_FREQ_DEFAULT_GOV",
	}
	perfNames = map[string]bool{
		"SCHEDSTATS": true, "NR_CPUS": true, "SMP": true, "MEMBARRIER": true,
		"VETH": true, "BRIDGE": true, "BRIDGE_NETFILTER": true, "BRIDGE_IGMP_SNOOPING": true,
		"BRIDGE_VLAN_FILTERING": true, "TREE_RCU": true, "TASKS_RCU": true, "ARCH_HAS_PREEMPT_LAZY": true,
		"LOCKDEP": true, "PROVE_LOCKING": true, "PROVE_RCU": true, "LOCK_STAT": true,
		"DEBUG_LOCK_ALLOC": true, "DEBUG_PREEMPT": true, "DEBUG_ATOMIC_SLEEP": true,
		"DEBUG_SPINLOCK": true, "DEBUG_MUTEXES": true, "DEBUG_RT_MUTEXES": true,
		"DEBUG_RWSEMS": true, "DEBUG_WW_MUTEX_SLOWPATH": true, "DEBUG_PAGEALLOC": true,
		"DEBUG_PAGEALLOC_ENABLE_DEFAULT": true, "DEBUG_LIST": true, "DEBUG_KMEMLEAK": true,
		"DEBUG_STACK_USAGE": true, "DEBUG_IRQFLAGS": true, "SLUB_DEBUG_ON": true,
		"PAGE_POISONING": true, "TRACE_IRQFLAGS": true, "KCOV": true, "GCOV_KERNEL": true,
		"CPU_MITIGATIONS": true, "PAGE_TABLE_ISOLATION": true, "RETPOLINE": true,
		"HARDENED_USERCOPY": true, "STACKPROTECTOR": true, "STACKPROTECTOR_STRONG": true,
		"JUMP_LABEL": true, "HOTPLUG_SMT": true, "CGROUP_SCHED": true, "FAIR_GROUP_SCHED": true,
		"RT_GROUP_SCHED": true, "CFS_BANDWIDTH": true, "IRQ_TIME_ACCOUNTING": true,
		"TICK_CPU_ACCOUNTING": true, "KVM_GUEST": true, "HYPERVISOR_GUEST": true,
		"PPC_SPLPAR": true, "PPC_PSERIES": true, "PPC_POWERNV": true, "DEBUG_FS": true,
		"FTRACE": true, "FUNCTION_TRACER": true, "SECURITY": true, "LSM": true,
		"CPU_FREQ": true, "CPU_IDLE": true, "PSI": true, "PSI_DEFAULT_DISABLED": true,
	}
)

// PerfRelevant tells whether the config option name (with or without its
// CONFIG_ prefix) is one kdelta shows and flags in fingerprints: an option
// known to change the cost of scheduling, syscalls, RCU or locking.
func PerfRelevant(name string) bool {
	n := strings.TrimPrefix(name, "CONFIG_")
	if perfNames[n] {
		return true
	}
	for _, p := range perfPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	// TREE_SRCU, TASKS_TRACE_RCU, FORCE_TASKS_RCU and the like.
	return strings.HasSuffix(n, "_RCU") || strings.Contains(n, "_RCU_")
}

// subset returns the performance-relevant options of cfg.
func (cfg Config) subset() map[string]string {
	m := make(map[string]string)
	for k, v := range cfg {
		if PerfRelevant(k) {
			m[k] = v
		}
	}
	return m
}

// KernelConfig reads the running kernel's config as a fingerprint does
// (/proc/config.gz, else /boot/config-RELEASE) and returns it with the
// file it came from, or nil with why there is none.
func (f FS) KernelConfig() (cfg Config, source, why string) {
	c := &collector{fs: f, fp: &Fingerprint{}}
	c.fp.Kernel.Release = f.fact("proc/sys/kernel/osrelease")
	c.readConfig()
	return c.config, c.fp.Config.Source, c.fp.Config.Unknown
}

// maxConfigBytes bounds a decompressed config; real ones are under 1 MB.
const maxConfigBytes = 8 << 20

// readConfig reads the kernel config from /proc/config.gz, else from
// /boot/config-RELEASE, keeps it compressed and extracts its
// performance-relevant options.
func (c *collector) readConfig() {
	kc := &c.fp.Config
	var reasons []string

	raw, err := c.fs.read("proc/config.gz")
	if err == nil {
		text, gerr := gunzip(raw)
		if gerr == nil {
			c.setConfig("/proc/config.gz", text, raw)
			return
		}
		reasons = append(reasons, fmt.Sprintf("/proc/config.gz: %v", gerr))
	} else {
		reasons = append(reasons, reason("proc/config.gz", err))
	}

	rel := c.fp.Kernel.Release.Value
	if rel == "" || strings.ContainsAny(rel, "/") {
		reasons = append(reasons, "no kernel release to name /boot/config-RELEASE")
	} else {
		p := "boot/config-" + rel
		text, err := c.fs.read(p)
		if err == nil {
			c.setConfig("/"+p, text, nil)
			return
		}
		reasons = append(reasons, reason(p, err))
	}
	kc.Unknown = strings.Join(reasons, "; ")
}

// setConfig records the config text read from src; gz is the compressed
// form when the file was compressed already.
func (c *collector) setConfig(src string, text, gz []byte) {
	kc := &c.fp.Config
	cfg, err := ParseConfig(text)
	if err != nil {
		c.fp.Problems = append(c.fp.Problems, fmt.Sprintf("%s: %v", src, err))
	}
	if len(cfg) == 0 {
		kc.Unknown = src + ": no CONFIG_ options in it"
		return
	}
	if gz == nil {
		gz = gzipBytes(text)
	}
	kc.Source = src
	kc.Options = len(cfg)
	kc.Gzip = gz
	kc.Perf = cfg.subset()
	c.config = cfg
}

// gunzip decompresses data, refusing more than maxConfigBytes.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("corrupt gzip: %w", err)
	}
	if len(out) > maxConfigBytes {
		return nil, fmt.Errorf("larger than %d bytes uncompressed", maxConfigBytes)
	}
	return out, nil
}

// gzipBytes compresses data. The header carries no name or time, so the
// same config always gives the same bytes.
func gzipBytes(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// Option returns the value of a performance-relevant option (see
// PerfRelevant; with or without its CONFIG_ prefix) as the fingerprint
// recorded it: "n" for one the config does not set, which Kconfig means by
// both "# CONFIG_X is not set" and leaving the line out. known is false
// when the config was not read (Unknown says why) or the option is not one
// the fingerprint keeps, so that "n" is never a guess.
func (k KernelConfig) Option(name string) (value string, known bool) {
	name = "CONFIG_" + strings.TrimPrefix(name, "CONFIG_")
	if k.Source == "" || k.Perf == nil || !PerfRelevant(name) {
		return "", false
	}
	if v, ok := k.Perf[name]; ok {
		return v, true
	}
	return "n", true
}

// FullConfig returns the whole kernel config stored in the fingerprint,
// or nil when none was stored.
func (fp *Fingerprint) FullConfig() (Config, error) {
	if len(fp.Config.Gzip) == 0 {
		return nil, nil
	}
	text, err := gunzip(fp.Config.Gzip)
	if err != nil {
		return nil, fmt.Errorf("stored kernel config: %w", err)
	}
	cfg, _ := ParseConfig(text)
	return cfg, nil
}

// hzFromConfig returns the tick rate a config builds: CONFIG_HZ where the
// config was resolved by Kconfig, else the one CONFIG_HZ_<N>=y choice (as
// in distribution input configs).
func hzFromConfig(cfg Config) (string, string) {
	if v, ok := cfg["CONFIG_HZ"]; ok && v != "n" {
		return v, "kernel config (CONFIG_HZ=" + v + ")"
	}
	var keys []string
	for k, v := range cfg {
		if n, ok := strings.CutPrefix(k, "CONFIG_HZ_"); ok && v == "y" && isDigits(n) {
			keys = append(keys, n)
		}
	}
	if len(keys) == 1 {
		return keys[0], "kernel config (CONFIG_HZ_" + keys[0] + "=y)"
	}
	return "", ""
}

// isDigits tells whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
