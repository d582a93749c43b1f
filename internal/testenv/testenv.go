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
