package sys

import (
	"os"
	"os/exec"
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
