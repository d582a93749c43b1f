package profile

import (
	"math"
	"sort"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
)

func seed004(t *testing.T) (Side, Side) {
	t.Helper()
	var sides []Side
	for _, f := range []string{"seed004-before.txt", "seed004-after.txt"} {
		ps, err := ParseReport(f, readTestdata(t, f))
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, Side{Name: f, Profiles: ps})
	}
	return sides[0], sides[1]
}

func rowOf(t *testing.T, d *Diff, sym string) Row {
	t.Helper()
	for _, r := range d.Rows {
		if r.Symbol == sym {
			return r
		}
	}
	t.Fatalf("%s not in the diff", sym)
	return Row{}
}

// TestDiffSeed004 is acceptance 2: the diff of seed mail 004's two
// reports, computed from the tables alone.
func TestDiffSeed004(t *testing.T) {
	a, b := seed004(t)
	d, err := Compare(a, b, "share")
	if err != nil {
		t.Fatal(err)
	}
	// The three largest changes of share.
	top := []string{d.Rows[0].Symbol, d.Rows[1].Symbol, d.Rows[2].Symbol}
	sort.Strings(top)
	if want := []string{"__rcu_read_unlock", "__task_pid_nr_ns", "sys_getppid"}; top[0] != want[0] || top[1] != want[1] || top[2] != want[2] {
		t.Errorf("largest changes %v, want %v", top, want)
	}
	for i := 1; i < len(d.Rows); i++ {
		if math.Abs(d.Rows[i].Delta) > math.Abs(d.Rows[i-1].Delta)+1e-9 {
			t.Errorf("row %d (%s, %+.2f) ranks after a smaller change (%s, %+.2f)", i, d.Rows[i].Symbol, d.Rows[i].Delta, d.Rows[i-1].Symbol, d.Rows[i-1].Delta)
		}
	}

	// The samples view: the share fell by half, the samples by 28%, as
	// the total grew by a third.
	r := rowOf(t, d, "__task_pid_nr_ns")
	if r.A.Share != 23.64 || r.B.Share != 12.73 || r.A.Samples != 33275 || r.B.Samples != 23872 {
		t.Errorf("__task_pid_nr_ns: %.2f%% -> %.2f%%, %v -> %v samples; want 23.64%% -> 12.73%%, 33275 -> 23872", r.A.Share, r.B.Share, r.A.Samples, r.B.Samples)
	}
	if got, want := r.SamplesChange, 23872.0/33275-1; math.Abs(got-want) > 1e-12 {
		t.Errorf("samples change %v, want %v", got, want)
	}
	if growth := d.B.Samples/d.A.Samples - 1; growth < 0.32 || growth > 0.34 {
		t.Errorf("total samples grew %.3f, the mail's tables say 33%%", growth)
	}
	// DoSyscall's share fell while its samples rose.
	if r := rowOf(t, d, "DoSyscall"); !(r.Delta < 0 && r.SamplesChange > 0) {
		t.Errorf("DoSyscall: delta %+.2f, samples change %+.3f; want a falling share and rising samples", r.Delta, r.SamplesChange)
	}

	// __rcu_read_lock: 4.01% before, not listed after: below the after
	// table's cut-off, its smallest share.
	lock := rowOf(t, d, "__rcu_read_lock")
	if lock.Mark != MarkBelowB || lock.B.Below != 2.54 || lock.A.Share != 4.01 {
		t.Errorf("__rcu_read_lock: %+v; want marked below the 2.54%% cut-off in B", lock)
	}
	if math.Abs(lock.DeltaLo+4.01) > 1e-9 || math.Abs(lock.DeltaHi-(2.54-4.01)) > 1e-9 || lock.Delta != lock.DeltaHi {
		t.Errorf("__rcu_read_lock change [%v, %v] (%v), want [-4.01, -1.47]", lock.DeltaLo, lock.DeltaHi, lock.Delta)
	}
	if !math.IsNaN(lock.B.Samples) || math.Abs(lock.B.SamplesBelow-0.0254*d.B.Samples) > 1e-6 {
		t.Errorf("__rcu_read_lock samples in B %v (below %v), want unknown, below 2.54%% of the total", lock.B.Samples, lock.B.SamplesBelow)
	}
	// ret_from_syscall is the other way round.
	if r := rowOf(t, d, "ret_from_syscall"); r.Mark != MarkBelowA || r.A.Below != 2.52 {
		t.Errorf("ret_from_syscall: %+v; want marked below the 2.52%% cut-off in A", r)
	}
	if r := rowOf(t, d, "__GI___getppid"); r.Kernel {
		t.Error("__GI___getppid marked kernel")
	}
}

