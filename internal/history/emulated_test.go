package history

import (
	"context"
	"testing"
	"time"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// tcgWarning is the warning kdelta vm records in the sets of boots under
// TCG (vm.TCGWarning).
const tcgWarning = "timings emulated under TCG (qemu without KVM): compare them only with other TCG results; they do not measure the hardware"

// TestEmulatedPoints: a point whose sets (or one of them) were measured
// under TCG is Emulated, from the store (Load) as from sets in memory
// (FromSets); a set that only mentions the warning's words in a label is
// not.
func TestEmulatedPoints(t *testing.T) {
	ctx := context.Background()
	lat := result.Metric{Name: "latency", Unit: "us", Better: result.Lower}
	mk := func(id, kernel string, hour int, emulated bool) *result.Set {
		s := synth{id: id, created: t0.Add(time.Duration(hour) * time.Hour), labels: map[string]string{"kernel": kernel, "note": tcgWarning},
			workload: "pipe", metric: lat, runs: 10, centre: 5, cv: 0.01, seed: uint64(hour + 1)}.set()
		if emulated {
			s.Warnings = []string{tcgWarning}
			if !compare.Emulated(s) {
				t.Fatalf("compare.Emulated does not know kdelta vm's TCG warning %q", tcgWarning)
			}
		}
		return s
	}
	sets := []*result.Set{
		mk("n1", "6.15", 0, false),
		mk("e1", "6.16", 1, true),
		mk("n2", "6.17", 2, false),
		mk("e2", "6.17", 3, true),
	}
	st := newStore(t)
	for _, s := range sets {
		if err := st.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{By: "kernel", Workload: "pipe", ChangePoints: stats.ChangePointOptions{MinMagnitude: 0.05, Alpha: 0.01}}
	stored, err := Load(ctx, st, q)
	if err != nil {
		t.Fatal(err)
	}
	inMemory, err := FromSets(sets, q)
	if err != nil {
		t.Fatal(err)
	}
	for what, hs := range map[string][]*Series{"Load": stored, "FromSets": inMemory} {
		if len(hs) != 1 || len(hs[0].Points) != 3 {
			t.Fatalf("%s: %d series, want one of three points", what, len(hs))
		}
		for i, want := range []bool{false, true, true} {
			if p := hs[0].Points[i]; p.Emulated != want {
				t.Errorf("%s: point %s (sets %v) emulated %v, want %v", what, p.Label, p.Sets, p.Emulated, want)
			}
		}
	}
}
