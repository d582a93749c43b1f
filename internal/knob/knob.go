// Package knob reads, writes and restores kernel settings that can be
// changed on the running kernel: sysfs files, sysctls under /proc/sys,
// module parameters and writable debugfs files, with named shortcuts for
// SMT, the cpufreq governor, SELinux enforcement and the dynamic
// preemption mode.
//
// A Session saves the value of every knob it will touch before the first
// write — the selected value ("madvise" from "always [madvise] never"),
// which is what the file takes back — in a restore journal on disk, and
// writes those values back when it ends. The journal is held under a lock
// by the kdelta that wrote it, so a later kdelta (Recover) restores the
// knobs of one that was killed, and never those of one still running.
package knob

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// kind says how a knob's values map to what its file holds.
type kind int

const (
	plain    kind = iota // the file takes the value as given
	smt                  // /sys/devices/system/cpu/smt/control
	governor             // every cpufreq policy's scaling_governor
	selinux              // /sys/fs/selinux/enforce: enforcing is 1
	preempt              // /sys/kernel/debug/sched/preempt
)

// Paths of the named knobs.
const (
	SMTPath      = "/sys/devices/system/cpu/smt/control"
	SELinuxPath  = "/sys/fs/selinux/enforce"
	PreemptPath  = "/sys/kernel/debug/sched/preempt"
	cpufreqDir   = "/sys/devices/system/cpu/cpufreq"
	governorGlob = cpufreqDir + "/policy*/scaling_governor"
)

// A Knob is one kernel setting.
type Knob struct {
	// Name is the knob as the user wrote it: smt, governor, selinux,
	// preempt, sysctl.kernel.sched_autogroup_enabled or a path.
	Name string
	// Key names the knob in labels and run records: the shortcut's name,
	// MODULE.PARAM for a module parameter (as on the kernel command line),
	// sysctl.NAME, debugfs.PATH or sys.PATH with dots for slashes.
	Key string
	// Path is the file, as seen from the root "/" (for the governor, the
	// pattern of the per-policy files).
	Path string
	kind kind
}

// A Setting is a knob and the value to give it.
type Setting struct {
	Knob  Knob
	Value string
}

// String returns the setting as the user writes it.
func (s Setting) String() string { return s.Knob.Name + "=" + s.Value }

// ErrUnknown marks a knob name that is neither a shortcut nor a path
// kdelta may write.
var ErrUnknown = errors.New("unknown knob")

// ErrBadValue marks a value the knob cannot take.
var ErrBadValue = errors.New("bad value")

var sysctlName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

// Parse reads one setting: PATH=VALUE for a file under /sys or
// /proc/sys; sysctl.NAME=VALUE (or sysctl:NAME=VALUE, or "sysctl
// NAME=VALUE") as sysctl(8) names it; smt=on|off; governor=NAME;
// selinux=enforcing|permissive; preempt=none|voluntary|full|lazy. It
// checks the syntax only; Open checks the knob against the running kernel.
func Parse(s string) (Setting, error) {
	name, value, ok := strings.Cut(strings.TrimSpace(s), "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Setting{}, fmt.Errorf("%q is not KNOB=VALUE", s)
	}
	k, err := Lookup(name)
	if err != nil {
		return Setting{}, err
	}
	if err := k.checkValue(value); err != nil {
		return Setting{}, fmt.Errorf("%s=%s: %w", name, value, err)
	}
	return Setting{Knob: k, Value: value}, nil
}

