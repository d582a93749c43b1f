package cli

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kdelta/kdelta/internal/stats"
)

// simRuns draws n runs of a timing with centre level and coefficient of
// variation cv, log-normal.
func simRuns(rng *rand.Rand, n int, level, cv float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * math.Exp(cv*rng.NormFloat64())
	}
	return xs
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