// prof builds a whole (uncut) profile from symbol:share pairs, with
// samples = share × total / 100.
func prof(total int64, ops float64, shares map[string]float64) *result.Profile {
	p := &result.Profile{Event: "cpu-clock", Samples: total, Ops: ops}
	for s, v := range shares {
		p.Symbols = append(p.Symbols, result.ProfileSymbol{Overhead: v, Samples: int64(math.Round(v * float64(total) / 100)), Symbol: s, DSO: "[kernel.kallsyms]", Kernel: true})
	}
	SortSymbols(p.Symbols)
	return p
}

func TestDiffWholeTablesAndSpread(t *testing.T) {
	a := Side{Name: "a", Profiles: []*result.Profile{
		prof(1000, 1e6, map[string]float64{"x": 50, "y": 30, "gone": 20}),
		prof(1000, 1e6, map[string]float64{"x": 52, "y": 28, "gone": 20}),
	}}
	b := Side{Name: "b", Profiles: []*result.Profile{
		// x's share falls while its samples per op rise: the run did
		// twice the samples per op.
		prof(2000, 1e6, map[string]float64{"x": 40, "y": 29, "new": 31}),
		prof(2000, 1e6, map[string]float64{"x": 42, "y": 31, "new": 27}),
	}}
	d, err := Compare(a, b, "share")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sym    string
		mark   string
		spread bool
		delta  float64
	}{
		{"gone", MarkGone, false, -20},
		{"new", MarkNew, false, 29},
		{"x", "", false, -10},
		{"y", "", true, 1},
	} {
		r := rowOf(t, d, tc.sym)
		if r.Mark != tc.mark || r.WithinSpread != tc.spread || math.Abs(r.Delta-tc.delta) > 1e-9 || r.Ranged() {
			t.Errorf("%s: mark %q spread %v delta %v ranged %v; want %q %v %v", tc.sym, r.Mark, r.WithinSpread, r.Delta, r.Ranged(), tc.mark, tc.spread, tc.delta)
		}
	}
	x := rowOf(t, d, "x")
	if x.A.Min != 50 || x.A.Max != 52 || x.B.Min != 40 || x.B.Max != 42 {
		t.Errorf("x ranges %v-%v, %v-%v", x.A.Min, x.A.Max, x.B.Min, x.B.Max)
	}
	if !(x.Delta < 0 && x.PerOpChange > 0.5) {
		t.Errorf("x: delta %v, per-op change %v; want share down, cost per op up", x.Delta, x.PerOpChange)
	}
	// Ordered by samples per op, new leads (0 -> 0.00058/op).
	d, err = Compare(a, b, "per-op")
	if err != nil {
		t.Fatal(err)
	}
	if d.By != "per-op" || d.Rows[0].Symbol != "new" {
		t.Errorf("by %s, first %s; want per-op, new", d.By, d.Rows[0].Symbol)
	}
	if _, err := Compare(a, b, "size"); err == nil {
		t.Error("unknown order accepted")
	}
}

func TestDiffUnavailableSide(t *testing.T) {
	a := Side{Name: "a", Profiles: []*result.Profile{{Unavailable: "perf not found"}}}
	b := Side{Name: "b", Profiles: []*result.Profile{prof(10, 0, map[string]float64{"x": 100})}}
	d, err := Compare(a, b, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 0 || len(d.Warnings) != 1 || d.A.Unavailable[0] != "perf not found" {
		t.Errorf("diff %+v; want no rows and a warning", d)
	}
}
