package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOwnNoiseSimulated: the session noise that two sides of several
// sessions show (Design.Own) estimates the true one. Fixed seed: 4000
// comparisons of 3 sessions × 4 runs a side, log-normal runs with a run
// noise of 2% and a session noise of 5%, the second side 10% slower; the
// mean of the variances of a session mean it pooled (MeanSD², whose
// expectation is σ²_S + σ²_R/n) less σ²_R/n is within 5% of 0.05²: the
// change between the sides does not leak into it.
func TestOwnNoiseSimulated(t *testing.T) {
	const (
		reps, k, n     = 4000, 3, 4
		sdS, sdR, step = 0.05, 0.02, 0.10
	)
	rng := rand.New(rand.NewPCG(34, 3))
	side := func(centre float64) [][]float64 {
		var ss [][]float64
		for range k {
			u := sdS * rng.NormFloat64()
			var s []float64
			for range n {
				s = append(s, centre*math.Exp(u+sdR*rng.NormFloat64()))
			}
			ss = append(ss, s)
		}
		return ss
	}
	var sum float64
	for range reps {
		c := CompareSessions(side(100), side(100*(1+step)), SessionNoise{}, Options{})
		own := c.Design.Own
		if own.DF != 2*(k-1) || own.Runs != n {
			t.Fatalf("own noise %+v: want %d degrees of freedom at %d runs", own, 2*(k-1), n)
		}
		sum += own.MeanSD * own.MeanSD
	}
	got := sum/reps - sdR*sdR/n
	if want := sdS * sdS; math.Abs(got-want) > 0.05*want {
		t.Errorf("mean estimated session variance %.3g, want %.3g (±5%%)", got, want)
	}
	t.Logf("mean estimated session variance %.4g (true %.4g)", got, sdS*sdS)
}
