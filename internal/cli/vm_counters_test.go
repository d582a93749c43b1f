package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

// TestVMGuestCounters is issue 36's "the guest takes less than the
// command line says": `kdelta vm ... -- run messaging -e
// context-switches` failed inside the guest with "unknown shorthand flag:
// 'e'". Now the guest (kdelta-guest, built from the source tree, as no
// --guest-binary is given) counts the events in the kernel under test,
// records them as the run's condition, and a bad event is refused on the
// host, before any boot. One boot.
func TestVMGuestCounters(t *testing.T) {
	t.Parallel() // a guest of its own: the boots of the vm tests overlap
	kernel := vmKernel(t)
	bin := kdeltaBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "vm", "--kernel", kernel, "--no-store", "--timeout", "3m", "-o", dir, "--",
		"run", "messaging:groups=1,loops=20", "-e", "context-switches,task-clock", "-r", "1", "--warmup", "0")
	cmd.Dir = filepath.Join("..", "..") // kdelta's source tree: kdelta-guest is built there
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kdelta vm: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("result sets %v, want 1\n%s", files, out)
	}
	s, err := result.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Conditions[result.CondCounters]; c != "context-switches,task-clock" {
		t.Errorf("counters condition %q, want the events given", c)
	}
	runs := s.Benchmarks[0].Measured()
	if len(runs) != 1 {
		t.Fatalf("%d measured runs, want 1", len(runs))
	}
	got := map[string]result.Counter{}
	for _, c := range runs[0].Counters {
		got[c.Name] = c
	}
	for _, name := range []string{"context-switches", "task-clock"} {
		if c, ok := got[name]; !ok || c.Unsupported != "" || c.Value <= 0 {
			t.Errorf("%s in the guest: %+v, want a count", name, c)
		}
	}

	bad := exec.Command(bin, "vm", "--kernel", kernel, "--no-store", "--", "run", "messaging", "-e", "no-such-event")
	bad.Dir = cmd.Dir
	out, err = bad.CombinedOutput()
	if bad.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), `--events: event "no-such-event"`) || strings.Contains(string(out), "boot 1") {
		t.Errorf("a bad event: %v, want exit 2 before a boot, naming --events:\n%s", err, out)
	}
}
