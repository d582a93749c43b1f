package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/testenv"
)

// quotaCgroup makes a cgroup whose tasks may use half a CPU (v1
// cpu.cfs_quota_us over cpu.cfs_period_us, or v2 cpu.max, whichever this
// machine has) and removes it when the test ends. It returns the file a
// pid is written to, to join it.
func quotaCgroup(t *testing.T) string {
	t.Helper()
	testenv.NeedRoot(t, "to make a cgroup with a CPU quota")
	name := fmt.Sprintf("kdelta-test-quota-%d", os.Getpid())
	var dir, join string
	switch {
	case exists("/sys/fs/cgroup/cgroup.controllers"):
		dir = filepath.Join("/sys/fs/cgroup", name)
		if b, _ := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); !strings.Contains(string(b), "cpu") {
			if err := os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+cpu"), 0); err != nil {
				testenv.Skipf(t, "cannot enable the cpu controller for child cgroups: %v", err)
			}
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("50000 100000"), 0); err != nil {
			t.Fatal(err)
		}
		join = filepath.Join(dir, "cgroup.procs")
	case exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
		dir = filepath.Join("/sys/fs/cgroup/cpu", name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range map[string]string{"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "50000"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0); err != nil {
				t.Fatal(err)
			}
		}
		join = filepath.Join(dir, "cgroup.procs")
	default:
		testenv.Skip(t, "no cgroup cpu controller (v1 /sys/fs/cgroup/cpu or v2 /sys/fs/cgroup)")
	}
	t.Cleanup(func() {
		// Its tasks are gone once the test's commands ended; rmdir can
		// still race their exit for a moment.
		for i := 0; i < 50; i++ {
			if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("cgroup %s left behind", dir)
	})
	return join
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRunUnderCPUQuota is issue 17's acceptance 3: kdelta run inside a
// cgroup with a CPU quota records the quota in the fingerprint, warns, and
// env diff against a set measured outside names it.
func TestRunUnderCPUQuota(t *testing.T) {
	join := quotaCgroup(t)
	bin, dir := kdeltaBinary(t), t.TempDir()
	free, limited := filepath.Join(dir, "free.json"), filepath.Join(dir, "quota.json")
	args := []string{"run", "syscall:calls=200000", "-r", "1", "--warmup", "0", "--no-store", "--counters", "none", "--monitor", "none", "-o"}
	if out, err := exec.Command(bin, append(args, free)...).CombinedOutput(); err != nil {
		t.Fatalf("kdelta run: %v: %s", err, out)
	}
	// The shell joins the cgroup, then becomes kdelta: everything kdelta
	// starts is inside.
	shArgs := append([]string{"-c", `echo $$ > "$0" && exec "$@"`, join, bin}, append(args, limited)...)
	sh := exec.Command("sh", shArgs...)
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta run in the cgroup: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "CPU quota of 0.50 CPU") {
		t.Errorf("no quota warning:\n%s", out)
	}
	s, err := result.Load(limited)
	if err != nil {
		t.Fatal(err)
	}
	q := s.Env.Cgroup.CPUQuota
	if !strings.Contains(q.Value, "50000/100000 us (0.50 CPU)") || !strings.Contains(q.Value, filepath.Base(filepath.Dir(join))) {
		t.Errorf("fingerprint's CPU quota %+v, want 50000/100000 at the test's cgroup", q)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "CPU quota") {
		t.Errorf("the set does not keep the warning: %q", s.Warnings)
	}
	diff, err := exec.Command(bin, "env", "diff", free, limited).CombinedOutput()
	if err != nil {
		t.Fatalf("env diff: %v: %s", err, diff)
	}
	var line string
	for _, l := range strings.Split(string(diff), "\n") {
		if strings.Contains(l, "CPU quota") || strings.Contains(l, "cgroup.cpu_quota") {
			line = l
		}
	}
	if !strings.Contains(line, "none") || !strings.Contains(line, "0.50 CPU") || !strings.HasPrefix(strings.TrimSpace(line), "!") {
		t.Errorf("env diff does not mark the quota as a relevant difference (%q):\n%s", line, diff)
	}
}
