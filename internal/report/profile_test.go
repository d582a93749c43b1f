package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kdelta/kdelta/internal/golden"

	"github.com/kdelta/kdelta/internal/profile"
	"github.com/kdelta/kdelta/internal/result"
)

// seed004 reads the two perf report tables of seed mail 004, typed into
// the profile package's testdata.
func seed004(t *testing.T) (profile.Side, profile.Side) {
	t.Helper()
	var sides []profile.Side
	for _, f := range []string{"seed004-before.txt", "seed004-after.txt"} {
		gs, err := profile.Load(context.Background(), filepath.Join("..", "profile", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, profile.Side{Name: f, Profiles: gs[0].Profiles})
	}
	return sides[0], sides[1]
}

// runs builds profiles of repeated runs: symbol shares per run, samples
// and operations known.
func runs(total int64, ops float64, shares ...map[string]float64) []*result.Profile {
	var ps []*result.Profile
	for _, sh := range shares {
		p := &result.Profile{Source: "perf record", Event: "cpu-clock", Samples: total, Ops: ops}
		for _, s := range []string{"do_syscall_64", "__task_pid_nr_ns", "RawSyscallNoError", "x64_sys_call"} {
			if v, ok := sh[s]; ok {
				p.Symbols = append(p.Symbols, result.ProfileSymbol{Overhead: v, Samples: int64(v * float64(total) / 100),
					Command: "kdelta", DSO: "[kernel.kallsyms]", Symbol: s, Kernel: s != "RawSyscallNoError"})
			}
		}
		profile.SortSymbols(p.Symbols)
		ps = append(ps, p)
	}
	return ps
}

func spreadSides() (profile.Side, profile.Side) {
	a := profile.Side{Name: "a.json", Profiles: runs(1000, 2e6,
		map[string]float64{"do_syscall_64": 40, "__task_pid_nr_ns": 10, "RawSyscallNoError": 45, "x64_sys_call": 5},
		map[string]float64{"do_syscall_64": 42, "__task_pid_nr_ns": 9, "RawSyscallNoError": 44, "x64_sys_call": 5})}
	b := profile.Side{Name: "b.json", Profiles: runs(1300, 2e6,
		map[string]float64{"do_syscall_64": 38, "__task_pid_nr_ns": 17, "RawSyscallNoError": 45},
		map[string]float64{"do_syscall_64": 41, "__task_pid_nr_ns": 16, "RawSyscallNoError": 43})}
	return a, b
}

func TestProfileDiffGolden(t *testing.T) {
	a, b := seed004(t)
	seed, err := profile.Compare(a, b, "share")
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := spreadSides()
	spread, err := profile.Compare(sa, sb, "per-op")
	if err != nil {
		t.Fatal(err)
	}
	spread.Name = "syscall:calls=2000000"
	for _, tc := range []struct {
		name string
		d    *profile.Diff
	}{{"seed004", seed}, {"spread", spread}} {
		for _, f := range ProfileFormats {
			var buf bytes.Buffer
			if err := WriteProfileDiffs(&buf, []*profile.Diff{tc.d}, f, 0); err != nil {
				t.Fatal(err)
			}
			switch f {
			case "json":
				var v any
				if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
					t.Errorf("%s json: %v", tc.name, err)
				}
			case "csv":
				if _, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll(); err != nil {
					t.Errorf("%s csv: %v", tc.name, err)
				}
			}
			golden.Check(t, filepath.Join("profile", "diff-"+tc.name+"."+f), buf.Bytes())
		}
	}
}

func TestProfileShowGolden(t *testing.T) {
	a, _ := seed004(t)
	sa, _ := spreadSides()
	groups := []profile.Group{
		{Name: "seed004-before.txt", Profiles: a.Profiles},
		{Name: "syscall:calls=2000000", Profiles: append(sa.Profiles, &result.Profile{Source: "perf record", Unavailable: "profiled run timeout: timed out after 1m0s"})},
	}
	for _, f := range ProfileFormats {
		var buf bytes.Buffer
		if err := WriteProfiles(&buf, groups, f, 5); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("profile", "show."+f), buf.Bytes())
	}
	if err := WriteProfiles(&bytes.Buffer{}, groups, "html", 5); err == nil {
		t.Error("unknown format accepted")
	}
}
