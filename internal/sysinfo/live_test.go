package sysinfo

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
)

// thisVM is the kernel of the development VM, whose preemption facts were
// checked by hand: `dmesg | grep -i preempt` prints "Dynamic Preempt:
// none", /sys/kernel/debug is not mounted, and once mounted the preempt
// file answers EPERM (CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y). Its
// builds differ only in the suffix after it (v657, v669, ...).
const thisVM = "6.18.44-fc-"

// loggedPreempt asks the dmesg tool for the last "Dynamic Preempt:" mode,
// an answer independent of this package's /dev/kmsg reader. Where the
// ring buffer has lost the line, the copy kdelta keeps for this boot
// (bootkeep.go) answers, as it does for the fingerprint.
func loggedPreempt(t *testing.T) string {
	re := regexp.MustCompile(`Dynamic Preempt: (\w+)`)
	last := func(text string) string {
		m := re.FindAllStringSubmatch(text, -1)
		if len(m) == 0 {
			return ""
		}
		return m[len(m)-1][1]
	}
	out, err := exec.Command("dmesg").Output()
	if err != nil {
		t.Logf("dmesg: %v", err)
		return ""
	}
	if m := last(string(out)); m != "" {
		return m
	}
	id, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	kept, _ := os.ReadFile(bootKeepFile(strings.TrimSpace(string(id))))
	if m := last(string(kept)); m != "" {
		t.Logf("dmesg has lost the Dynamic Preempt line; this boot's kept copy says %q", m)
		return m
	}
	return ""
}

// checkVMMode checks the development VM's mode: "none", from the boot
// log while its line is in the ring buffer or kept, else from the build
// default. before and after are what loggedPreempt found just before
// and after the collection: tests in other packages log (every bridge
// cycle does), and when the line leaves the buffer in between, either
// source is right.
func checkVMMode(t *testing.T, mode Fact, before, after string) {
	t.Helper()
	var want []string
	if before != "" {
		want = append(want, "boot log (/dev/kmsg)")
	}
	if after == "" {
		want = append(want, "build default (CONFIG_PREEMPT_NONE=y)")
	}
	if mode.Value != "none" || !slices.Contains(want, mode.Source) {
		t.Errorf("on %s mode = %#v, want none from %s (boot log before %q, after %q)",
			thisVM, mode, strings.Join(want, " or "), before, after)
	}
}

// TestLiveFingerprint collects this machine's fingerprint and checks the
// run-time preemption mode against what dmesg says.
func TestLiveFingerprint(t *testing.T) {
	before := loggedPreempt(t)
	fp := Collect(FS{Root: "/"}, Options{})
	after := loggedPreempt(t)
	checkFacts(t, fp)
	var b bytes.Buffer
	if err := WriteText(&b, fp); err != nil {
		t.Fatal(err)
	}
	checkText(t, "live env", b.String())
	t.Logf("preemption: mode %#v; model %#v; debugfs %#v", fp.Preempt.Mode, fp.Preempt.Model, fp.Preempt.Debugfs)
	for _, w := range Warnings(fp, []int{0}) {
		t.Logf("warning: %s", w)
	}

	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		testenv.Skipf(t, "no procfs: %v", err)
	}
	if fp.Kernel.Release.Value != strings.TrimSpace(string(release)) {
		t.Errorf("release %#v, want %q", fp.Kernel.Release, release)
	}

	mode := fp.Preempt.Mode
	if fp.Preempt.Debugfs.Known() {
		if !strings.HasPrefix(mode.Source, "debugfs") {
			t.Errorf("debugfs readable but mode %#v not from it", mode)
		}
	} else if want := after; before != "" && want != "" {
		// The line was in the ring buffer throughout the collection.
		if mode.Value != want || !strings.HasPrefix(mode.Source, "boot log") {
			t.Errorf("mode = %#v, want %q from the boot log as dmesg says", mode, want)
		}
	}
	if strings.HasPrefix(fp.Kernel.Release.Value, thisVM) {
		// The boot log's line is there until the ring buffer wraps (other
		// tests fill it: every bridge cycle logs); then the build default
		// answers, and on this VM it says the same.
		checkVMMode(t, mode, before, after)
		if fp.Preempt.Model.Value != "none" || fp.Preempt.Dynamic.Value != "yes" || fp.PreemptRCU.Value != "y" {
			t.Errorf("on %s: model %#v, dynamic %#v, PREEMPT_RCU %#v; want none, yes, y",
				thisVM, fp.Preempt.Model, fp.Preempt.Dynamic, fp.PreemptRCU)
		}
	}
}

