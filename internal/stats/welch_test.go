package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWelchTextbook checks Welch's test on the first example of Wikipedia's
// "Welch's t-test" article (two samples of 15, unequal variances), whose
// published figures are |t| = 2.46, ν = 24.99 (to 2 decimals), p = 0.021.
// The exact expectations are computed here independently: t and ν from
// their formulas, p by integrating the t density numerically.
func TestWelchTextbook(t *testing.T) {
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}

	meanVar := func(xs []float64) (m, v float64) {
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		return m, v / float64(len(xs)-1)
	}
	m1, var1 := meanVar(a)
	m2, var2 := meanVar(b)
	q1, q2 := var1/15, var2/15
	wantT := (m2 - m1) / math.Sqrt(q1+q2)
	wantDF := (q1 + q2) * (q1 + q2) / (q1*q1/14 + q2*q2/14)
	wantP := tTailByIntegration(math.Abs(wantT), wantDF)

	r := Welch(a, b)
	if math.Abs(r.T-wantT) > 1e-12 || math.Abs(r.DF-wantDF) > 1e-9 || math.Abs(r.P-wantP) > 1e-9 {
		t.Errorf("got t %v df %v p %v, want t %v df %v p %v", r.T, r.DF, r.P, wantT, wantDF, wantP)
	}
	if math.Abs(math.Abs(r.T)-2.46) > 0.005 || math.Abs(r.DF-24.99) > 0.005 || math.Abs(r.P-0.021) > 0.0005 {
		t.Errorf("got |t| %.3f df %.3f p %.4f, published 2.46, 24.99, 0.021", math.Abs(r.T), r.DF, r.P)
	}

	// The same from summaries, given standard deviations or, through
	// se·√n, standard errors.
	s := WelchSummary(m1, math.Sqrt(var1), 15, m2, math.Sqrt(var2), 15)
	se := WelchSummary(m1, math.Sqrt(q1)*math.Sqrt(15), 15, m2, math.Sqrt(q2)*math.Sqrt(15), 15)
	for _, got := range []WelchResult{s, se} {
		if math.Abs(got.T-wantT) > 1e-12 || math.Abs(got.DF-wantDF) > 1e-9 || math.Abs(got.P-wantP) > 1e-9 {
			t.Errorf("summary: got t %v df %v p %v, want t %v df %v p %v", got.T, got.DF, got.P, wantT, wantDF, wantP)
		}
	}
}

// TestFieller checks that Fieller's interval solves its defining equation at
// both ends and excludes zero change exactly when p < α.
func TestFieller(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 2000 {
		n1, n2 := 2+rng.IntN(15), 2+rng.IntN(15)
		shift := 0.04 * rng.Float64()
		a, b := make([]float64, n1), make([]float64, n2)
		for i := range a {
			a[i] = 100 + 2*rng.NormFloat64()
		}
		for i := range b {
			b[i] = 100*(1+shift) + 3*rng.NormFloat64()
		}
		r := Welch(a, b)
		lo, hi := r.RelativeCI(0.05)
		if (lo > 0 || hi < 0) != (r.P < 0.05) {
			t.Fatalf("trial %d: interval [%v, %v] but p = %v", trial, lo, hi, r.P)
		}
		tq := studentQuantile(0.975, r.DF)
		for _, rel := range []float64{lo, hi} {
			rho := 1 + rel
			stat := math.Abs(r.Mean2-rho*r.Mean1) / math.Sqrt(r.SE2*r.SE2+rho*rho*r.SE1*r.SE1)
			if math.Abs(stat-tq) > 1e-6*tq {
				t.Fatalf("trial %d: at ρ = %v the statistic is %v, want t = %v", trial, rho, stat, tq)
			}
		}
		if !(lo <= r.Change() && r.Change() <= hi) {
			t.Fatalf("trial %d: change %v outside [%v, %v]", trial, r.Change(), lo, hi)
		}
	}
}

func TestWelchEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name           string
		a, b           []float64
		wantT, wantP   float64
		wantDF         float64
		wantLo, wantHi float64
	}{
		{"one value", []float64{1}, []float64{2, 3}, 0, 1, 0, -inf, inf},
		{"constant equal", []float64{5, 5}, []float64{5, 5, 5}, 0, 1, 3, 0, 0},
		{"constant different", []float64{4, 4}, []float64{5, 5, 5}, inf, 0, 3, 0.25, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Welch(tt.a, tt.b)
			if r.T != tt.wantT || r.P != tt.wantP || r.DF != tt.wantDF {
				t.Errorf("t %v p %v df %v, want %v %v %v", r.T, r.P, r.DF, tt.wantT, tt.wantP, tt.wantDF)
			}
			if lo, hi := r.RelativeCI(0.05); lo != tt.wantLo || hi != tt.wantHi {
				t.Errorf("interval [%v, %v], want [%v, %v]", lo, hi, tt.wantLo, tt.wantHi)
			}
		})
	}
	// A mean of A that is not clearly away from zero leaves the ratio
	// unbounded.
	if lo, hi := Welch([]float64{-1, 1.2}, []float64{5, 6}).RelativeCI(0.05); lo != -inf || hi != inf {
		t.Errorf("mean of A near 0: interval [%v, %v], want unbounded", lo, hi)
	}
}
