package sysinfo

import (
	"errors"
	"io/fs"
	"strings"
)

// security reads the SELinux mode, the kernel lockdown level and the
// audit state: the LSM hooks and audit calls on syscall paths are a cost
// that differs between otherwise equal machines (seed mail 000: SELinux
// disabled recovers 35% of kill() throughput).
func (c *collector) security() {
	fp := c.fp

	// SELinux: /sys/fs/selinux/enforce exists only while SELinux runs.
	const enforce = "sys/fs/selinux/enforce"
	s, err := c.fs.readString(enforce)
	switch {
	case err == nil && s == "1":
		fp.SELinux = Fact{Value: "enforcing", Source: "/" + enforce}
	case err == nil && s == "0":
		fp.SELinux = Fact{Value: "permissive", Source: "/" + enforce}
	case err == nil:
		fp.SELinux = Fact{Unknown: "/" + enforce + ": unexpected value " + quote(s)}
	case errors.Is(err, fs.ErrNotExist) && !c.fs.exists("sys/kernel"):
		// No sysfs at all (a partial capture): absence proves nothing.
		fp.SELinux = Fact{Unknown: reason(enforce, err) + "; no sysfs to tell"}
	case errors.Is(err, fs.ErrNotExist):
		src := "no /" + enforce
		if v, ok := c.cmdline["selinux"]; ok && v == "0" {
			src = "cmdline (selinux=0)"
		} else if c.config != nil && !c.config.On("CONFIG_SECURITY_SELINUX") {
			src = "not built (no CONFIG_SECURITY_SELINUX)"
		}
		fp.SELinux = Fact{Value: "disabled", Source: src}
	default:
		fp.SELinux = unknown(enforce, err)
	}

	fp.Lockdown = c.lockdown()
	fp.Audit = c.audit()
}

// lockdown reads the selected level of /sys/kernel/security/lockdown
// ("none [integrity] confidentiality"); without securityfs it falls back
// to lockdown= on the command line and the config's forced level.
func (c *collector) lockdown() Fact {
	const file = "sys/kernel/security/lockdown"
	s, err := c.fs.readString(file)
	if err == nil {
		if v := selected(s); v != "" {
			return Fact{Value: v, Source: "/" + file}
		}
		return Fact{Unknown: "/" + file + ": no [selected] level in " + quote(s)}
	}
	why := reason(file, err)
	if errors.Is(err, fs.ErrNotExist) && !c.fs.exists("sys/kernel/security/lsm") {
		why += " (securityfs not mounted?)"
	}
	if v, ok := c.cmdline["lockdown"]; ok && v != "" {
		return Fact{Value: v, Source: "cmdline (lockdown=" + v + ")"}
	}
	cfg := c.config
	if cfg == nil {
		return Fact{Unknown: why}
	}
	if !cfg.On("CONFIG_SECURITY_LOCKDOWN_LSM") {
		return Fact{Value: "none", Source: "not built (no CONFIG_SECURITY_LOCKDOWN_LSM)"}
	}
	switch {
	case cfg.On("CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY"):
		return Fact{Value: "confidentiality", Source: "kernel config (LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY=y)"}
	case cfg.On("CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY"):
		return Fact{Value: "integrity", Source: "kernel config (LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y)"}
	case cfg.On("CONFIG_LOCK_DOWN_IN_EFI_SECURE_BOOT"):
		return Fact{Unknown: why + "; config locks down under EFI Secure Boot, which is not visible here"}
	}
	return Fact{Unknown: why + "; config forces no level, but root may raise it at run time"}
}

// audit says whether the audit subsystem is built and how the command line
// set it; whether auditd enabled it at run time cannot be read cheaply.
func (c *collector) audit() Fact {
	if v, ok := c.cmdline["audit"]; ok {
		switch v {
		case "0", "off":
			return Fact{Value: "disabled", Source: "cmdline (audit=" + v + ")"}
		case "1", "on":
			return Fact{Value: "enabled", Source: "cmdline (audit=" + v + ")"}
		}
	}
	if c.config == nil {
		return Fact{Unknown: "no kernel config and no audit= on the cmdline"}
	}
	if !c.config.On("CONFIG_AUDIT") {
		return Fact{Value: "not built", Source: "kernel config (no CONFIG_AUDIT)"}
	}
	if c.config.On("CONFIG_AUDITSYSCALL") {
		return Fact{Value: "built (with syscall auditing)", Source: "kernel config (CONFIG_AUDIT=y, CONFIG_AUDITSYSCALL=y)"}
	}
	return Fact{Value: "built", Source: "kernel config (CONFIG_AUDIT=y)"}
}

// selected returns the bracketed choice of a sysfs selector file
// ("always [madvise] never" gives "madvise").
func selected(s string) string {
	for _, f := range strings.Fields(s) {
		if len(f) > 2 && strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			return f[1 : len(f)-1]
		}
	}
	return ""
}

// quote quotes s for a reason, shortened.
func quote(s string) string {
	return `"` + truncate(s, 60) + `"`
}
