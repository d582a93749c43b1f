package vm

import (
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// TestUntilAgreesWithComparison checks that kdelta vm's --until-conclusive
// rule and the comparison it prints at the end judge the same boots
// alike, with and without the host's session noise. A change of −21% over
// two boots each is improved by the boots' own spread, and inconclusive
// once a host's measured session noise of 15% is pooled with it (as
// kdelta compare of the same sets does): the rule used to stop there
// saying "clear: improved" while the comparison printed below it, and
// kdelta compare, said inconclusive.
func TestUntilAgreesWithComparison(t *testing.T) {
	host := func(*result.Set, *result.Benchmark, string) stats.SessionNoise {
		return stats.SessionNoise{SD: 0.15, MeanSD: 0.15, DF: 19, Source: stats.NoiseMeasured}
	}
	sets := untilSets(2, 17, 13)
	// The data are those of the old disagreement: without the host's
	// noise (all the rule asked with) the verdict is improved, with it
	// inconclusive.
	first := func(r *compare.Result) stats.Comparison {
		for _, row := range r.Rows {
			if row.Primary {
				return row.Vs[0]
			}
		}
		t.Fatal("no primary row")
		return stats.Comparison{}
	}
	without, err := Compare(sets, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	with, err := compare.Compare([]compare.Input{{Name: "A", Set: sets[0]}, {Name: "B", Set: sets[1]}}, compare.Options{Noise: host})
	if err != nil {
		t.Fatal(err)
	}
	if first(without).Verdict != stats.Improved || first(with).Verdict != stats.Inconclusive {
		t.Fatalf("the data do not separate the two: %s without the host's noise, %s with it", first(without).Verdict, first(with).Verdict)
	}

	tests := []struct {
		name  string
		noise func(*result.Set, *result.Benchmark, string) stats.SessionNoise
		want  stats.Verdict
		clear bool // the stop's: clear after 2 boots each, or unclear
	}{
		{"the host's session noise", host, stats.Inconclusive, false},
		{"none known", nil, stats.Improved, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &Until{On: true, MaxBoots: 4, Noise: tt.noise}
			x := untilOf(sets, 2, 4)
			x.u, x.questions = u, versusFirst(u.CompareOptions())
			// What kdelta vm prints at the end (cli: vm.Compare under
			// Until.CompareOptions), and kdelta compare of the same sets.
			printed, err := Compare(sets, u.CompareOptions())
			if err != nil {
				t.Fatal(err)
			}
			c := first(printed)
			if c.Verdict != tt.want {
				t.Fatalf("printed verdict %s, want %s", c.Verdict, tt.want)
			}
			qs := x.questions(sets)
			if len(qs) != 1 {
				t.Fatalf("%d questions, want 1", len(qs))
			}
			q := qs[0]
			if q.Comparison.Verdict != c.Verdict || q.Comparison.Change != c.Change || q.Comparison.CI != c.CI {
				t.Errorf("the rule's verdict %s %+.4f %v, the printed one %s %+.4f %v", q.Comparison.Verdict, q.Comparison.Change, q.Comparison.CI, c.Verdict, c.Change, c.CI)
			}
			conclusive := c.Verdict != stats.Inconclusive
			if q.Settled() != conclusive {
				t.Errorf("settled %v, but the printed verdict is %s", q.Settled(), c.Verdict)
			}
			open := x.open(sets)
			if open[0][0] == conclusive || open[1][0] == conclusive {
				t.Errorf("boot again %v, but the printed verdict is %s", open, c.Verdict)
			}
			stops := x.stops(sets)
			// The stop (report.BootStops words it) holds the printed
			// change and interval, between A and B after 2 boots each.
			if len(stops) != 1 {
				t.Fatalf("%d stops, want 1: %+v", len(stops), stops)
			}
			s := stops[0]
			if s.Clear != tt.clear || s.Before != "A" || s.After != "B" || s.Boots != [2]int{2, 2} || s.Comparison.Change != c.Change || s.Comparison.CI != c.CI {
				t.Errorf("stop %+v, want clear %v between A and B after 2 boots each with the printed %+.4f %v", s, tt.clear, c.Change, c.CI)
			}
		})
	}
}
