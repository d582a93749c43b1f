package kbuild

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// The fragment is what kdelta's guest needs of a kernel, merged over the
// base config: the console and the result channel built in (no module to
// load first), an initramfs, devtmpfs, the file systems /init mounts and
// the fingerprint reads (/proc, /sys, debugfs, tmpfs, cgroup2), what the
// Go runtime of /init calls (futex, epoll, timers), perf events for stat
// and the counters, AF_UNIX for perf bench's socket pairs, 9p over virtio
// for --rootfs host, and a power-off that ends qemu (on x86 only ACPI
// powers off: without it reboot(POWER_OFF) halts, and qemu runs on).
var commonFragment = []string{
	"CONFIG_PRINTK=y",
	"CONFIG_BUG=y",
	"CONFIG_MULTIUSER=y",
	"CONFIG_SMP=y",
	"CONFIG_FUTEX=y",
	"CONFIG_EPOLL=y",
	"CONFIG_SIGNALFD=y",
	"CONFIG_TIMERFD=y",
	"CONFIG_EVENTFD=y",
	"CONFIG_POSIX_TIMERS=y",
	"CONFIG_HIGH_RES_TIMERS=y",
	"CONFIG_BINFMT_ELF=y",
	"CONFIG_BINFMT_SCRIPT=y",
	"CONFIG_BLK_DEV_INITRD=y",
	"CONFIG_PROC_FS=y",
	"CONFIG_PROC_SYSCTL=y",
	"CONFIG_SYSFS=y",
	"CONFIG_DEVTMPFS=y",
	"CONFIG_TMPFS=y",
	"CONFIG_SHMEM=y",
	"CONFIG_DEBUG_FS=y",
	"CONFIG_CGROUPS=y",
	"CONFIG_PERF_EVENTS=y",
	"CONFIG_TTY=y",
	"CONFIG_UNIX98_PTYS=y",
	"CONFIG_NET=y",
	"CONFIG_INET=y",
	"CONFIG_UNIX=y",
	"CONFIG_PCI=y",
	"CONFIG_VIRTIO_MENU=y",
	"CONFIG_VIRTIO_PCI=y",
	"CONFIG_NET_9P=y",
	"CONFIG_NET_9P_VIRTIO=y",
	"CONFIG_NETWORK_FILESYSTEMS=y",
	"CONFIG_9P_FS=y",
	// The release is the one kdelta gives on make's command line
	// (LOCALVERSION), not one setlocalversion makes up from git.
	"# CONFIG_LOCALVERSION_AUTO is not set",
	// A distribution's config names its own signing keys, which a tree
	// does not have.
	`CONFIG_SYSTEM_TRUSTED_KEYS=""`,
	`CONFIG_SYSTEM_REVOCATION_KEYS=""`,
}

// archFragment is each architecture's console, channel and power-off
// (see internal/vm's arches for the ports qemu gives each).
var archFragment = map[string][]string{
	"amd64": {"CONFIG_64BIT=y", "CONFIG_SERIAL_8250=y", "CONFIG_SERIAL_8250_CONSOLE=y", "CONFIG_ACPI=y"},
	// PSCI powers off; the channel is a PCI 16550 on virt's generic host.
	"arm64": {"CONFIG_SERIAL_AMBA_PL011=y", "CONFIG_SERIAL_AMBA_PL011_CONSOLE=y", "CONFIG_PCI_HOST_GENERIC=y",
		"CONFIG_SERIAL_8250=y", "CONFIG_SERIAL_8250_PCI=y", "CONFIG_ARM_PSCI_FW=y", "CONFIG_POWER_RESET=y"},
	// pseries: the hvc consoles, RTAS powers off.
	"ppc64le": {"CONFIG_PPC64=y", "CONFIG_CPU_LITTLE_ENDIAN=y", "CONFIG_PPC_PSERIES=y", "CONFIG_HVC_CONSOLE=y"},
	// SCLP's line-mode console and its VT220 port; SIGP powers off.
	"s390x": {"CONFIG_SCLP_TTY=y", "CONFIG_SCLP_CONSOLE=y", "CONFIG_SCLP_VT220_TTY=y", "CONFIG_SCLP_VT220_CONSOLE=y"},
}

// Fragment returns the config fragment kdelta merges over the base
// config for a guest of architecture arch (GOARCH), one option a line.
func Fragment(arch string) (string, error) {
	a, ok := archFragment[arch]
	if !ok {
		return "", fmt.Errorf("kbuild: no kernel config fragment for architecture %q (amd64, arm64, ppc64le, s390x)", arch)
	}
	var b strings.Builder
	b.WriteString("# kdelta: what its guest needs (console, channel, initramfs, power-off)\n")
	for _, l := range append(append([]string(nil), commonFragment...), a...) {
		b.WriteString(l + "\n")
	}
	return b.String(), nil
}

// ParseConfig reads a kernel .config: CONFIG_NAME=VALUE lines, and "#
// CONFIG_NAME is not set", which it gives as "n". Other lines are left
// out; a line that is neither fails, naming it.
func ParseConfig(data []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			rest := strings.TrimSpace(strings.TrimPrefix(l, "#"))
			if name, ok := strings.CutSuffix(rest, " is not set"); ok && strings.HasPrefix(name, "CONFIG_") && !strings.ContainsAny(name, " \t") {
				out[name] = "n"
			}
			continue
		}
		name, val, ok := strings.Cut(l, "=")
		if !ok || !strings.HasPrefix(name, "CONFIG_") || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: %q is not CONFIG_NAME=VALUE", n, truncate(l, 80))
		}
		out[name] = val
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// notOn returns the options the fragment sets to y or m that the final
// config does not have so, sorted: what olddefconfig dropped because a
// dependency is missing in this tree or this architecture.
func notOn(fragment string, final map[string]string) []string {
	want, err := ParseConfig([]byte(fragment))
	if err != nil {
		return nil
	}
	var out []string
	for name, v := range want {
		if (v == "y" || v == "m") && final[name] != v && !(v == "m" && final[name] == "y") {
			out = append(out, name+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
