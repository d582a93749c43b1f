package history

import (
	"fmt"
	mrand "math/rand/v2"
	"testing"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// bootedSet is a build measured over boots: sessions sessions of runs
// runs each, a session's centre centre × (1 + sessionCV·N(0,1)) and its
// runs around it at runCV, as kdelta series' boots bring them home.
func bootedSet(id, kernel string, sessions, runs int, centre, sessionCV, runCV float64, seed uint64) *result.Set {
	rng := mrand.New(mrand.NewPCG(seed, 0x73657269))
	m := result.Metric{Name: "latency", Unit: "ms", Better: result.Lower}
	b := &result.Benchmark{Workload: "rcu", Params: map[string]string{"calls": "10"}, Metrics: []result.Metric{m}}
	for s := range sessions {
		c := centre * (1 + sessionCV*rng.NormFloat64())
		for r := range runs {
			b.Runs = append(b.Runs, &result.Run{Index: s*runs + r, Start: t0, Status: result.StatusOK, Session: fmt.Sprintf("%s boot %d", id, s),
				Values: map[string]float64{m.Name: c * (1 + runCV*rng.NormFloat64())}})
		}
	}
	return &result.Set{Schema: result.Schema, ID: id, Created: t0, Labels: map[string]string{"kernel": kernel}, Benchmarks: []*result.Benchmark{b}, Complete: true}
}

// TestNeighbours checks the places a series may step against what kdelta
// compare would say of each pair of neighbouring builds: a doubling
// measured over four boots a side is clear (regressed, where the change
// points put the step); two builds alike within a session noise of 2% are
// not (four boots cannot bound the change within the 1% band); builds
// alike measured over boots whose centres agree to 0.1% are clear (~);
// and with one boot a side nothing is clear, the doubling included, as
// two boots differ by their own state.
func TestNeighbours(t *testing.T) {
	series := func(sets []*result.Set) *Series {
		t.Helper()
		hs, err := Across(sets, "kernel", stats.ChangePointOptions{MinMagnitude: 0.05, Alpha: 0.01})
		if err != nil || len(hs) != 1 {
			t.Fatalf("Across: %d series, %v", len(hs), err)
		}
		return hs[0]
	}
	sets := []*result.Set{
		bootedSet("a", "6.1", 4, 5, 100, 0.02, 0.01, 1),
		bootedSet("c", "6.3", 4, 5, 200, 0.02, 0.01, 3),
		bootedSet("b", "6.2", 4, 5, 100, 0.02, 0.01, 2),
	}
	ns := series(sets).Neighbours(sets, compare.Options{})
	if len(ns) != 2 || ns[0].Before != "6.1" || ns[0].After != "6.2" || ns[1].Before != "6.2" || ns[1].After != "6.3" {
		t.Fatalf("neighbours %+v, want 6.1-6.2 and 6.2-6.3", ns)
	}
	if n := ns[1]; !n.Question(0).Settled() || n.Comparison.Verdict != stats.Regressed || n.Step == nil || n.Comparison.Design.Sessions != [2]int{4, 4} {
		t.Errorf("6.2 -> 6.3, doubled: clear %v, verdict %s, step %v, sessions %v; want clear, regressed, the change point, 4 boots a side",
			n.Question(0).Settled(), n.Comparison.Verdict, n.Step, n.Comparison.Design.Sessions)
	}
	if n := ns[0]; n.Question(0).Settled() || n.Comparison.Verdict != stats.Inconclusive || n.Step != nil {
		t.Errorf("6.1 -> 6.2, alike at 2%% session noise: clear %v, verdict %s (%+.3f %v), step %v; want unclear, inconclusive, no change point",
			n.Question(0).Settled(), n.Comparison.Verdict, n.Comparison.Change, n.Comparison.CI, n.Step)
	}

	quiet := []*result.Set{
		bootedSet("a", "6.1", 4, 5, 100, 0.001, 0.001, 4),
		bootedSet("b", "6.2", 4, 5, 100, 0.001, 0.001, 5),
	}
	if n := series(quiet).Neighbours(quiet, compare.Options{})[0]; !n.Question(0).Settled() || n.Comparison.Verdict != stats.NoChange {
		t.Errorf("alike at 0.1%% noise: clear %v, verdict %s; want clear, ~", n.Question(0).Settled(), n.Comparison.Verdict)
	}

	once := []*result.Set{
		bootedSet("a", "6.1", 1, 10, 100, 0.02, 0.01, 6),
		bootedSet("b", "6.2", 1, 10, 200, 0.02, 0.01, 7),
	}
	// One boot a side: the prior session noise stands in for the
	// host's, and a doubling is clear under it.
	if n := series(once).Neighbours(once, compare.Options{})[0]; !n.Question(0).Settled() || n.Comparison.Verdict != stats.Regressed || n.Comparison.Design.Noise.Source != stats.NoisePrior {
		t.Errorf("one boot a side, doubled: clear %v, verdict %s, noise %+v; want clear, regressed under the prior", n.Question(0).Settled(), n.Comparison.Verdict, n.Comparison.Design.Noise)
	}

	// A change point between neighbours that are ~ is a step not settled.
	step := &stats.ChangePoint{Index: 1, Change: 0.06}
	same := stats.Comparison{A: stats.Summary{N: 5}, Verdict: stats.NoChange}
	if (Neighbour{Step: step, Comparison: same}).Question(0).Settled() || !(Neighbour{Comparison: same}).Question(0).Settled() {
		t.Error("~ between neighbours: want unclear where a change point is, clear where none is")
	}
	if (Neighbour{Why: "no runs"}).Question(0).Settled() {
		t.Error("neighbours not compared: want unclear")
	}
}
