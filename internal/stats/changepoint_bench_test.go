package stats

import (
	"math/rand/v2"
	"testing"
)

// benchSeries returns a series of n builds of runs values each at CV 2%,
// with a 10% step every 1,000 builds, alternately up and down.
func benchSeries(n, runs int) []Group {
	rng := rand.New(rand.NewPCG(10, uint64(n)))
	gs := make([]Group, n)
	level := 100.0
	for i := range gs {
		if i > 0 && i%1000 == 0 {
			if i/1000%2 == 1 {
				level *= 1.1
			} else {
				level /= 1.1
			}
		}
		vs := make([]float64, runs)
		for j := range vs {
			vs[j] = level * (1 + 0.02*rng.NormFloat64())
		}
		gs[i] = Group{Values: vs}
	}
	return gs
}

func benchmarkChangePoints(bm *testing.B, n, runs int) {
	gs := benchSeries(n, runs)
	want := (n - 1) / 1000
	for bm.Loop() {
		if got := ChangePoints(gs, ChangePointOptions{}); len(got) != want {
			bm.Fatalf("%d change points, want %d", len(got), want)
		}
	}
}

// BenchmarkChangePoints10k searches a series of 10,000 builds of 10 runs
// each (100,000 values) with nine steps (target: under 1 s).
func BenchmarkChangePoints10k(bm *testing.B) { benchmarkChangePoints(bm, 10_000, 10) }

// BenchmarkChangePoints10kMedians is the same series with one value per
// build, as a history of medians gives it.
func BenchmarkChangePoints10kMedians(bm *testing.B) { benchmarkChangePoints(bm, 10_000, 1) }

// BenchmarkChangePoints30 is the everyday case: 30 builds of 10 runs.
func BenchmarkChangePoints30(bm *testing.B) { benchmarkChangePoints(bm, 30, 10) }
