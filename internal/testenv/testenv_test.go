package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSkipFailsInCI runs this test binary again with a test that skips, once
// with CI unset and once with CI=true, and checks that the first skips with
// its reason and the second fails with it.
func TestSkipFailsInCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		return
	}
	for _, tt := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP: TestChildSkips"},
		{"false", false, "--- SKIP: TestChildSkips"},
		{"true", true, "--- FAIL: TestChildSkips"},
		{"1", true, "--- FAIL: TestChildSkips"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildSkips$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+tt.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tt.wantFail {
			t.Errorf("CI=%q: err %v, want failure %v:\n%s", tt.ci, err, tt.wantFail, out)
		}
		if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "no frobnicator here") {
			t.Errorf("CI=%q: output lacks %q and the reason:\n%s", tt.ci, tt.want, out)
		}
	}
}

func TestChildSkips(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "1" {
		return
	}
	Skipf(t, "no frobnicator here (%d)", 1)
	t.Error("Skipf returned")
}
