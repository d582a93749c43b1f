package sysinfo

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/kdelta/kdelta/internal/sys"
)

// ParsePreempt parses the content of /sys/kernel/debug/sched/preempt: the
// preemption modes the kernel accepts, each followed by a space, the
// current one in parentheses ("none voluntary (full) lazy \n" on 6.13 to
// 6.19, "full (lazy) \n" on 7.x). It returns the current mode and all
// modes listed, in order.
func ParsePreempt(data []byte) (current string, modes []string, err error) {
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return "", nil, errors.New("preempt file: empty")
	}
	for _, f := range fields {
		word := f
		isCurrent := false
		if strings.HasPrefix(f, "(") && strings.HasSuffix(f, ")") && len(f) > 2 {
			word, isCurrent = f[1:len(f)-1], true
		}
		if !isModeWord(word) {
			return "", nil, fmt.Errorf("preempt file: unexpected entry %q", truncate(f, 40))
		}
		if isCurrent {
			if current != "" {
				return "", nil, fmt.Errorf("preempt file: two current modes %q and %q", current, word)
			}
			current = word
		}
		modes = append(modes, word)
	}
	if current == "" {
		return "", nil, fmt.Errorf("preempt file: no mode in parentheses in %q", truncate(strings.Join(fields, " "), 60))
	}
	return current, modes, nil
}

