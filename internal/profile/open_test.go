package profile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/kdelta/kdelta/internal/result"
)

// table is a profile of one symbol table: samples per symbol.
func table(samples map[string]int64) result.Profile {
	p := result.Profile{Event: "cycles"}
	for sym, n := range samples {
		p.Samples += n
		p.Symbols = append(p.Symbols, result.ProfileSymbol{Symbol: sym, DSO: "[kernel.kallsyms]", Kernel: true, Samples: n})
	}
	for i := range p.Symbols {
		p.Symbols[i].Overhead = 100 * float64(p.Symbols[i].Samples) / float64(p.Samples)
	}
	SortSymbols(p.Symbols)
	return p
}

// profiled is a result set whose benchmarks (workload names) each hold
// one profile.
func profiled(workloads ...string) *result.Set {
	s := &result.Set{}
	for i, w := range workloads {
		b := &result.Benchmark{Workload: w, Profiles: []result.Profile{table(map[string]int64{"do_syscall_64": int64(100 + i), "__task_pid_nr_ns": 50})}}
		s.Benchmarks = append(s.Benchmarks, b)
	}
	return s
}

// sets is a Source over names.
func sets(byName map[string]*result.Set) Source {
	return func(ref string) (*result.Set, error) {
		if s, ok := byName[ref]; ok {
			return s, nil
		}
		return nil, errors.New(ref + ": no such set")
	}
}

// TestOpen reads a file, or else asks the source, and keeps the groups
// --workload names.
func TestOpen(t *testing.T) {
	before := filepath.Join("testdata", "seed004-before.txt")
	src := sets(map[string]*result.Set{"kernel=6.16": profiled("syscall", "pipe"), "bare": {}})
	tests := []struct {
		ref, only string
		groups    []string // the groups' names, or the error's start
		err       string
	}{
		{ref: before, groups: []string{before}},
		{ref: "kernel=6.16", groups: []string{"syscall", "pipe"}},
		{ref: "kernel=6.16", only: "pi", groups: []string{"pipe"}},
		{ref: "kernel=6.16", only: "messaging", err: `--workload: no profiled benchmark in kernel=6.16 starts with "messaging"`},
		{ref: "bare", err: "bare: no profiles in this result set"},
		{ref: "kernel=6.17", err: "kernel=6.17: no such set"},
	}
	for _, tt := range tests {
		gs, err := Open(context.Background(), tt.ref, tt.only, src)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("Open(%s, %q): %v, want %q", tt.ref, tt.only, err, tt.err)
			}
			continue
		}
		var names []string
		for _, g := range gs {
			names = append(names, g.Name)
		}
		if err != nil || strings.Join(names, " ") != strings.Join(tt.groups, " ") {
			t.Errorf("Open(%s, %q): %v, %v; want %v", tt.ref, tt.only, names, err, tt.groups)
		}
	}
}

