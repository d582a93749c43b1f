package cli

import (
	"math"
	"math/rand/v2"
	"strings"
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

// TestBisectDecisionRates simulates bisect-run's rule on timings at CV 2%:
// a good set of 5 runs (and a bad set of 5 runs 30% slower), measured
// runs 5 at a time up to 20, the default α 0.05 and 5% band.
//
// Without a bad set, an unchanged commit must not be called bad and a
// commit 30% slower must not be called good: either error sends git bisect
// the wrong way for the rest of the search. Both need p < α and an
// interval wholly on the wrong side of a band at least 5% wide, at two and
// a half standard errors of a 5-run mean at CV 2% from the truth, so the
// bound asserted is 1% and the figures are logged. A commit at the good
// level with a 1%..4% change must come out good or skip, never bad. With a
// bad set, the commits at either level must be called right, and one
// exactly halfway is logged (either answer is right for it).
func TestBisectDecisionRates(t *testing.T) {
	const trials, batch, maxRuns, cv = 1000, 5, 20, 0.02
	opt := stats.Options{Alpha: 0.05, Threshold: 0.05}
	simulate := func(seed uint64, level float64, withBad bool) string {
		rng := rand.New(rand.NewPCG(seed, 13))
		good := simRuns(rng, batch, 100, cv)
		var step *stats.Comparison
		if withBad {
			s := stats.Compare(good, simRuns(rng, batch, 130, cv), opt)
			if s.Verdict == stats.Regressed {
				step = &s
			}
		}
		var m []float64
		for {
			m = append(m, simRuns(rng, batch, level, cv)...)
			d, _ := decideBisect(stats.Compare(good, m, opt), step, stats.LowerIsBetter)
			if d != "" {
				return d
			}
			if len(m) >= maxRuns {
				return decSkip
			}
		}
	}
	tests := []struct {
		name    string
		level   float64
		withBad bool
		wrong   string // the answer that sends the bisection astray
	}{
		{"unchanged, good only", 100, false, decBad},
		{"3% slower, good only", 103, false, decBad},
		{"30% slower, good only", 130, false, decGood},
		{"unchanged, good and bad", 100, true, decBad},
		{"30% slower, good and bad", 130, true, decGood},
		{"halfway, good and bad", 100 * math.Sqrt(1.3), true, ""},
	}
	for _, tt := range tests {
		n := map[string]int{}
		for seed := range uint64(trials) {
			n[simulate(seed, tt.level, tt.withBad)]++
		}
		t.Logf("%s: good %d, bad %d, skip %d of %d", tt.name, n[decGood], n[decBad], n[decSkip], trials)
		if tt.wrong != "" && float64(n[tt.wrong])/trials > 0.01 {
			t.Errorf("%s: %s in %d of %d trials, want at most 1%%", tt.name, tt.wrong, n[tt.wrong], trials)
		}
	}
}

// TestDecideBisect checks the rule's reasons on fixed comparisons, for
// both directions of a metric.
func TestDecideBisect(t *testing.T) {
	cmp := func(v stats.Verdict, change, lo, hi float64) stats.Comparison {
		return stats.Comparison{Verdict: v, Change: change, CI: [2]float64{lo, hi}, Options: stats.Options{Threshold: 0.05}}
	}
	stepUp := cmp(stats.Regressed, 1, 0.9, 1.1)          // time doubled
	stepDown := cmp(stats.Regressed, -0.5, -0.55, -0.45) // rate halved
	tests := []struct {
		name         string
		vs           stats.Comparison
		step         *stats.Comparison
		better       string
		want, reason string
	}{
		{"regressed", cmp(stats.Regressed, 0.2, 0.1, 0.3), nil, stats.LowerIsBetter, decBad, "regressed from good beyond ±5.0%"},
		{"no change", cmp(stats.NoChange, 0, -0.01, 0.01), nil, stats.LowerIsBetter, decGood, "within ±5.0% of good"},
		{"improved", cmp(stats.Improved, -0.2, -0.3, -0.1), nil, stats.LowerIsBetter, decGood, "improved on good"},
		{"inconclusive", cmp(stats.Inconclusive, 0.04, -0.02, 0.1), nil, stats.LowerIsBetter, "", "inconclusive against good"},
		{"time near good", cmp(stats.Inconclusive, 0.1, 0, 0.3), &stepUp, stats.LowerIsBetter, decGood, "closer to good: the interval is on good's side of the midpoint +41.4% of the step to bad (+100%)"},
		{"time near bad", cmp(stats.Regressed, 0.9, 0.5, 1.2), &stepUp, stats.LowerIsBetter, decBad, "closer to bad"},
		{"time halfway", cmp(stats.Regressed, 0.4, 0.3, 0.5), &stepUp, stats.LowerIsBetter, "", "the interval straddles the midpoint"},
		{"rate near good", cmp(stats.Inconclusive, -0.1, -0.2, 0.05), &stepDown, stats.HigherIsBetter, decGood, "midpoint -29.3% of the step to bad (-50.0%)"},
		{"rate near bad", cmp(stats.Regressed, -0.45, -0.5, -0.4), &stepDown, stats.HigherIsBetter, decBad, "closer to bad"},
		{"unbounded", cmp(stats.Inconclusive, 0.1, -1, math.Inf(1)), &stepUp, stats.LowerIsBetter, "", "interval unbounded"},
	}
	for _, tt := range tests {
		d, why := decideBisect(tt.vs, tt.step, tt.better)
		if d != tt.want || !strings.Contains(why, tt.reason) {
			t.Errorf("%s: %q, %q; want %q, containing %q", tt.name, d, why, tt.want, tt.reason)
		}
	}
}
