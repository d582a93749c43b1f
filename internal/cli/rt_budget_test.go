package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestFIFOCgroupNoRTBudget is issue 35 point 11: as root inside a cgroup
// v1 whose cpu.rt_runtime_us is 0 (a new cgroup's value), --fifo fails
// naming the cgroup's budget and the file to raise, not "needs root or
// CAP_SYS_NICE". A real cgroup, a real kdelta in it.
func TestFIFOCgroupNoRTBudget(t *testing.T) {
	testenv.NeedRoot(t, "to make a cgroup and ask for SCHED_FIFO")
	if !exists("/sys/fs/cgroup/cpu/cpu.rt_runtime_us") {
		testenv.Skip(t, "needs cgroup v1's cpu controller with CONFIG_RT_GROUP_SCHED (cpu.rt_runtime_us)")
	}
	dir := filepath.Join("/sys/fs/cgroup/cpu", fmt.Sprintf("kdelta-test-rt-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("cgroup %s left behind", dir)
	})
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.rt_runtime_us")); err != nil || strings.TrimSpace(string(b)) != "0" {
		t.Fatalf("a new cgroup's cpu.rt_runtime_us: %q, %v; want 0", b, err)
	}
	bin := kdeltaBinary(t)
	cmd := exec.Command("sh", "-c", `echo $$ > "$1/cgroup.procs" && exec "$2" run syscall:calls=1000 -r 1 --warmup 0 --no-store --fifo 98`,
		"sh", dir, bin)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, out)
	}
	want := fmt.Sprintf("kdelta: --fifo 98: kdelta's cgroup /%s has no real-time budget (%s is 0)", filepath.Base(dir), filepath.Join(dir, "cpu.rt_runtime_us"))
	if !strings.HasPrefix(string(out), want) || strings.Count(string(out), "\n") != 1 {
		t.Errorf("got\n%s\nwant one line starting %s", out, want)
	}
	if strings.Contains(string(out), "CAP_SYS_NICE") {
		t.Errorf("blames privileges:\n%s", out)
	}
}
