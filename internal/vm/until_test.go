package vm

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// untilSets are the sets of variants booted boots times each, as
// MergeBoot gathers them: variant i's runs of rcu have a centre of
// centres[i] ms, each boot its own offset (sd 3%) and each run its own
// noise (sd 5%), from a fixed seed.
func untilSets(boots int, centres ...float64) []*result.Set {
	rng := rand.New(rand.NewSource(1))
	sets := make([]*result.Set, len(centres))
	for vi, c := range centres {
		for bi := range boots {
			off := 1 + 0.03*rng.NormFloat64()
			b := &result.Benchmark{Workload: "rcu", Params: map[string]string{"calls": "20"},
				Metrics: []result.Metric{{Name: "mean", Unit: "ms", Better: result.Lower}}}
			for ri := range 5 {
				b.Runs = append(b.Runs, &result.Run{Index: ri, Status: result.StatusOK,
					Values: map[string]float64{"mean": c * off * (1 + 0.05*rng.NormFloat64())}})
			}
			got := &result.Set{Schema: result.Schema, ID: fmt.Sprintf("set-%d", vi), Complete: true,
				Labels: map[string]string{"variant": variantName(vi)}, Benchmarks: []*result.Benchmark{b}}
			sets[vi] = MergeBoot(sets[vi], got, bi)
		}
	}
	return sets
}

// untilOf is kdelta vm's --until-conclusive over sets booted boots
// times each, as it asks its question between two batches.
func untilOf(sets []*result.Set, boots, maxBoots int) *untilBoots {
	s := &session{opt: &Options{}, sets: sets, boots: make([]int, len(sets))}
	for i := range s.boots {
		s.boots[i] = boots
	}
	return &untilBoots{s: s, u: &Until{On: true, MaxBoots: maxBoots}, questions: versusFirst(compare.Options{})}
}

// TestUntilVersusFirst checks kdelta vm's question between batches:
// which variants boot again, and the stop lines. One boot each settles
// a change of 99% under the prior session noise (no calibration here);
// two boots each, over their own spread; the same kernel twice stays open until --max-boots, which the
// stop line names.
func TestUntilVersusFirst(t *testing.T) {
	tests := []struct {
		name            string
		boots, maxBoots int
		centres         []float64
		open            []bool   // by variant
		stops           []string // what each stop line holds
	}{
		// One boot each is judged under the prior session noise, but a
		// question needs MinBoots boots a side to be clear.
		{"one boot each", 1, 4, []float64{17, 0.05}, []bool{true, true},
			[]string{"until-conclusive: rcu calls=20: A -> B: unclear after 1 boot each: improved (-99.7%"}},
		{"two boots each", 2, 4, []float64{17, 0.05}, []bool{false, false},
			[]string{"until-conclusive: rcu calls=20: A -> B: clear after 2 boots each: improved (-99.7%"}},
		{"the same kernel", 2, 2, []float64{17, 17}, []bool{true, true},
			[]string{"until-conclusive: rcu calls=20: A -> B: reached --max-boots 2: inconclusive ("}},
		// C against A is open, B against A is not: A and C boot again.
		{"three variants", 2, 4, []float64{17, 0.05, 17}, []bool{true, false, true},
			[]string{"A -> B: clear after 2 boots each: improved", "A -> C: unclear after 2 boots each: inconclusive ("}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sets := untilSets(tt.boots, tt.centres...)
			x := untilOf(sets, tt.boots, tt.maxBoots)
			var open []bool
			for _, o := range x.open(sets) {
				open = append(open, o[0])
			}
			if !reflect.DeepEqual(open, tt.open) {
				t.Errorf("open %v, want %v", open, tt.open)
			}
			stops := BootStopLines(x.stops(sets))
			if len(stops) != len(tt.stops) {
				t.Fatalf("stops %q, want %d lines", stops, len(tt.stops))
			}
			for i, want := range tt.stops {
				if !strings.Contains(stops[i], want) {
					t.Errorf("stop %q, want %q in it", stops[i], want)
				}
			}
		})
	}
}

// TestUntilCheck checks the flags of --until-conclusive, each wrong one
// named.
func TestUntilCheck(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(f string) bool { return strings.Contains(" "+strings.Join(names, " ")+" ", " "+f+" ") }
	}
	tests := []struct {
		u               Until
		boots, variants int
		given           func(string) bool
		want            string // "" for none
	}{
		{Until{}, 1, 1, nil, ""},
		{Until{}, 1, 2, given("max-boots"), "--max-boots: only with --until-conclusive"},
		{Until{}, 1, 2, given("alpha"), "--alpha: only with --until-conclusive"},
		{Until{On: true, MaxBoots: 2}, 2, 2, nil, ""},
		{Until{On: true, MaxBoots: 10}, 1, 0, nil, ""}, // a job file's variants, not known yet
		{Until{On: true, MaxBoots: 1}, 1, 2, nil, "--max-boots: 1 can never be conclusive"},
		{Until{On: true, MaxBoots: 3}, 4, 2, nil, "--max-boots: 3 is fewer than --boots 4"},
		{Until{On: true, MaxBoots: 3, Compare: stats.Options{Alpha: 1.5}}, 1, 2, nil, "--alpha: alpha 1.5 is not in (0, 1)"},
		{Until{On: true, MaxBoots: 3}, 1, 1, nil, "--until-conclusive: one variant"},
	}
	for _, tt := range tests {
		err := tt.u.check(tt.boots, tt.variants, tt.given)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v, %d boots, %d variants: %v", tt.u, tt.boots, tt.variants, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%+v, %d boots, %d variants: %v, want %q", tt.u, tt.boots, tt.variants, err, tt.want)
		}
	}
}
