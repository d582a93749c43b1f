package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFQuantile checks fQuantile against the F distribution's own CDF
// and against a known value: F(0.975; 14, 14) = 2.979 (tables).
func TestFQuantile(t *testing.T) {
	if q := fQuantile(0.975, 14, 14); math.Abs(q-2.979) > 0.002 {
		t.Errorf("F 0.975 quantile (14, 14) = %.4f, want 2.979", q)
	}
	for _, p := range []float64{0.01, 0.25, 0.5, 0.9, 0.999} {
		for _, d := range [][2]float64{{1, 1}, {4, 20}, {14, 14}, {30, 5}} {
			q := fQuantile(p, d[0], d[1])
			if got := fCDF(q, d[0], d[1]); math.Abs(got-p) > 1e-9 {
				t.Errorf("fCDF(fQuantile(%g, %v)) = %g", p, d, got)
			}
		}
	}
}

// TestSpreadRatioCoverage simulates the fidelity benchmark's question:
// two sides of 15 log-normal runs each. With the same spread, the 95%
// interval holds 1 in 95% of 4,000 simulated benchmarks (within three
// standard errors); with kdelta's spread 1.16 times the reference's (a
// 4.3% against 3.7% CV), the interval still holds 1 most of the time, so
// 15 pairs cannot tell the two apart; at twice the spread it excludes 1
// most of the time. The estimate's median is the true ratio.
func TestSpreadRatioCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	sample := func(n int, sigma float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 1000 * math.Exp(sigma*rng.NormFloat64())
		}
		return xs
	}
	const trials, n = 4000, 15
	for _, tc := range []struct {
		ratio          float64
		holdLo, holdHi float64 // share of intervals that hold 1
	}{
		{1, 0.95 - 3*0.0034, 0.95 + 3*0.0034},
		{1.16, 0.7, 0.95},
		{2, 0, 0.4},
	} {
		hold := 0
		est := make([]float64, 0, trials)
		for range trials {
			r, lo, hi := SpreadRatio(sample(n, 0.04*tc.ratio), sample(n, 0.04), 0.95)
			if lo <= 1 && 1 <= hi {
				hold++
			}
			if !(lo < r && r < hi) {
				t.Fatalf("estimate %g outside its interval [%g, %g]", r, lo, hi)
			}
			est = append(est, r)
		}
		share := float64(hold) / trials
		med := Summarize(est).Median
		t.Logf("true ratio %.2f: the interval held 1 in %.1f%% of %d trials; median estimate %.3f", tc.ratio, 100*share, trials, med)
		if share < tc.holdLo || share > tc.holdHi {
			t.Errorf("true ratio %.2f: 1 inside the interval in %.3f of trials, want %.3f to %.3f", tc.ratio, share, tc.holdLo, tc.holdHi)
		}
		if math.Abs(med/tc.ratio-1) > 0.05 {
			t.Errorf("true ratio %.2f: median estimate %.3f", tc.ratio, med)
		}
	}
}

// TestSpreadRatioRefuses: too few values or a value that is not positive
// give NaN, not a number that looks like a claim.
func TestSpreadRatioRefuses(t *testing.T) {
	for _, c := range [][2][]float64{
		{{1}, {1, 2}},
		{{1, 2, 0}, {1, 2}},
		{{1, 2}, {3, 3}},
	} {
		if r, lo, hi := SpreadRatio(c[0], c[1], 0.95); !math.IsNaN(r) || !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("SpreadRatio(%v, %v) = %g [%g, %g], want NaN", c[0], c[1], r, lo, hi)
		}
	}
}
