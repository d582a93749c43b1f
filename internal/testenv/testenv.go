// Package testenv is the one way a kdelta test gives up for lack of
// something on the machine: root, a tool, a kernel feature, a fixture. On a
// developer's machine the test skips and says why; in CI (the CI variable
// set, as every CI system sets it) it fails instead, because the test
// command installs everything the tests need and a skip there would hide a
// test that never ran. Only tests import it.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// InCI reports whether the tests run under CI, where nothing may skip: the
// CI variable is set to anything but "", "0" or "false".
func InCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false":
		return false
	}
	return true
}

// Skip skips t with the reason made from args as t.Skip makes it, or fails
// t with that reason under CI.
func Skip(t testing.TB, args ...any) {
	t.Helper()
	skip(t, strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	skip(t, fmt.Sprintf(format, args...))
}

func skip(t testing.TB, reason string) {
	t.Helper()
	if InCI() {
		t.Fatalf("cannot run here, and CI may not skip (the test command installs what tests need): %s", reason)
	}
	t.Skip("skipped: " + reason)
}

// NeedRoot skips (or fails under CI) a test that must run as root.
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skipf(t, "needs root: %s", why)
	}
}

// NeedCommand returns the path of the named program, skipping (or failing
// under CI) when it is not on PATH; pkg names the Debian package that
// provides it.
func NeedCommand(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Skipf(t, "%s not installed (Debian package %s): %v", name, pkg, err)
	}
	return p
}

// rcuExpedited is the knob that makes every RCU grace period expedited.
const rcuExpedited = "/sys/kernel/rcu_expedited"

// NormalGracePeriods sets /sys/kernel/rcu_expedited to 0 for the rest of
// t, and back to what it was when t ends, for a test whose claim is about
// normal grace periods (a jiffy or more each). Some kernels boot with
// every grace period expedited (CONFIG_RCU_EXPEDITED or
// rcupdate.rcu_expedited=1, "All grace periods are expedited" in dmesg);
// their membarrier(GLOBAL) returns in microseconds and no normal-path
// knob moves it. Without root or the file it skips (fails under CI).
func NormalGracePeriods(t testing.TB) {
	t.Helper()
	setRCUExpedited(t, "0")
}

// ExpeditedGracePeriods sets /sys/kernel/rcu_expedited to 1 for the rest
// of t, as NormalGracePeriods sets it to 0.
func ExpeditedGracePeriods(t testing.TB) {
	t.Helper()
	setRCUExpedited(t, "1")
}

func setRCUExpedited(t testing.TB, v string) {
	t.Helper()
	b, err := os.ReadFile(rcuExpedited)
	if err != nil {
		Skipf(t, "cannot read %s: %v", rcuExpedited, err)
	}
	was := strings.TrimSpace(string(b))
	if was == v {
		return
	}
	if err := os.WriteFile(rcuExpedited, []byte(v+"\n"), 0); err != nil {
		Skipf(t, "%s is %s and cannot be set to %s: %v", rcuExpedited, was, v, err)
	}
	t.Logf("%s was %s: set to %s for this test", rcuExpedited, was, v)
	t.Cleanup(func() {
		if err := os.WriteFile(rcuExpedited, []byte(was+"\n"), 0); err != nil {
			t.Errorf("putting %s back to %s: %v", rcuExpedited, was, err)
		}
	})
}