// TestDiffs diffs two files, or the two tables of one (a mail with both
// reports), and says what a file of one table lacks.
func TestDiffs(t *testing.T) {
	before, after := filepath.Join("testdata", "seed004-before.txt"), filepath.Join("testdata", "seed004-after.txt")
	two, err := Diffs(context.Background(), []string{before, after}, "", "share", nil)
	if err != nil || len(two) != 1 || two[0].Name != "" {
		t.Fatalf("two files: %v, %v; want one diff without a benchmark name", two, err)
	}
	mail := filepath.Join(t.TempDir(), "mail.txt")
	text := "Without the serie:\n\n" + string(readTestdata(t, "seed004-before.txt")) + "\nWith the serie:\n\n" + string(readTestdata(t, "seed004-after.txt"))
	if err := os.WriteFile(mail, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	one, err := Diffs(context.Background(), []string{mail}, "", "share", nil)
	if err != nil || len(one) != 1 || one[0].A.Name != mail+" (table 1)" || len(one[0].Rows) != len(two[0].Rows) {
		t.Fatalf("one mail: %v, %v; want the diff of its two tables", one, err)
	}
	if _, err := Diffs(context.Background(), []string{before}, "", "share", nil); err == nil || !strings.Contains(err.Error(), "needs exactly two tables") {
		t.Errorf("one table: %v", err)
	}
	if _, err := Diffs(context.Background(), []string{before, after}, "", "size", nil); err == nil || !strings.HasPrefix(err.Error(), "--by: ") {
		t.Errorf("--by size: %v", err)
	}
}

// TestMatch pairs benchmarks by name, and two lone groups whatever their
// names.
func TestMatch(t *testing.T) {
	a, err := FromSet("a", profiled("syscall", "pipe", "kill"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromSet("b", profiled("kill", "syscall"))
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := Match("a", "b", a, b, "share")
	if err != nil || len(diffs) != 2 || diffs[0].Name != "syscall" || diffs[1].Name != "kill" {
		t.Fatalf("Match: %v, %v; want syscall and kill, in A's order", diffs, err)
	}
	// An imported table is named by its file: the pair is unnamed.
	lone := []Group{{Name: "b.txt", Profiles: b[0].Profiles}}
	if diffs, err := Match("a.json", "b.txt", a[:1], lone, "share"); err != nil || len(diffs) != 1 || diffs[0].Name != "" {
		t.Errorf("lone groups: %v, %v; want one unnamed diff", diffs, err)
	}
	if _, err := Match("a", "b", a[1:2], b, "share"); err == nil || !strings.Contains(err.Error(), "no benchmark profiled in both a and b") {
		t.Errorf("nothing in common: %v", err)
	}
}

// TestDiffEach diffs each file with the baseline, leaving out with a
// warning the files it cannot.
func TestDiffEach(t *testing.T) {
	src := sets(map[string]*result.Set{"base": profiled("syscall"), "same": profiled("syscall"), "other": profiled("pipe", "kill")})
	fds, warnings := DiffEach(context.Background(), []string{"base", "same", "missing", "other"}, src)
	if len(fds) != 1 || fds[0].Base != "base" || fds[0].Other != "same" || len(fds[0].Diffs) != 1 {
		t.Errorf("diffs %+v: want same's against base", fds)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0].Error(), "missing") || !strings.Contains(warnings[1].Error(), "no benchmark profiled in both") {
		t.Errorf("warnings %v: want missing's and other's", warnings)
	}
	if fds, warnings := DiffEach(context.Background(), []string{"missing", "same"}, src); fds != nil || len(warnings) != 1 {
		t.Errorf("no baseline: %v, %v; want one warning and nothing diffed", fds, warnings)
	}
}

// TestWritePprofMerges: the profiles of every group in one file, their
// samples added up; one that cannot be converted is left out, named.
func TestWritePprofMerges(t *testing.T) {
	set := profiled("syscall", "pipe")
	set.Benchmarks[1].Profiles = append(set.Benchmarks[1].Profiles, result.Profile{Unavailable: "perf not found"})
	gs, err := FromSet("r.json", set)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	skipped, err := WritePprof(&buf, "r.json", gs)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0].Error(), "pipe: no profile: perf not found") {
		t.Errorf("skipped %v: want pipe's unavailable profile", skipped)
	}
	pp, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range pp.Sample {
		total += s.Value[0]
	}
	if want := int64(100 + 50 + 101 + 50); total != want || len(pp.Sample) != 2 {
		t.Errorf("%d samples in %d stacks, want %d in 2 (the same symbols merged)", total, len(pp.Sample), want)
	}
	buf.Reset()
	none := []Group{{Name: "pipe", Profiles: []*result.Profile{{Unavailable: "perf not found"}}}}
	if _, err := WritePprof(&buf, "r.json", none); err == nil || err.Error() != "r.json: no profile to export" || buf.Len() != 0 {
		t.Errorf("nothing to export: %v, %d bytes written", err, buf.Len())
	}
}
