package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// samplesWithU builds two samples without ties whose U statistic of a is u:
// b is 0, 1, …, n2−1 and each a_i sits just above c_i of them, the c_i
// summing to u.
func samplesWithU(n1, n2, u int) (a, b []float64) {
	b = make([]float64, n2)
	for j := range b {
		b[j] = float64(j)
	}
	a = make([]float64, n1)
	left := u
	for i := range a {
		c := min(n2, left)
		left -= c
		// c−0.5 lies above c values of b; the tiny offset keeps the a_i
		// distinct from one another.
		a[i] = float64(c) - 0.5 + float64(i)*1e-6
	}
	return a, b
}

// TestMannWhitneyCriticalValues checks the exact test against published
// critical values of U for a two-sided test at α = 0.05 (e.g. the tables in
// Siegel & Castellan, Nonparametric Statistics, table J): the test is
// significant exactly when min(UA, UB) ≤ the critical value.
func TestMannWhitneyCriticalValues(t *testing.T) {
	tests := []struct {
		n1, n2, crit int // crit −1: no U is significant
	}{
		{3, 3, -1},
		{4, 4, 0},
		{5, 5, 2},
		{6, 6, 5},
		{7, 7, 8},
		{8, 8, 13},
		{10, 10, 23},
		{5, 10, 8},
		{20, 20, 127},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.n1, tt.n2), func(t *testing.T) {
			m := tt.n1 * tt.n2
			for u := 0; u <= m; u++ {
				a, b := samplesWithU(tt.n1, tt.n2, u)
				r := MannWhitney(a, b)
				if r.UA != float64(u) {
					t.Fatalf("U = %d: built samples have UA %v", u, r.UA)
				}
				if !r.Exact {
					t.Fatalf("U = %d: p is not exact", u)
				}
				want := min(u, m-u) <= tt.crit
				if got := r.P < 0.05; got != want {
					t.Errorf("U = %d: p = %.5f, significant %v, want %v", u, r.P, got, want)
				}
			}
		})
	}
}

// bruteForceP enumerates every split of the pooled values into a sample of
// len(a) and one of len(b), computing U by comparing pairs, and returns the
// share of splits whose U is at least as far from n1·n2/2 as the observed.
func bruteForceP(a, b []float64) float64 {
	pooled := append(append([]float64{}, a...), b...)
	n, n1 := len(pooled), len(a)
	m := n1 * len(b)
	twiceU := func(inA []bool) int {
		var u2 int
		for i := range n {
			if !inA[i] {
				continue
			}
			for j := range n {
				switch {
				case inA[j]:
				case pooled[i] > pooled[j]:
					u2 += 2
				case pooled[i] == pooled[j]:
					u2++
				}
			}
		}
		return u2
	}
	obs := make([]bool, n)
	for i := range n1 {
		obs[i] = true
	}
	dev := math.Abs(float64(twiceU(obs) - m))
	var total, extreme int
	inA := make([]bool, n)
	var walk func(i, left int)
	walk = func(i, left int) {
		if left == 0 {
			total++
			if math.Abs(float64(twiceU(inA)-m)) >= dev {
				extreme++
			}
			return
		}
		if n-i < left {
			return
		}
		inA[i] = true
		walk(i+1, left-1)
		inA[i] = false
		walk(i+1, left)
	}
	walk(0, n1)
	return float64(extreme) / float64(total)
}

// TestMannWhitneyExactMatchesEnumeration compares the package's exact
// p-values with full enumeration, with and without ties.
func TestMannWhitneyExactMatchesEnumeration(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
	}{
		{"no ties 3x4", []float64{1.1, 2.5, 3.9}, []float64{4.2, 5.0, 6.1, 0.3}},
		{"no ties 5x5 separated", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}},
		{"no ties 6x7", []float64{3.1, 7.7, 2.2, 9.4, 5.5, 1.3}, []float64{8.8, 6.6, 10.1, 4.4, 12.5, 11.2, 0.9}},
		{"ties 5x5", []float64{8, 8, 12, 12, 12}, []float64{12, 12, 16, 16, 8}},
		{"ties across 4x8", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 3, 4, 4, 2, 1}},
		{"jiffies 8x8", []float64{8, 12, 8, 12, 12, 8, 12, 12}, []float64{12, 12, 12, 16, 12, 16, 12, 12}},
		{"all tied 4x4", []float64{5, 5, 5, 5}, []float64{5, 5, 5, 5}},
		{"one value 1x6", []float64{3}, []float64{1, 2, 3, 4, 5, 6}},
		{"within-sample ties only 5x6", []float64{1, 1, 1, 2, 2}, []float64{3, 3, 4, 4, 4, 5}},
		{"binary 7x9", []float64{0, 0, 0, 1, 1, 0, 0}, []float64{1, 1, 0, 1, 1, 1, 0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := bruteForceP(tt.a, tt.b)
			r := MannWhitney(tt.a, tt.b)
			if !r.Exact {
				t.Fatal("p is not exact")
			}
			if math.Abs(r.P-want) > 1e-12 {
				t.Errorf("p = %.15f, enumeration gives %.15f", r.P, want)
			}
			if back := MannWhitney(tt.b, tt.a); math.Abs(back.P-r.P) > 1e-12 || back.UA != float64(len(tt.a)*len(tt.b))-r.UA {
				t.Errorf("swapped samples: p %v, UA %v; want p %v, UA %v", back.P, back.UA, r.P, float64(len(tt.a)*len(tt.b))-r.UA)
			}
		})
	}
}