// TestLiveDebugfs mounts debugfs in a private mount namespace (so that the
// machine's own mounts are untouched), where the machine has not mounted
// it already (systemd does), and collects this machine's
// fingerprint there: the preempt file is either read, and decides the
// mode, or refused with a reason. On the development VM, locked down to
// integrity, the refusal is EPERM.
func TestLiveDebugfs(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "mounting debugfs needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		testenv.Skip(t, "no unshare(1) to make a mount namespace")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c",
		`grep -q '^[^ ]* /sys/kernel/debug debugfs ' /proc/mounts || mount -t debugfs none /sys/kernel/debug || exit 3; exec "$0"`, self)
	cmd.Env = append(os.Environ(), collectEnv+"=/")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	before := loggedPreempt(t)
	out, err := cmd.Output()
	after := loggedPreempt(t)
	if err != nil {
		testenv.Skipf(t, "cannot mount debugfs in a new mount namespace: %v: %s", err, stderr.String())
	}
	var fp Fingerprint
	if err := json.Unmarshal(out, &fp); err != nil {
		t.Fatalf("helper output: %v: %s", err, out)
	}
	p := fp.Preempt
	t.Logf("debugfs: %#v; mode: %#v", p.Debugfs, p.Mode)
	switch {
	case p.Debugfs.Known():
		if !strings.HasPrefix(p.Mode.Source, "debugfs") {
			t.Errorf("debugfs read but mode %#v not from it", p.Mode)
		}
	case p.Dynamic.Value == "yes" && !strings.Contains(p.Debugfs.Unknown, "EPERM"):
		t.Errorf("debugfs mounted on a PREEMPT_DYNAMIC kernel, yet %q", p.Debugfs.Unknown)
	}
	if strings.HasPrefix(fp.Kernel.Release.Value, thisVM) {
		want := "permission denied (EPERM) reading /sys/kernel/debug/sched/preempt; kernel lockdown (integrity) closes writable debugfs files"
		if p.Debugfs.Unknown != want {
			t.Errorf("on %s debugfs = %#v, want unknown %q", thisVM, p.Debugfs, want)
		}
		checkVMMode(t, p.Mode, before, after)
	}
}

func TestToolVersions(t *testing.T) {
	got := ToolVersions()
	for _, tl := range tools {
		v, ok := got[tl.name]
		if !ok {
			t.Errorf("no entry for %s", tl.name)
			continue
		}
		if _, err := exec.LookPath(tl.program()); err != nil {
			if v != NotInstalled {
				t.Errorf("%s is not on PATH but its version is %q", tl.name, v)
			}
			continue
		}
		if !versionRE.MatchString(v) || strings.HasPrefix(v, "unknown") {
			t.Errorf("%s version %q is not a version number", tl.name, v)
		}
		t.Logf("%s %s", tl.name, v)
	}
}

func TestToolVersionFailures(t *testing.T) {
	if v := toolVersion("kdelta-no-such-tool", nil, time.Second); v != NotInstalled {
		t.Errorf("missing tool: %q, want %q", v, NotInstalled)
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		testenv.Skip(t, "no sleep(1)")
	}
	v := toolVersion("sleep", []string{"30"}, 50*time.Millisecond)
	if !strings.HasPrefix(v, "unknown: sleep 30: timed out after 50ms") {
		t.Errorf("hanging tool: %q", v)
	}
	if _, err := exec.LookPath("true"); err == nil {
		if v := toolVersion("true", nil, time.Second); !strings.HasPrefix(v, "unknown: no version in output of true") {
			t.Errorf("silent tool: %q", v)
		}
	}
}

func TestParseToolVersion(t *testing.T) {
	cases := []struct{ out, want string }{
		{"perf version 6.1.192\n", "6.1.192"},
		{"stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux 6.18.44-fc-v657)\n", "0.15.06"},
		{"hackbench V 2.40\nUsage:\nhackbench <options>\n", "2.40"},
		{"hackbench: unrecognized option '--version'\nhackbench V 2.40\n", "2.40"},
		{"perf version 6.15.0-0.rc6.51.eln148.ppc64le\n", "6.15.0"},
		{"no version here\n", ""},
	}
	for _, c := range cases {
		if got := parseToolVersion(c.out); got != c.want {
			t.Errorf("parseToolVersion(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}
