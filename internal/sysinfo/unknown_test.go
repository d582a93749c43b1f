package sysinfo

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// copyTree copies the fixture tree src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEmptyTree collects a machine with no files at all: every fact must
// say why it is unknown, and nothing may fail.
func TestEmptyTree(t *testing.T) {
	fp := Collect(FS{Root: t.TempDir()}, Options{})
	checkFacts(t, fp)
	cases := []struct {
		what, got, want string
	}{
		{"release", fp.Kernel.Release.Unknown, "not available: /proc/sys/kernel/osrelease: no such file (ENOENT)"},
		{"config", fp.Config.Unknown, "not available: /proc/config.gz: no such file (ENOENT); no kernel release to name /boot/config-RELEASE"},
		{"debugfs", fp.Preempt.Debugfs.Unknown, "not available: /sys/kernel/debug/sched/preempt: no such file (ENOENT); debugfs not mounted or no sched directory"},
		{"boot log", fp.Preempt.BootLog.Unknown, "not available: /dev/kmsg: no such file (ENOENT)"},
		{"mode", fp.Preempt.Mode.Unknown, "debugfs, boot log, preempt= and build model all unknown"},
		{"selinux", fp.SELinux.Unknown, "not available: /sys/fs/selinux/enforce: no such file (ENOENT); no sysfs to tell"},
		{"vulnerabilities", fp.VulnerabilitiesUnknown, "not available: /sys/devices/system/cpu/vulnerabilities: no such file (ENOENT)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s unknown = %q, want %q", c.what, c.got, c.want)
		}
	}
	var b bytes.Buffer
	if err := WriteText(&b, fp); err != nil {
		t.Fatal(err)
	}
	checkText(t, "env", b.String())
	diffs := Diff(fp, collectTree(t, "power10-7.1"))
	if len(diffs) == 0 || diffs[0].Field != "preempt.mode" {
		t.Errorf("diff of an empty tree against power10-7.1 starts with %#v", diffs[:1])
	}
	if len(Warnings(fp, []int{0, 1})) != 0 {
		t.Errorf("unknown facts raised warnings: %q", Warnings(fp, []int{0, 1}))
	}
}

// TestPartialTree removes the kernel config and cpuinfo from power10-7.1:
// the preemption facts fall back to uname -v and the boot log.
func TestPartialTree(t *testing.T) {
	root := t.TempDir()
	copyTree(t, filepath.Join("testdata", "power10-7.1"), root)
	for _, f := range []string{"boot/config-7.1.0-62.eln158.ppc64le", "proc/cpuinfo"} {
		if err := os.Remove(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	fp := Collect(FS{Root: root}, Options{})
	checkFacts(t, fp)
	p := fp.Preempt
	if p.Mode.Value != "lazy" || !strings.HasPrefix(p.Mode.Source, "debugfs") {
		t.Errorf("mode = %#v, want lazy from debugfs", p.Mode)
	}
	if p.Dynamic.Value != "yes" || p.Dynamic.Source != "uname -v (PREEMPT_DYNAMIC)" {
		t.Errorf("dynamic = %#v, want yes from uname -v", p.Dynamic)
	}
	if !strings.Contains(p.Model.Unknown, "hides the build default") {
		t.Errorf("model = %#v, want unknown: uname -v hides the build default", p.Model)
	}
	if fp.PreemptRCU.Value != "y" || !strings.HasPrefix(fp.PreemptRCU.Source, "boot log") {
		t.Errorf("PREEMPT_RCU = %#v, want y from the boot log", fp.PreemptRCU)
	}
	if fp.Arch.Value != "ppc64le" || fp.Arch.Source != "kernel release" {
		t.Errorf("arch = %#v, want ppc64le from the kernel release", fp.Arch)
	}
	if !strings.HasPrefix(fp.CPU.Model.Unknown, "not available: /proc/cpuinfo") {
		t.Errorf("cpu model = %#v", fp.CPU.Model)
	}
}

// TestUnreadablePreempt makes the debugfs preempt file of power10-7.1
// unreadable in two ways. The file's reason must say which, and the mode
// must still come out, from the boot log.
//
// Root ignores file modes, so when the tests run as root the chmod 000
// case re-executes the test binary as user nobody (65534), which gets the
// real EACCES from open(2). The directory case works for any user: open
// succeeds and read(2) fails with EISDIR.
func TestUnreadablePreempt(t *testing.T) {
	const rel = "sys/kernel/debug/sched/preempt"
	cases := []struct {
		name   string
		break_ func(t *testing.T, path string)
		want   string
	}{
		{"chmod 000", func(t *testing.T, path string) {
			if err := os.Chmod(path, 0); err != nil {
				t.Fatal(err)
			}
		}, "permission denied (EACCES) reading /sys/kernel/debug/sched/preempt; debugfs refuses writable files under kernel lockdown, and needs root"},
		{"directory", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "unreadable: /sys/kernel/debug/sched/preempt is a directory (EISDIR)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := worldReadableTempDir(t)
			root := filepath.Join(dir, "tree")
			copyTree(t, filepath.Join("testdata", "power10-7.1"), root)
			c.break_(t, filepath.Join(root, rel))

			var fp *Fingerprint
			if c.name == "chmod 000" && os.Geteuid() == 0 {
				fp = collectAsNobody(t, dir, root)
			} else {
				fp = Collect(FS{Root: root}, Options{})
			}
			if fp.Preempt.Debugfs.Unknown != c.want {
				t.Errorf("debugfs = %#v\nwant unknown %q", fp.Preempt.Debugfs, c.want)
			}
			if fp.Preempt.Mode.Value != "lazy" || fp.Preempt.Mode.Source != "boot log (/dmesg.txt)" {
				t.Errorf("mode = %#v, want lazy from the boot log", fp.Preempt.Mode)
			}
			checkFacts(t, fp)
		})
	}
}

// worldReadableTempDir makes a temporary directory that user nobody can
// enter (t.TempDir's parent is private to the test's user).
func worldReadableTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sysinfo-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// collectAsNobody runs a copy of the test binary as uid/gid 65534 to take
// the fingerprint of root, and decodes what it prints.
func collectAsNobody(t *testing.T, dir, root string) *Fingerprint {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary sits in a directory private to its builder: link it
	// (or, across file systems, copy it) where nobody can reach it.
	bin := filepath.Join(dir, "sysinfo.test")
	if err := os.Link(self, bin); err != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), collectEnv+"="+root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		testenv.Skipf(t, "cannot run the test binary as nobody: %v: %s", err, stderr.String())
	}
	var fp Fingerprint
	if err := json.Unmarshal(out, &fp); err != nil {
		t.Fatalf("helper output: %v: %s", err, out)
	}
	return &fp
}
