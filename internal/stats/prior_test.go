package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The priors of compare (PriorBareMetal, PriorVirtual): stats cannot
// import compare, and compare's TestPriorFigures holds them equal.
var simPriors = []float64{0.03, 0.10}

// priorTrial compares one session of n runs a side (or 1 against 3, as
// a baseline against a set of three sessions), b scaled by factor, under
// the assumed noise prior.
func priorTrial(rng *rand.Rand, h host, kb, n int, factor, prior float64) Comparison {
	return CompareSessions(h.sessions(rng, 1, n, 1), h.sessions(rng, kb, n, factor), Assumed(prior, NoisePrior, "a simulated machine"), Options{})
}

// TestPriorClaimRates is acceptance 4 of issue 34. Under each prior, on
// hosts whose true session noise is at or below it (0, half, all of
// it), run CV 1–10% and every shape of run noise, one session a side of
// 8 runs and one against three: the rate of claims of A/A comparisons
// stays within α + 3σ of the binomial band in every cell, and the
// interval of a true +5% change covers it in at least 94% of the trials
// over the cells where the prior holds exactly (true noise = prior). At
// twice the prior it prints the claim rate, the price of a wrong prior,
// which the README states, and checks it against the rate the normal
// model predicts for it, so that a change of the model shows.
func TestPriorClaimRates(t *testing.T) {
	trials := 600
	if testing.Short() {
		trials = 200
	}
	const alpha = 0.05
	_, hi := binomialBand(alpha, trials)
	var log strings.Builder
	for pi, prior := range simPriors {
		for _, kb := range []int{1, 3} {
			var covered, total int
			for fi, frac := range []float64{0, 0.5, 1} {
				for ri, rcv := range []float64{0.01, 0.05, 0.10} {
					for si, sh := range shapes {
						h := host{frac * prior, rcv, sh}
						rng := rand.New(rand.NewPCG(3400+uint64(pi*10+kb), uint64(fi*100+ri*10+si)))
						var claimed, cov int
						for range trials {
							c := priorTrial(rng, h, kb, 8, 1, prior)
							if c.Verdict == Improved || c.Verdict == Regressed {
								claimed++
							}
							c = priorTrial(rng, h, kb, 8, 1.05, prior)
							if c.CI[0] <= 0.05 && 0.05 <= c.CI[1] {
								cov++
							}
						}
						if claims := float64(claimed) / float64(trials); claims > hi {
							t.Errorf("prior ±%.0f%%, 1 vs %d sessions, %+v: claim rate %.4f, want ≤ %.4f", 100*prior, kb, h, claims, hi)
						}
						if frac == 1 {
							covered += cov
							total += trials
						}
					}
				}
			}
			cover := float64(covered) / float64(total)
			fmt.Fprintf(&log, "\nprior ±%.0f%%, 1 vs %d sessions of 8 runs: coverage of +5%% where the prior holds %.4f", 100*prior, kb, cover)
			if cover < 0.94 {
				t.Errorf("prior ±%.0f%%, 1 vs %d sessions: coverage %.4f where the prior holds, want ≥ 0.94", 100*prior, kb, cover)
			}
		}
		// The price of a wrong prior: the true noise twice the prior,
		// one session of 8 runs a side at a run CV of 1%, normal. The
		// normal model's rate is P(|Z| > (z·√(2p² + r) + log 1.01)/√(2(2p)² + r)),
		// r the run term 2·CV²/n: the interval wholly beyond the 1%
		// threshold.
		h := host{2 * prior, 0.01, "normal"}
		rng := rand.New(rand.NewPCG(3500, uint64(pi)))
		claimed := 0
		for range trials {
			if c := priorTrial(rng, h, 1, 8, 1, prior); c.Verdict == Improved || c.Verdict == Regressed {
				claimed++
			}
		}
		rate := float64(claimed) / float64(trials)
		r := 2 * 0.01 * 0.01 / 8
		want := 2 * (1 - normalCDF((1.96*math.Sqrt(2*prior*prior+r)+math.Log(1.01))/math.Sqrt(8*prior*prior+r)))
		sigma := math.Sqrt(want * (1 - want) / float64(trials))
		fmt.Fprintf(&log, "\nprior ±%.0f%%, true session noise ±%.0f%% (twice the prior): A/A claim rate %.3f (normal model %.3f)", 100*prior, 200*prior, rate, want)
		if math.Abs(rate-want) > 3*sigma+0.01 {
			t.Errorf("prior ±%.0f%% at twice the noise: claim rate %.3f, the model's %.3f ± %.3f", 100*prior, rate, want, 3*sigma)
		}
	}
	t.Log(log.String())
}

// TestPriorIndependent checks --session-noise 0: one session a side
// judged as independent runs, as benchstat judges them, which claims
// the A/A differences of sessions that a prior does not.
func TestPriorIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3600, 1))
	h := host{0.05, 0.01, "normal"}
	var indep, prior int
	const trials = 300
	for range trials {
		a, b := h.sessions(rng, 1, 8, 1), h.sessions(rng, 1, 8, 1)
		c := CompareSessions(a, b, Assumed(0, NoiseGiven, ""), Options{})
		if c.Verdict == Improved || c.Verdict == Regressed {
			indep++
		}
		if c.Design.Noise.Assumption() != "runs judged as independent (--session-noise 0): no session noise" {
			t.Fatalf("design %+v says %q", c.Design, c.Design.Noise.Assumption())
		}
		if c := CompareSessions(a, b, Assumed(0.10, NoisePrior, "x"), Options{}); c.Verdict == Improved || c.Verdict == Regressed {
			prior++
		}
	}
	t.Logf("session noise ±5%%, run CV 1%%: A/A claims %d/%d as independent runs, %d/%d under a ±10%% prior", indep, trials, prior, trials)
	if indep < trials/2 || prior > trials/10 {
		t.Errorf("A/A claims %d/%d independent, %d/%d under the prior", indep, trials, prior, trials)
	}
}
