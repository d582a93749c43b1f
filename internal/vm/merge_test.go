package vm

import (
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

func bootSet(complete bool, runs ...*result.Run) *result.Set {
	return &result.Set{
		Schema:   result.Schema,
		Labels:   map[string]string{"kernel": "6.1.0"},
		Complete: complete,
		Benchmarks: []*result.Benchmark{
			{Workload: "syscall", Params: map[string]string{"calls": "100"}, Runs: runs},
			{Workload: "bridge", Params: map[string]string{}, Skipped: "needs modules",
				Runs: []*result.Run{{Status: result.StatusSkipped, Reason: "needs modules"}}},
		},
		Warnings: []string{"w"},
	}
}

func TestMergeBoots(t *testing.T) {
	boot := func(complete bool) *result.Set {
		return bootSet(complete,
			&result.Run{Index: 0, Warmup: true, Status: result.StatusOK},
			&result.Run{Index: 0, Status: result.StatusOK},
			&result.Run{Index: 1, Status: result.StatusOK})
	}
	s := MergeBoot(nil, boot(true), 0)
	s = MergeBoot(s, boot(true), 1)
	s = MergeBoot(s, boot(false), 2)
	runs := s.Benchmarks[0].Runs
	if len(runs) != 9 {
		t.Fatalf("%d runs, want 9", len(runs))
	}
	var got []string
	for _, r := range runs {
		w := ""
		if r.Warmup {
			w = "w"
		}
		got = append(got, w+string(rune('0'+r.Index))+"@"+r.Info["boot"])
	}
	want := "w0@0 0@0 1@0 w1@1 2@1 3@1 w2@2 4@2 5@2"
	if strings.Join(got, " ") != want {
		t.Errorf("runs %s, want %s", strings.Join(got, " "), want)
	}
	if n := len(s.Benchmarks[1].Runs); n != 1 {
		t.Errorf("skipped benchmark has %d runs, want the one skip", n)
	}
	if len(s.Warnings) != 1 {
		t.Errorf("warnings %q repeated", s.Warnings)
	}
	if s.Complete {
		t.Error("a set with an incomplete boot is complete")
	}
	// Every boot is a session of its own, for the comparison's design.
	sessions := map[string]bool{}
	for _, r := range runs {
		sessions[r.Session] = true
	}
	if len(sessions) != 3 || sessions[""] {
		t.Errorf("sessions %v, want one per boot", sessions)
	}
}

func TestLabel(t *testing.T) {
	s := bootSet(true)
	opt := &Options{Boots: 3, CPUs: 1, Labels: map[string]string{"series": "x"}}
	v := &prepared{Variant: Variant{Append: "preempt=full"}, name: "B", kernel: &Kernel{Release: "6.1.0-img"}}
	_, v.tcgNotes = tcgJob(&Job{Specs: []string{"syscall"}}, arches["s390x"])
	label(s, opt, v, "tcg", 3)
	for k, want := range map[string]string{"kernel": "6.1.0-img", "cmdline": "preempt=full", "variant": "B", "accel": "tcg", "boots": "3", "series": "x", "vm": "qemu"} {
		if s.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, s.Labels[k], want)
		}
	}
	if !contains(s.Warnings, TCGWarning) || len(v.tcgNotes) != 1 || !contains(s.Warnings, v.tcgNotes[0]) || len(s.Warnings) != 4 {
		t.Errorf("warnings %q: want the TCG and the one-CPU warnings, and how the job was cut to TCG's", s.Warnings)
	}
}

func TestCleanLine(t *testing.T) {
	for in, want := range map[string]string{
		"[    2.262843] Kernel panic - not syncing: VFS\r": "Kernel panic - not syncing: VFS",
		"\x1bc\x1b[?7l\x1b[2JSeaBIOS (version 1.16.2)":     "SeaBIOS (version 1.16.2)",
		"kdelta guest: runs done":                          "kdelta guest: runs done",
		"[not a timestamp that is long] x":                 "[not a timestamp that is long] x",
		"\x00\x01":                                         "",
	} {
		if got := cleanLine(in); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConsole(t *testing.T) {
	c := newConsole()
	c.read(strings.NewReader("SeaBIOS\n[ 0.0] Linux version 6.1.0\nVFS: Cannot open root device\nPlease append a correct \"root=\"\n[ 2.2] Kernel panic - not syncing: VFS: Unable to mount root fs\n[ 2.2] Call Trace:\n"))
	select {
	case <-c.booted:
	default:
		t.Error("boot not seen")
	}
	select {
	case <-c.panicked:
	default:
		t.Error("panic not seen")
	}
	if c.panicLine() != "Kernel panic - not syncing: VFS: Unable to mount root fs" {
		t.Errorf("panic line %q", c.panicLine())
	}
	if len(c.panicContext) != 4 || c.panicContext[3] != `Please append a correct "root="` {
		t.Errorf("panic context %q", c.panicContext)
	}
	if tail := c.tail(1); len(tail) != 1 || tail[0] != "Call Trace:" {
		t.Errorf("tail %q", tail)
	}
}