// isModeWord tells whether s can be a preemption mode name: lowercase
// letters, so that modes added by later kernels still parse.
func isModeWord(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// bootLogPreempt returns the mode of the last "Dynamic Preempt: MODE" line
// of a kernel log. The kernel prints the line at boot and again each time
// the mode is changed through debugfs, so the last one is current.
func bootLogPreempt(log string) string {
	const tag = "Dynamic Preempt:"
	mode := ""
	for rest := log; ; {
		i := strings.Index(rest, tag)
		if i < 0 {
			break
		}
		rest = rest[i+len(tag):]
		line, _, _ := strings.Cut(rest, "\n")
		if f := strings.Fields(line); len(f) > 0 && isModeWord(f[0]) {
			mode = f[0]
		}
	}
	return mode
}

// bootLogPreemptRCU reads the RCU flavour from the boot banner of
// kernel/rcu/tree_plugin.h: "Preemptible hierarchical RCU implementation."
// on PREEMPT_RCU kernels, "Hierarchical RCU implementation." otherwise.
func bootLogPreemptRCU(log string) string {
	switch {
	case strings.Contains(log, "Preemptible hierarchical RCU implementation"):
		return "y"
	case strings.Contains(log, "Hierarchical RCU implementation"):
		return "n"
	}
	return ""
}

// readBootLog finds the kernel log: the text given in the options, a dmesg.txt
// at the root of a fixture tree, or the live /dev/kmsg.
func (c *collector) readBootLog(opt Options) {
	if opt.BootLog != "" {
		c.bootLog, c.bootLogSource = opt.BootLog, "given"
		return
	}
	// A capture keeps its log in dmesg.txt at its root; a live machine's
	// root is not searched for one, so a stray /dmesg.txt cannot stand in
	// for the running kernel's log.
	if !c.live() {
		data, err := c.fs.read("dmesg.txt")
		if err == nil {
			c.bootLog, c.bootLogSource = string(data), "/dmesg.txt"
			return
		}
		if !errors.Is(err, fs.ErrNotExist) {
			c.bootLogErr = reason("dmesg.txt", err)
			return
		}
	}
	text, err := readKmsg(c.fs.path("dev/kmsg"))
	if err != nil {
		c.bootLogErr = reason("dev/kmsg", err)
		return
	}
	if c.live() {
		if id, err := c.fs.readString("proc/sys/kernel/random/boot_id"); err == nil && id != "" {
			text = keepBootLines(text, bootKeepFile(id))
		}
	}
	c.bootLog, c.bootLogSource = text, "/dev/kmsg"
}

// Paths of the preempt file: sched/preempt since v5.13, sched_preempt in
// v5.12 (preempt/FORMAT.md in the shared fixtures).
const (
	preemptFile    = "sys/kernel/debug/sched/preempt"
	preemptFile512 = "sys/kernel/debug/sched_preempt"
)

// preemption decides the build-time model and the run-time mode, trying in
// order the debugfs file, the boot log, preempt= on the command line and
// the build default, and records which answered.
func (c *collector) preemption() {
	p := &c.fp.Preempt
	cfg := c.config

	// Build-time model and PREEMPT_DYNAMIC.
	switch {
	case cfg != nil:
		p.Model = modelFromConfig(cfg)
		if cfg.On("CONFIG_PREEMPT_DYNAMIC") {
			p.Dynamic = Fact{Value: "yes", Source: "kernel config (CONFIG_PREEMPT_DYNAMIC=y)"}
		} else {
			p.Dynamic = Fact{Value: "no", Source: "kernel config (no CONFIG_PREEMPT_DYNAMIC)"}
		}
	case c.uname != "":
		p.Model = modelFromUname(c.uname)
		if hasWord(c.uname, "PREEMPT_DYNAMIC") {
			p.Dynamic = Fact{Value: "yes", Source: "uname -v (PREEMPT_DYNAMIC)"}
		} else {
			p.Dynamic = Fact{Value: "no", Source: "uname -v (no PREEMPT_DYNAMIC)"}
		}
	default:
		p.Model = Fact{Unknown: "no kernel config and no uname -v"}
		p.Dynamic = p.Model
	}

	// The three run-time witnesses, each kept with its own reason.
	p.Debugfs = c.preemptDebugfs()
	switch {
	case c.bootLogErr != "":
		p.BootLog = Fact{Unknown: c.bootLogErr}
	case c.bootLog == "":
		p.BootLog = Fact{Unknown: "boot log (" + c.bootLogSource + ") is empty"}
	default:
		if m := bootLogPreempt(c.bootLog); m != "" {
			p.BootLog = Fact{Value: m, Source: "boot log (" + c.bootLogSource + ")"}
		} else {
			p.BootLog = Fact{Unknown: "no \"Dynamic Preempt:\" line in boot log (" + c.bootLogSource + ")"}
		}
	}
	if v, ok := c.cmdline["preempt"]; ok && v != "" {
		p.Cmdline = Fact{Value: v, Source: "/proc/cmdline"}
	} else if c.fp.Kernel.Cmdline.Known() {
		p.Cmdline = Fact{Unknown: "no preempt= on the kernel command line"}
	} else {
		p.Cmdline = Fact{Unknown: c.fp.Kernel.Cmdline.Unknown}
	}

	// The run-time mode, first witness that answers.
	switch {
	case p.Debugfs.Known():
		cur, _, _ := ParsePreempt([]byte(p.Debugfs.Value))
		p.Mode = Fact{Value: cur, Source: "debugfs (" + p.Debugfs.Source + ")"}
	case p.BootLog.Known():
		p.Mode = Fact{Value: p.BootLog.Value, Source: p.BootLog.Source}
	case p.Cmdline.Known() && p.Dynamic.Value != "no":
		p.Mode = Fact{Value: p.Cmdline.Value, Source: "cmdline (preempt=" + p.Cmdline.Value + ")"}
	case p.Model.Known():
		mode := p.Model.Value
		why := p.Model.Source
		if inner, ok := strings.CutPrefix(why, "kernel config ("); ok {
			why = strings.TrimSuffix(inner, ")")
		}
		src := "build default (" + why + ")"
		if p.Dynamic.Value == "no" {
			src = "static build (" + why + ", no PREEMPT_DYNAMIC)"
		}
		p.Mode = Fact{Value: mode, Source: src}
	default:
		p.Mode = Fact{Unknown: "debugfs, boot log, preempt= and build model all unknown"}
	}
}

// preemptDebugfs reads the debugfs preempt file, and on failure says why,
// with a hint at the usual cause. On a live machine whose debugfs is not
// mounted, kdelta mounts it when root (a PREEMPT_DYNAMIC kernel, or one
// whose model is unknown): it stays mounted when the file answers (a knob
// session can then set the mode), and is unmounted again when it does not.
// Under kernel lockdown it is not mounted: lockdown closes the file.
func (c *collector) preemptDebugfs() Fact {
	data, rel, err := c.readPreempt()
	var note string
	lockdown := c.fp.Lockdown.Value != "" && c.fp.Lockdown.Value != "none"
	if errors.Is(err, fs.ErrNotExist) && c.live() && c.fp.Preempt.Dynamic.Value != "no" && !c.fs.exists("sys/kernel/debug/sched") {
		var mounted bool
		var merr error
		if !lockdown {
			mounted, merr = sys.MountDebugfs()
		}
		switch {
		case lockdown:
			// Mounting would only change the error to EPERM.
			note = "; debugfs not mounted, and kernel lockdown (" + c.fp.Lockdown.Value + ") would refuse the file, so kdelta does not mount it"
		case mounted:
			if data, rel, err = c.readPreempt(); err != nil {
				note = "; kdelta mounted debugfs to read it and unmounted it again"
				if uerr := sys.Unmount(sys.DebugfsDir); uerr != nil {
					note = fmt.Sprintf("; kdelta mounted debugfs to read it, and could not unmount it again: %v", uerr)
				}
			}
		case merr != nil && !errors.Is(merr, sys.ErrNotRoot):
			note = fmt.Sprintf("; debugfs not mounted, and mounting it failed: %v", merr)
		}
	}
	if err != nil {
		why := reason(preemptFile, err)
		switch {
		case errors.Is(err, fs.ErrNotExist) && c.fp.Preempt.Dynamic.Value == "no":
			why += "; the kernel has no PREEMPT_DYNAMIC"
		case errors.Is(err, fs.ErrNotExist) && note != "":
			// The note says what became of debugfs.
		case errors.Is(err, fs.ErrNotExist) && !c.fs.exists("sys/kernel/debug/sched"):
			why += "; debugfs not mounted or no sched directory"
		case isPermission(err) && lockdown:
			why += "; kernel lockdown (" + c.fp.Lockdown.Value + ") closes writable debugfs files"
		case isPermission(err):
			why += "; debugfs refuses writable files under kernel lockdown, and needs root"
		}
		return Fact{Unknown: why + note}
	}
	if _, _, perr := ParsePreempt(data); perr != nil {
		return Fact{Unknown: fmt.Sprintf("/%s: %v", rel, perr)}
	}
	return Fact{Value: strings.Join(strings.Fields(string(data)), " "), Source: "/" + rel}
}

// readPreempt reads the preempt file at its current path, else at its
// v5.12 path, and returns the path it read.
func (c *collector) readPreempt() ([]byte, string, error) {
	data, err := c.fs.read(preemptFile)
	if errors.Is(err, fs.ErrNotExist) {
		if d2, err2 := c.fs.read(preemptFile512); err2 == nil {
			return d2, preemptFile512, nil
		}
	}
	return data, preemptFile, err
}

// modelFromConfig returns the preemption model chosen in the config.
func modelFromConfig(cfg Config) Fact {
	for _, m := range []struct{ opt, model string }{
		{"CONFIG_PREEMPT_RT", "rt"},
		{"CONFIG_PREEMPT_LAZY", "lazy"},
		{"CONFIG_PREEMPT", "full"},
		{"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
		{"CONFIG_PREEMPT_NONE", "none"},
	} {
		if cfg.Get(m.opt) == "y" {
			return Fact{Value: m.model, Source: "kernel config (" + m.opt + "=y)"}
		}
	}
	return Fact{Unknown: "kernel config sets none of CONFIG_PREEMPT_{NONE,VOLUNTARY,,LAZY,RT}"}
}

// modelFromUname guesses the model from uname -v, which names PREEMPT_RT,
// PREEMPT or PREEMPT_DYNAMIC but not the model a dynamic kernel defaults to.
func modelFromUname(v string) Fact {
	switch {
	case hasWord(v, "PREEMPT_RT"):
		return Fact{Value: "rt", Source: "uname -v (PREEMPT_RT)"}
	case hasWord(v, "PREEMPT_LAZY"):
		return Fact{Value: "lazy", Source: "uname -v (PREEMPT_LAZY)"}
	case hasWord(v, "PREEMPT"):
		return Fact{Value: "full", Source: "uname -v (PREEMPT)"}
	case hasWord(v, "PREEMPT_DYNAMIC"):
		return Fact{Unknown: "uname -v says PREEMPT_DYNAMIC, which hides the build default; no kernel config"}
	}
	return Fact{Unknown: "uname -v names no PREEMPT model (none or voluntary); no kernel config"}
}

// hasWord tells whether w is one of the space-separated words of s.
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
