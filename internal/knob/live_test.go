package knob

import (
	"os"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/testenv"
)

// wakePath is a real knob this test machine has (Linux 6.18 rcutree): it
// moves synchronize_rcu() latency and nothing else kdelta tests rely on.
const wakePath = "/sys/module/rcutree/parameters/rcu_normal_wake_from_gp"

// liveKnob skips unless path is a knob this process can write, and puts
// its value back when the test ends, whatever happens in it.
func liveKnob(t *testing.T, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "needs root to write kernel knobs")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		testenv.Skipf(t, "no %s here: %v", path, err)
	}
	orig := strings.TrimSpace(string(b))
	t.Cleanup(func() {
		if err := os.WriteFile(path, []byte(orig+"\n"), 0); err != nil {
			t.Errorf("cleanup: restore %s=%s: %v", path, orig, err)
		}
	})
	return orig
}

func TestLiveApplyRestore(t *testing.T) {
	orig := liveKnob(t, wakePath)
	other := "0"
	if orig == "0" {
		other = "1"
	}
	st := settings(t, wakePath+"="+other)
	s, err := Open([][]Setting{st}, Options{JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Restore()
	if err := s.Apply(st); err != nil {
		t.Fatal(err)
	}
	if v := s.Values()["rcutree.rcu_normal_wake_from_gp"]; v != other {
		t.Errorf("after Apply: %q, want %q", v, other)
	}
	if err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(read(t, wakePath)); got != orig {
		t.Errorf("after Restore: %q, want %q", got, orig)
	}
}

// TestLiveRefusals: a read-only module parameter cannot be opened for
// writing, and a value the kernel refuses is found by Check, which leaves
// the knob as it was.
func TestLiveRefusals(t *testing.T) {
	orig := liveKnob(t, wakePath)
	const readOnly = "/sys/module/rcutree/parameters/blimit"
	if _, err := os.Stat(readOnly); err != nil {
		testenv.Skipf(t, "no %s: %v", readOnly, err)
	}
	_, err := Open([][]Setting{settings(t, readOnly+"=5")}, Options{JournalDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), readOnly+": cannot be opened for writing: permission denied") {
		t.Errorf("read-only knob: %v", err)
	}
	good, bad := settings(t, wakePath+"=0"), settings(t, wakePath+"=bogus")
	s, err := Open([][]Setting{good, bad}, Options{JournalDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Restore()
	err = s.Check([][]Setting{good, bad})
	if err == nil || !strings.Contains(err.Error(), wakePath+"=bogus: the kernel refused \"bogus\": invalid argument") {
		t.Errorf("Check with a refused value: %v", err)
	}
	if got := strings.TrimSpace(read(t, wakePath)); got != orig {
		t.Errorf("after a failed Check: %q, want %q", got, orig)
	}
}
