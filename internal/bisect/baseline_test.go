package bisect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
	"github.com/kdelta/kdelta/internal/workload"
)

// TestBaseline drives kdelta run --until-conclusive's question without a
// command line: which benchmarks are still open against the baseline,
// and the line that says why each stopped.
func TestBaseline(t *testing.T) {
	sp := spec(t, "syscall:calls=1000")
	level := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	bl, err := NewBaseline(set(bench(sp, level...)), "base.json", []workload.Spec{sp})
	if err != nil {
		t.Fatal(err)
	}
	skipped := bench(sp)
	skipped.Skipped = "needs root"
	failed := bench(sp)
	failed.Runs = []*result.Run{{Status: result.StatusFailed, Reason: "exit status 1"}}
	key := "until-conclusive: syscall " + result.FormatParams(sp.Values) + ": "
	tests := []struct {
		name    string
		b       *result.Benchmark
		maxRuns int
		open    bool
		stop    string // a prefix of the stop line, after key
	}{
		{"like the baseline", bench(sp, level...), 20, false, "stopped after 8 runs: ~ (ns/call "},
		{"far slower", bench(sp, scaled(1.5, level)...), 20, false, "stopped after 8 runs: regressed (ns/call +50.0% "},
		{"too few runs", bench(sp, 100, 130), 20, true, "stopped after 2 runs: inconclusive"},
		{"too few runs, at --max-runs", bench(sp, 100, 130), 2, true, "reached --max-runs 2: inconclusive"},
		{"skipped", skipped, 20, false, "stopped after 0 runs: skipped: needs root"},
		{"failed", failed, 20, false, "stopped after 0 runs: no measured values"},
	}
	for _, tt := range tests {
		s := set(tt.b)
		if got := bl.Open(s); !slices.Equal(got, []bool{tt.open}) {
			t.Errorf("%s: Open %v, want [%v]", tt.name, got, tt.open)
		}
		stops := bl.Stops(s, tt.maxRuns)
		if len(stops) != 1 || !strings.HasPrefix(stops[0], key+tt.stop) {
			t.Errorf("%s: Stops %q, want one line starting %q", tt.name, stops, key+tt.stop)
		}
	}
	if w := bl.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}
}

// TestBaselinePairing checks the baseline's pairing: a counterpart by a
// fallback is said once, and a baseline with none of the workloads is an
// error that lists what it holds.
func TestBaselinePairing(t *testing.T) {
	a, b := spec(t, "syscall:calls=1000"), spec(t, "syscall:calls=2000")
	base := set(bench(b, 100, 101, 99, 100, 100))
	if _, err := NewBaseline(base, "base.json", []workload.Spec{spec(t, "pipe")}); err == nil ||
		!strings.Contains(err.Error(), "--baseline base.json: holds none of the workloads run (it has syscall:") {
		t.Errorf("NewBaseline without the workload: %v", err)
	}
	bl, err := NewBaseline(base, "base.json", []workload.Spec{a})
	if err != nil {
		t.Fatal(err)
	}
	s := set(bench(a, 100, 100, 101, 99, 100))
	bl.Open(s)
	bl.Stops(s, 20)
	if w := bl.Warnings(); len(w) != 1 || !strings.Contains(w[0], "(parameters differ)") {
		t.Errorf("warnings %q, want the fallback's once", w)
	}
}

// TestUntilConclusiveErrorRate simulates kdelta run --until-conclusive
// against a baseline of 5 runs: 5 runs first, then one more at a time up
// to 20, stopping at the first conclusive verdict (α 0.05, 1% band), on
// timings at CV 2%.
//
// Stopping on the first significant look is a sequential test, so in an
// A/A comparison it calls improved or regressed more often than a single
// look at 20 runs. The bound asserted, 5%, is α: with the 1% band on top
// of p < α, a single look errs far less often than α, and the sixteen
// looks are strongly correlated (each adds one run to the last). The
// figures are logged; a 5% true change must be found (in the right
// direction) in at least 80% of the trials.
func TestUntilConclusiveErrorRate(t *testing.T) {
	const trials, first, maxRuns, cv = 1000, 5, 20, 0.02
	opt := stats.Options{Alpha: 0.05, Threshold: 0.01}
	run := func(seed uint64, change float64) (stats.Verdict, int) {
		rng := rand.New(rand.NewPCG(seed, 11))
		base := simRuns(rng, first, 100, cv)
		m := simRuns(rng, first, 100*(1+change), cv)
		for {
			c := stats.Compare(base, m, opt)
			if conclusive(c) || len(m) >= maxRuns {
				return c.Verdict, len(m)
			}
			m = append(m, simRuns(rng, 1, 100*(1+change), cv)...)
		}
	}
	count := func(change float64) (map[stats.Verdict]int, float64) {
		n := map[stats.Verdict]int{}
		runs := 0
		for seed := range uint64(trials) {
			v, r := run(seed, change)
			n[v]++
			runs += r
		}
		return n, float64(runs) / trials
	}
	aa, aaRuns := count(0)
	wrong := aa[stats.Improved] + aa[stats.Regressed]
	t.Logf("A/A, %d trials: improved %d, regressed %d, ~ %d, inconclusive at %d runs %d; mean runs %.1f",
		trials, aa[stats.Improved], aa[stats.Regressed], aa[stats.NoChange], maxRuns, aa[stats.Inconclusive], aaRuns)
	if rate := float64(wrong) / trials; rate > 0.05 {
		t.Errorf("A/A: %d false verdicts in %d trials (%.3f), want at most 0.05", wrong, trials, rate)
	}
	slow, slowRuns := count(0.05)
	t.Logf("5%% slower, %d trials: regressed %d, improved %d, ~ %d, inconclusive %d; mean runs %.1f",
		trials, slow[stats.Regressed], slow[stats.Improved], slow[stats.NoChange], slow[stats.Inconclusive], slowRuns)
	if slow[stats.Improved] > 0 || float64(slow[stats.Regressed])/trials < 0.8 {
		t.Errorf("5%% slower: regressed in %d of %d trials, improved in %d; want at least 80%% and none", slow[stats.Regressed], trials, slow[stats.Improved])
	}
}
