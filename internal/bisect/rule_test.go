package bisect

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// The metrics of the rule's tests: a time, and a rate.
var (
	timeMetric = result.Metric{Name: "time", Unit: "s", Better: result.Lower}
	rateMetric = result.Metric{Name: "rate", Unit: "ops/s", Better: result.Higher}
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
			d, _ := decide(stats.Compare(good, m, opt), step, timeMetric)
			if d != "" {
				return d
			}
			if len(m) >= maxRuns {
				return Skip
			}
		}
	}
	tests := []struct {
		name    string
		level   float64
		withBad bool
		wrong   string // the answer that sends the bisection astray
	}{
		{"unchanged, good only", 100, false, Bad},
		{"3% slower, good only", 103, false, Bad},
		{"30% slower, good only", 130, false, Good},
		{"unchanged, good and bad", 100, true, Bad},
		{"30% slower, good and bad", 130, true, Good},
		{"halfway, good and bad", 100 * math.Sqrt(1.3), true, ""},
	}
	for _, tt := range tests {
		n := map[string]int{}
		for seed := range uint64(trials) {
			n[simulate(seed, tt.level, tt.withBad)]++
		}
		t.Logf("%s: good %d, bad %d, skip %d of %d", tt.name, n[Good], n[Bad], n[Skip], trials)
		if tt.wrong != "" && float64(n[tt.wrong])/trials > 0.01 {
			t.Errorf("%s: %s in %d of %d trials, want at most 1%%", tt.name, tt.wrong, n[tt.wrong], trials)
		}
	}
}

// TestDecideBisect checks the rule's reasons on fixed comparisons, for
// both directions of a metric and for a metric without one.
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
		metric       result.Metric
		want, reason string
	}{
		{"regressed", cmp(stats.Regressed, 0.2, 0.1, 0.3), nil, timeMetric, Bad, "regressed from good beyond ±5.0%"},
		{"no change", cmp(stats.NoChange, 0, -0.01, 0.01), nil, timeMetric, Good, "within ±5.0% of good"},
		{"improved", cmp(stats.Improved, -0.2, -0.3, -0.1), nil, timeMetric, Good, "improved on good"},
		{"inconclusive", cmp(stats.Inconclusive, 0.04, -0.02, 0.1), nil, timeMetric, "", "inconclusive against good"},
		{"time near good", cmp(stats.Inconclusive, 0.1, 0, 0.3), &stepUp, timeMetric, Good, "closer to good: the interval is on good's side of the midpoint +41.4% of the step to bad (+100%)"},
		{"time near bad", cmp(stats.Regressed, 0.9, 0.5, 1.2), &stepUp, timeMetric, Bad, "closer to bad"},
		{"time halfway", cmp(stats.Regressed, 0.4, 0.3, 0.5), &stepUp, timeMetric, "", "the interval straddles the midpoint"},
		{"rate near good", cmp(stats.Inconclusive, -0.1, -0.2, 0.05), &stepDown, rateMetric, Good, "midpoint -29.3% of the step to bad (-50.0%)"},
		{"rate near bad", cmp(stats.Regressed, -0.45, -0.5, -0.4), &stepDown, rateMetric, Bad, "closer to bad"},
		{"unbounded", cmp(stats.Inconclusive, 0.1, -1, math.Inf(1)), &stepUp, timeMetric, "", "interval unbounded"},
		// No direction is lower is better, as in every comparison.
		{"no direction near good", cmp(stats.Inconclusive, 0.1, 0, 0.3), &stepUp, result.Metric{Name: "value"}, Good, "midpoint +41.4% of the step to bad (+100%)"},
		{"no direction near bad", cmp(stats.Regressed, 0.9, 0.5, 1.2), &stepUp, result.Metric{Name: "value"}, Bad, "closer to bad"},
	}
	for _, tt := range tests {
		d, r := decide(tt.vs, tt.step, tt.metric)
		e := Evidence{VsGood: tt.vs, Step: tt.step, Reason: r}
		if tt.step != nil {
			e.Midpoint = midpoint(*tt.step)
		}
		why := WhyOf(e)
		if d != tt.want || !strings.Contains(why, tt.reason) {
			t.Errorf("%s: %q, %q; want %q, containing %q", tt.name, d, why, tt.want, tt.reason)
		}
	}
}
