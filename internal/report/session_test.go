package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/job"
	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/store"
)

// TestWriteSession prints each part of a session only when it is there:
// a sweep in text and Markdown only, with a blank line after a
// comparison, and how until-conclusive ended.
func TestWriteSession(t *testing.T) {
	sweep := []job.Sweep{{Workload: "syscall", Metric: result.Metric{Name: "ns/call"}, Variants: []string{""}}}
	tests := []struct {
		s      Session
		format string
		want   string
	}{
		{Session{}, "text", ""},
		{Session{Sweeps: sweep}, "text", "sweep: syscall ns/call"},
		{Session{Sweeps: sweep}, "csv", ""},
		{Session{Until: &Until{Runs: 7, MaxRuns: 20}}, "json",
			"until-conclusive: every verdict conclusive after 7 runs per variant\n"},
		{Session{Until: &Until{Runs: 20, MaxRuns: 20, Pending: []job.Verdict{
			{Cell: "b", Baseline: "a", Benchmark: "syscall", Metric: "ns/call", Comparison: stats.Comparison{Change: 0.004, Verdict: stats.Inconclusive, NeedRuns: 30}},
			{Cell: "c", Baseline: "a", Benchmark: "syscall", Metric: "ns/call", Comparison: stats.Comparison{Change: -0.01, Verdict: stats.Inconclusive}},
		}}}, "text",
			"until-conclusive: reached --max-runs 20: b vs a: syscall ns/call: +0.40% inconclusive (need ≈30 runs)\n" +
				"until-conclusive: reached --max-runs 20: c vs a: syscall ns/call: -1.0% inconclusive\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteSession(&b, tt.s, tt.format); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); !strings.HasPrefix(got, tt.want) || tt.want == "" && got != "" {
			t.Errorf("%+v in %s:\n%s\nwant it to start %q", tt.s, tt.format, got, tt.want)
		}
	}
	var b bytes.Buffer
	if err := WriteSession(&b, Session{Compare: loadPair(t, nil), Sweeps: sweep}, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n\nsweep: syscall ns/call") {
		t.Errorf("comparison then sweep:\n%s", b.String())
	}
}

// TestWriteSaved says, per cell, the store's id and the file, and
// returns the files.
func TestWriteSaved(t *testing.T) {
	s := Session{Names: []string{"a", ""}, Sets: []*result.Set{{ID: "id-a"}, {ID: "id-b"}}, Paths: []string{"p-a.json", ""}}
	var b bytes.Buffer
	saved := s.WriteSaved(&b, "kdelta.db")
	want := "kdelta: a recorded as id-a in kdelta.db\nkdelta: - recorded as id-b in kdelta.db\nkdelta: a saved in p-a.json\n"
	if b.String() != want || len(saved) != 1 || saved[0] != "p-a.json" {
		t.Errorf("WriteSaved:\n%s%v\nwant:\n%s", b.String(), saved, want)
	}
	b.Reset()
	if s.WriteSaved(&b, ""); strings.Contains(b.String(), "recorded") {
		t.Errorf("without a store: %s", b.String())
	}
}

// TestInterrupted counts measured runs and warm-ups apart, over every
// set, leaving out runs that did not finish, singular and plural right,
// and says where the sets are and whether the knobs are back.
func TestInterrupted(t *testing.T) {
	set := func(runs ...*result.Run) *result.Set {
		return &result.Set{Benchmarks: []*result.Benchmark{{Workload: "syscall", Runs: runs}}}
	}
	ok := &result.Run{Status: result.StatusOK}
	warm := &result.Run{Status: result.StatusOK, Warmup: true}
	failed := &result.Run{Status: result.StatusFailed}
	cut := &result.Run{Status: result.StatusInterrupted, Warmup: true}
	tests := []struct {
		sets     []*result.Set
		saved    string
		knobs    bool
		restored bool
		want     string
	}{
		{[]*result.Set{set()}, "", false, false, "interrupted: kept 0 measured runs and 0 warm-up runs"},
		{[]*result.Set{set(warm)}, "r.json", false, false, "interrupted: kept 0 measured runs and 1 warm-up run in r.json"},
		{[]*result.Set{set(warm, ok, failed)}, "", true, true, "interrupted: kept 1 measured run and 1 warm-up run; knobs restored"},
		{[]*result.Set{set(warm, ok, ok), set(warm, cut, ok)}, "p-a.json, p-b.json", true, false,
			"interrupted: kept 3 measured runs and 2 warm-up runs in p-a.json, p-b.json; some knobs are not restored (kdelta restore tries again)"},
	}
	for _, tt := range tests {
		if got := Interrupted(tt.sets, tt.saved, tt.knobs, tt.restored); got != tt.want {
			t.Errorf("Interrupted: %q, want %q", got, tt.want)
		}
	}
}

// TestStoredLines: results tag's line, rm's question, and export's JSON,
// which is the file's.
func TestStoredLines(t *testing.T) {
	in := store.Info{ID: "20260701T120000-aaaa01", Created: time.Date(2026, 7, 1, 14, 0, 0, 0, time.FixedZone("CEST", 7200)),
		Labels: map[string]string{"kernel": "6.16", "host": "p10"}, Runs: 5}
	if got, want := Tagged(in), "20260701T120000-aaaa01 host=p10 kernel=6.16"; got != want {
		t.Errorf("Tagged: %q, want %q", got, want)
	}
	if got, want := Tagged(store.Info{ID: "x"}), "x"; got != want {
		t.Errorf("Tagged without labels: %q, want %q", got, want)
	}
	if got, want := RemovePrompt(in), "remove 20260701T120000-aaaa01 (2026-07-01 12:00Z host=p10 kernel=6.16, 5 runs)? [y/N] "; got != want {
		t.Errorf("RemovePrompt: %q, want %q", got, want)
	}
	set := &result.Set{Schema: result.Schema, ID: in.ID, Labels: in.Labels, Benchmarks: []*result.Benchmark{{Workload: "kill <&>"}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := result.Save(path, set); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSetJSON(&b, set); err != nil || b.String() != string(file) {
		t.Errorf("WriteSetJSON: %v\n%s\nwant the file's:\n%s", err, b.String(), file)
	}
}

// TestWriteFileDiffs heads each file's diffs, in text and Markdown, and
// a run's profiles.
func TestWriteFileDiffs(t *testing.T) {
	a, b := seed004(t)
	d, err := profile.Compare(a, b, "share")
	if err != nil {
		t.Fatal(err)
	}
	fds := []profile.FileDiff{{Base: "a.json", Other: "b.json", Diffs: []*profile.Diff{d}}}
	for format, head := range map[string]string{"text": "\nprofiles: b.json vs a.json\n\n", "markdown": "\n## profiles: b.json vs a.json\n\n"} {
		var w bytes.Buffer
		if err := WriteFileDiffs(&w, fds, format); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(w.String(), head) || !strings.Contains(w.String(), "__task_pid_nr_ns") {
			t.Errorf("%s:\n%s", format, w.String())
		}
	}
	var w bytes.Buffer
	WriteRunProfiles(&w, &result.Set{Benchmarks: []*result.Benchmark{{Workload: "syscall", Profiles: []result.Profile{*a.Profiles[0]}}}})
	if !strings.HasPrefix(w.String(), "\nprofiles (extra runs, not in the statistics above):\n") || !strings.Contains(w.String(), "__task_pid_nr_ns") {
		t.Errorf("run profiles:\n%s", w.String())
	}
	w.Reset()
	if WriteRunProfiles(&w, &result.Set{}); w.Len() != 0 {
		t.Errorf("a set without profiles: %q", w.String())
	}
}
