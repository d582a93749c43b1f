package stats

import (
	"fmt"
	"math"
	"testing"
)

// TestRegIncBeta checks the incomplete beta function against closed forms:
// I_x(a, 1) = x^a, I_x(1, b) = 1 − (1−x)^b, I_½(a, a) = ½, and
// I_x(½, ½) = (2/π)·asin(√x).
func TestRegIncBeta(t *testing.T) {
	tests := []struct {
		a, b, x, want float64
	}{
		{2.5, 1, 0.3, math.Pow(0.3, 2.5)},
		{7, 1, 0.9, math.Pow(0.9, 7)},
		{1, 3, 0.2, 1 - math.Pow(0.8, 3)},
		{1, 40, 0.05, 1 - math.Pow(0.95, 40)},
		{4, 4, 0.5, 0.5},
		{123.5, 123.5, 0.5, 0.5},
		{0.5, 0.5, 0.1, 2 / math.Pi * math.Asin(math.Sqrt(0.1))},
		{0.5, 0.5, 0.97, 2 / math.Pi * math.Asin(math.Sqrt(0.97))},
		{3, 2, 0, 0},
		{3, 2, 1, 1},
	}
	for _, tt := range tests {
		got := regIncBeta(tt.a, tt.b, tt.x)
		if math.Abs(got-tt.want) > 1e-13 {
			t.Errorf("I_%v(%v, %v) = %.16g, want %.16g", tt.x, tt.a, tt.b, got, tt.want)
		}
	}
}

// tDensity is the Student t density with df degrees of freedom.
func tDensity(x, df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	return math.Exp(lg1-lg2-0.5*math.Log(df*math.Pi)) * math.Pow(1+x*x/df, -(df+1)/2)
}

// tTailByIntegration returns P(|T| ≥ t) by Simpson's rule on the density
// from 0 to t: 1 − 2∫₀ᵗ f. It shares no code with studentTwoSided.
func tTailByIntegration(t, df float64) float64 {
	const steps = 20000 // even
	h := t / steps
	sum := tDensity(0, df) + tDensity(t, df)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * tDensity(float64(i)*h, df)
	}
	return 1 - 2*sum*h/3
}

func TestStudentTwoSided(t *testing.T) {
	for _, df := range []float64{1, 2, 3.7, 9, 24.99, 100, 1e4} {
		for _, x := range []float64{0.1, 1, 2.0, 2.46, 4, 8} {
			want := tTailByIntegration(x, df)
			got := studentTwoSided(x, df)
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("P(|T_%v| ≥ %v) = %.12g, integration gives %.12g", df, x, got, want)
			}
		}
	}
	// Closed forms: Cauchy (df 1) and df 2.
	for _, x := range []float64{0.5, 3, 50, 1e4} {
		if got, want := studentTwoSided(x, 1), 1-2/math.Pi*math.Atan(x); math.Abs(got-want) > 1e-13 {
			t.Errorf("df 1, t %v: %.16g, want %.16g", x, got, want)
		}
		if got, want := studentTwoSided(x, 2), 1-x/math.Sqrt(2+x*x); math.Abs(got-want) > 1e-13 {
			t.Errorf("df 2, t %v: %.16g, want %.16g", x, got, want)
		}
	}
	if got := studentTwoSided(math.Inf(1), 5); got != 0 {
		t.Errorf("P(|T| ≥ Inf) = %v", got)
	}
	if got := studentTwoSided(0, 5); got != 1 {
		t.Errorf("P(|T| ≥ 0) = %v", got)
	}
}

func TestStudentQuantile(t *testing.T) {
	// Textbook two-sided 5% critical values.
	tests := []struct {
		df, want float64
	}{
		{1, 12.706}, {2, 4.303}, {5, 2.571}, {10, 2.228}, {30, 2.042}, {120, 1.980},
	}
	for _, tt := range tests {
		if got := studentQuantile(0.975, tt.df); math.Abs(got-tt.want) > 5e-4 {
			t.Errorf("t(0.975, %v) = %.4f, want %.3f", tt.df, got, tt.want)
		}
	}
	for _, df := range []float64{1.5, 4, 17.3, 1e6} {
		for _, p := range []float64{0.001, 0.2, 0.5, 0.9, 0.995} {
			t.Run(fmt.Sprint(df, p), func(t *testing.T) {
				q := studentQuantile(p, df)
				back := 1 - studentTwoSided(q, df)/2
				if q < 0 {
					back = studentTwoSided(q, df) / 2
				}
				// 1e-9: with df in the millions, log B(a, b) is a
				// difference of two large log-gammas and keeps ~10 digits.
				if math.Abs(back-p) > 1e-9 {
					t.Errorf("quantile %v gives back p %v", q, back)
				}
			})
		}
	}
}

func TestNormal(t *testing.T) {
	if got := normalQuantile(0.975); math.Abs(got-1.959963984540054) > 1e-14 {
		t.Errorf("z(0.975) = %.16g", got)
	}
	for _, p := range []float64{1e-10, 0.01, 0.3, 0.5, 0.8, 0.999} {
		if back := normalCDF(normalQuantile(p)); math.Abs(back-p) > 1e-14*math.Max(1, p/1e-3) && math.Abs(back-p)/p > 1e-10 {
			t.Errorf("Φ(Φ⁻¹(%v)) = %v", p, back)
		}
	}
	if got := normalTwoSided(1.959963984540054); math.Abs(got-0.05) > 1e-14 {
		t.Errorf("P(|Z| ≥ 1.96) = %v", got)
	}
}