// TestMannWhitneyExactMatchesEnumerationRandom does the same on random
// samples, half of them quantised to force ties.
func TestMannWhitneyExactMatchesEnumerationRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		n1, n2 := 1+rng.IntN(7), 1+rng.IntN(7)
		a, b := make([]float64, n1), make([]float64, n2)
		quantum := 0.0
		if trial%2 == 1 {
			quantum = 0.5
		}
		fill := func(xs []float64) {
			for i := range xs {
				xs[i] = rng.NormFloat64()
				if quantum > 0 {
					xs[i] = quantum * math.Round(xs[i]/quantum)
				}
			}
		}
		fill(a)
		fill(b)
		want := bruteForceP(a, b)
		if got := MannWhitney(a, b).P; math.Abs(got-want) > 1e-12 {
			t.Errorf("trial %d: a %v b %v: p = %.15f, enumeration gives %.15f", trial, a, b, got, want)
		}
	}
}

// TestMannWhitneyNormalApproximation checks the large-sample path against
// the exact one where both apply (the exact path is forced through the
// internal functions), with and without ties.
func TestMannWhitneyNormalApproximation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		a, b := make([]float64, 40), make([]float64, 45)
		shift := 0.1 * float64(trial%5)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64() + shift
		}
		if trial%2 == 1 {
			for _, xs := range [][]float64{a, b} {
				for i := range xs {
					xs[i] = math.Round(xs[i] * 2)
				}
			}
		}
		groups, u2 := rankGroups(sortedCopy(a), sortedCopy(b))
		exact := exactTwoSided(groups, len(a), len(b), u2)
		approx := normalTwoSidedU(groups, len(a), len(b), float64(u2)/2)
		if math.Abs(exact-approx) > 0.01 {
			t.Errorf("trial %d: exact p %.4f, normal approximation %.4f", trial, exact, approx)
		}
	}
}

func TestMannWhitneyEdgeCases(t *testing.T) {
	tests := []struct {
		name  string
		a, b  []float64
		wantP float64
		exact bool
	}{
		{"empty a", nil, []float64{1, 2}, 1, false},
		{"empty both", nil, nil, 1, false},
		{"all tied", []float64{3, 3, 3}, []float64{3, 3}, 1, true},
		{"one each", []float64{1}, []float64{2}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := MannWhitney(tt.a, tt.b)
			if r.P != tt.wantP || r.Exact != tt.exact {
				t.Errorf("got p %v exact %v, want p %v exact %v", r.P, r.Exact, tt.wantP, tt.exact)
			}
		})
	}
	// NaNs must not hang the ranking.
	if r := MannWhitney([]float64{math.NaN(), 1, 2}, []float64{3, math.NaN(), 4}); r.P < 0 || r.P > 1 {
		t.Errorf("with NaNs: p %v", r.P)
	}
	// Large samples that are all tied give p = 1 from the approximation.
	big := make([]float64, 100)
	if r := MannWhitney(big, big); r.P != 1 || r.Exact {
		t.Errorf("100 zeros against themselves: p %v exact %v, want 1 false", r.P, r.Exact)
	}
}

// TestMinPValue checks the smallest reachable p against 2/C(n1+n2, n1) and
// the smallest n that can reach 0.05 and 0.01.
func TestMinPValue(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {3, 3}, {4, 4}, {5, 9}, {10, 10}, {50, 50}} {
		n1, n2 := sz[0], sz[1]
		lc := func(n int) float64 { v, _ := math.Lgamma(float64(n) + 1); return v }
		want := math.Min(1, 2*math.Exp(lc(n1)+lc(n2)-lc(n1+n2)))
		if got := MinPValue(n1, n2); math.Abs(got-want) > 1e-12*want {
			t.Errorf("MinPValue(%d, %d) = %g, want %g", n1, n2, got, want)
		}
	}
	if got := MinPValue(3, 3); got != 0.1 {
		t.Errorf("MinPValue(3, 3) = %v, want 0.1", got)
	}
	for _, tt := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.01, 5}, {0.1, 4}, {0.11, 3}} {
		if got := MinRunsFor(tt.alpha); got != tt.want {
			t.Errorf("MinRunsFor(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
}