// ParseList reads settings separated by commas: "smt=off,governor=performance".
// A part without "=" continues the value before it, so a value may hold a
// comma (a CPU list: /sys/.../irq/default_smp_affinity_list=0,1).
func ParseList(s string) ([]Setting, error) {
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if len(parts) > 0 && !strings.Contains(p, "=") {
			parts[len(parts)-1] += "," + p
			continue
		}
		parts = append(parts, p)
	}
	var out []Setting
	for _, p := range parts {
		st, err := Parse(p)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Lookup returns the knob a name stands for.
func Lookup(name string) (Knob, error) {
	switch name {
	case "smt":
		return Knob{Name: name, Key: "smt", Path: SMTPath, kind: smt}, nil
	case "governor":
		return Knob{Name: name, Key: "governor", Path: governorGlob, kind: governor}, nil
	case "selinux":
		return Knob{Name: name, Key: "selinux", Path: SELinuxPath, kind: selinux}, nil
	case "preempt":
		return Knob{Name: name, Key: "preempt", Path: PreemptPath, kind: preempt}, nil
	}
	if rest, ok := cutAny(name, "sysctl.", "sysctl:", "sysctl "); ok {
		rest = strings.TrimSpace(rest)
		if !sysctlName.MatchString(rest) || strings.Contains(rest, "..") || strings.Contains(rest, "//") {
			return Knob{}, fmt.Errorf("%w %q: not a sysctl name", ErrUnknown, name)
		}
		// sysctl(8) takes dots or slashes as separators.
		rel := rest
		if !strings.Contains(rel, "/") {
			rel = strings.ReplaceAll(rel, ".", "/")
		}
		p := "/proc/sys/" + strings.Trim(rel, "/")
		if filepath.Clean(p) != p || p == "/proc/sys/" {
			return Knob{}, fmt.Errorf("%w %q: not a sysctl name", ErrUnknown, name)
		}
		return Knob{Name: name, Key: keyOf(p), Path: p, kind: plain}, nil
	}
	if !strings.HasPrefix(name, "/") {
		return Knob{}, fmt.Errorf("%w %q (a /sys or /proc/sys path, sysctl.NAME, smt, governor, selinux or preempt)", ErrUnknown, name)
	}
	if filepath.Clean(name) != name {
		return Knob{}, fmt.Errorf("%w %q: not a clean absolute path", ErrUnknown, name)
	}
	if !under(name, "/sys") && !under(name, "/proc/sys") {
		return Knob{}, fmt.Errorf("%w %q: kdelta only writes files under /sys and /proc/sys", ErrUnknown, name)
	}
	k := Knob{Name: name, Key: keyOf(name), Path: name, kind: plain}
	switch name {
	case SMTPath:
		k.kind, k.Key = smt, "smt"
	case SELinuxPath:
		k.kind, k.Key = selinux, "selinux"
	case PreemptPath:
		k.kind, k.Key = preempt, "preempt"
	}
	return k, nil
}

func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return "", false
}

// under tells whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// keyOf names a file knob for labels: rcutree.rcu_normal_wake_from_gp for
// /sys/module/rcutree/parameters/rcu_normal_wake_from_gp, as the boot
// parameter is spelled; sysctl.kernel.x for /proc/sys/kernel/x;
// debugfs.sched.x for /sys/kernel/debug/sched/x; sys.kernel.x otherwise.
func keyOf(p string) string {
	dots := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "/"), "/", ".") }
	if rest, ok := strings.CutPrefix(p, "/sys/module/"); ok {
		if mod, param, ok := strings.Cut(rest, "/parameters/"); ok && !strings.Contains(mod, "/") {
			return mod + "." + dots(param)
		}
	}
	if rest, ok := strings.CutPrefix(p, "/proc/sys/"); ok {
		return "sysctl." + dots(rest)
	}
	if rest, ok := strings.CutPrefix(p, "/sys/kernel/debug/"); ok {
		return "debugfs." + dots(rest)
	}
	return "sys." + dots(strings.TrimPrefix(p, "/sys/"))
}

// checkValue validates a value as far as it can be without the kernel.
func (k Knob) checkValue(v string) error {
	if v == "" {
		return fmt.Errorf("%w: empty", ErrBadValue)
	}
	if strings.ContainsAny(v, "\n\x00") {
		return fmt.Errorf("%w: holds a newline or NUL", ErrBadValue)
	}
	switch k.kind {
	case smt:
		if v == "forceoff" {
			return fmt.Errorf("%w: forceoff cannot be undone without a reboot", ErrBadValue)
		}
		if v != "on" && v != "off" && !isDigits(v) {
			return fmt.Errorf("%w %q (on, off, or threads per core)", ErrBadValue, v)
		}
	case selinux:
		switch v {
		case "enforcing", "permissive", "1", "0":
		default:
			return fmt.Errorf("%w %q (enforcing or permissive)", ErrBadValue, v)
		}
	case preempt:
		switch v {
		case "none", "voluntary", "full", "lazy":
		default:
			return fmt.Errorf("%w %q (none, voluntary, full or lazy)", ErrBadValue, v)
		}
	case governor:
		for _, r := range v {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				return fmt.Errorf("%w %q: not a governor name", ErrBadValue, v)
			}
		}
	}
	return nil
}

// encode returns what the knob's file is given for value v.
func (k Knob) encode(v string) string {
	if k.kind == selinux {
		switch v {
		case "enforcing":
			return "1"
		case "permissive":
			return "0"
		}
	}
	return v
}

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
