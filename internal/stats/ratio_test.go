package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCompareChangesCoverage checks by simulation that the interval of the
// ratio of two changes covers the true ratio about 95% of the time.
func TestCompareChangesCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	draw := func(centre float64) []float64 {
		xs := make([]float64, 10)
		for i := range xs {
			xs[i] = centre * math.Exp(0.02*rng.NormFloat64())
		}
		return xs
	}
	const trials = 1000
	covered := 0
	truth := (0.68 / 1.0) / (0.972 / 1.0)
	for i := 0; i < trials; i++ {
		c1 := Compare(draw(100), draw(68), Options{})
		c2 := Compare(draw(50), draw(48.6), Options{})
		r := CompareChanges(c1, c2, 0.05)
		if 1+r.CI[0] <= truth && truth <= 1+r.CI[1] {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f", rate)
	if rate < 0.93 {
		t.Errorf("interval of the ratio of changes covers the truth in %.3f of trials, want ≥ 0.93", rate)
	}
	// Unbounded input intervals give an unbounded result.
	r := CompareChanges(Comparison{Change: 0.1, CI: [2]float64{-1, math.Inf(1)}}, Comparison{Change: 0.1, CI: [2]float64{0.05, 0.15}}, 0.05)
	if !math.IsInf(r.CI[1], 1) {
		t.Errorf("unbounded interval: got %v", r.CI)
	}
}
