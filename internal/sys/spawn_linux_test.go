package sys

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// TestSpawnerAffinity checks that a child started with CPUs set is
// confined to them from the start, and that the spawner's own thread is
// restored afterwards.
func TestSpawnerAffinity(t *testing.T) {
	allowed, err := Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	want := allowed[len(allowed)-1:]
	cmd := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := DefaultSpawner().Start(cmd, SpawnOptions{CPUs: want, NewGroup: true}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "Cpus_allowed_list:"))
	if got != FormatCPUList(want) {
		t.Errorf("child ran on CPUs %q, want %q", got, FormatCPUList(want))
	}
	// A second child without options inherits the restored mask.
	cmd = exec.Command("grep", "Cpus_allowed_list", "/proc/self/status")
	out.Reset()
	cmd.Stdout = &out
	if err := DefaultSpawner().Start(cmd, SpawnOptions{}); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "Cpus_allowed_list:"))
	if got != FormatCPUList(allowed) {
		t.Errorf("spawner affinity not restored: next child ran on %q, want %q", got, FormatCPUList(allowed))
	}
}

func TestSpawnerFIFO(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "SCHED_FIFO needs root: skipped")
	}
	cmd := exec.Command("chrt", "-p", "0")
	if _, err := exec.LookPath("chrt"); err != nil {
		testenv.Skip(t, "chrt (util-linux) not installed: skipped")
	}
	// chrt -p 0 prints the policy of the calling process (pid 0 = self).
	var out strings.Builder
	cmd.Stdout = &out
	if err := DefaultSpawner().Start(cmd, SpawnOptions{Policy: &Policy{Policy: SchedFIFO, Priority: 7}}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "SCHED_FIFO") || !strings.Contains(s, "priority: 7") {
		t.Errorf("child policy: %q, want SCHED_FIFO priority 7", s)
	}
	// The spawner thread itself is back to its old policy: a new child
	// without a policy is SCHED_OTHER.
	cmd = exec.Command("chrt", "-p", "0")
	out.Reset()
	cmd.Stdout = &out
	if err := DefaultSpawner().Start(cmd, SpawnOptions{}); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if !strings.Contains(out.String(), "SCHED_OTHER") {
		t.Errorf("spawner policy not restored: %q", out.String())
	}
}

// TestSpawnIntoCgroupV1 starts a child in a cgroup v1 cpuset of the
// last CPU: the child is in it from the start, with its CPUs, and the
// spawner's thread is back in its own cpuset afterwards, with its mask.
func TestSpawnIntoCgroupV1(t *testing.T) {
	const root = "/sys/fs/cgroup/cpuset"
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to make a cpuset")
	}
	if _, err := os.Stat(root + "/cpuset.cpu_exclusive"); err != nil {
		testenv.Skipf(t, "no cgroup v1 cpuset hierarchy at %s: %v", root, err)
	}
	allowed, err := Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	last := FormatCPUList(allowed[len(allowed)-1:])
	dir := root + "/kdelta.test-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	mems, _ := os.ReadFile(root + "/cpuset.mems")
	for f, v := range map[string]string{"cpuset.cpus": last, "cpuset.mems": strings.TrimSpace(string(mems))} {
		if err := os.WriteFile(dir+"/"+f, []byte(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	home, _ := os.ReadFile("/proc/self/cpuset")
	run := func(opt SpawnOptions) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", "cat /proc/self/cpuset; grep Cpus_allowed_list /proc/self/status")
		var out strings.Builder
		cmd.Stdout = &out
		if err := DefaultSpawner().Start(cmd, opt); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(out.String()), " ")
	}
	want := "/" + filepath.Base(dir) + " Cpus_allowed_list: " + last
	if got := run(SpawnOptions{Cgroup: &SpawnCgroup{Dir: dir, V1Home: root + strings.TrimSpace(string(home))}}); got != want {
		t.Errorf("child in the cgroup: %q, want %q", got, want)
	}
	want = strings.TrimSpace(string(home)) + " Cpus_allowed_list: " + FormatCPUList(allowed)
	if got := run(SpawnOptions{}); got != want {
		t.Errorf("child after: %q, want the spawner's own %q", got, want)
	}
}
