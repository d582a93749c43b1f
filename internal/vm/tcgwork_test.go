package vm

import (
	"slices"
	"strings"
	"testing"
)

// TestTCGJob checks what a TCG boot of each architecture runs: syscall
// with the architecture's count where the user gave none, the user's own
// count (the default asked for by name included) kept, other workloads
// and amd64 untouched, and a note naming the default for each change.
func TestTCGJob(t *testing.T) {
	j := &Job{Specs: []string{"syscall", "syscall:syscall=gettid", "syscall:calls=10000000", "rcu:calls=10"}, Repeat: 1}
	got, notes := tcgJob(j, arches["s390x"])
	want := []string{"syscall:calls=200000", "syscall:syscall=gettid,calls=200000", "syscall:calls=10000000", "rcu:calls=10"}
	if !slices.Equal(got.Specs, want) {
		t.Errorf("s390x specs %q, want %q", got.Specs, want)
	}
	if j.Specs[0] != "syscall" {
		t.Errorf("the host's job was changed: %q", j.Specs)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "instead of its default calls=10000000") || !strings.Contains(notes[0], "give syscall:calls=10000000 for the default") {
		t.Errorf("notes %q: want one per spec changed, naming the default and how to ask for it", notes)
	}
	if _, err := got.Workloads(); err != nil {
		t.Errorf("the cut job does not parse: %v", err)
	}
	if same, notes := tcgJob(j, arches["amd64"]); same != j || notes != nil {
		t.Errorf("amd64 under TCG: job %q, notes %q; want its defaults", same.Specs, notes)
	}
}
