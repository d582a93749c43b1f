package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchSamples returns two log-normal samples of n values, CV 2%, the
// second 1% slower, with values quantised to 1 ns so that ties occur as
// they do in real timings.
func benchSamples(n int) (a, b []float64) {
	rng := rand.New(rand.NewPCG(42, uint64(n)))
	a, b = make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = math.Round(10000 * math.Exp(0.02*rng.NormFloat64()))
		b[i] = math.Round(10100 * math.Exp(0.02*rng.NormFloat64()))
	}
	return a, b
}

func benchmarkCompare(bm *testing.B, n int, opt Options) {
	a, b := benchSamples(n)
	bm.ResetTimer()
	for bm.Loop() {
		c := Compare(a, b, opt)
		if c.CI[0] > c.CI[1] {
			bm.Fatal("empty interval")
		}
	}
}

// BenchmarkCompare10 is the everyday case: 10 runs a side, exact test.
func BenchmarkCompare10(bm *testing.B) { benchmarkCompare(bm, 10, Options{}) }

// BenchmarkCompare50 is the largest exact case.
func BenchmarkCompare50(bm *testing.B) { benchmarkCompare(bm, 50, Options{}) }

// BenchmarkCompare10k compares two sets of 10,000 samples, interval
// included (target: under 0.5 s).
func BenchmarkCompare10k(bm *testing.B) { benchmarkCompare(bm, 10_000, Options{}) }

// BenchmarkCompare100k compares two sets of 100,000 samples, interval
// included (target: under 5 s).
func BenchmarkCompare100k(bm *testing.B) { benchmarkCompare(bm, 100_000, Options{}) }

// BenchmarkCompareWelch100k is the same with Welch's test.
func BenchmarkCompareWelch100k(bm *testing.B) {
	benchmarkCompare(bm, 100_000, Options{Test: TestWelch})
}
