package stats

import "math"

// normalCDF returns P(Z ≤ z) for a standard normal Z.
func normalCDF(z float64) float64 {
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// normalQuantile returns the z with P(Z ≤ z) = p. It goes through Erfcinv
// rather than Erfinv so that small tail probabilities keep their precision.
func normalQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// normalTwoSided returns P(|Z| ≥ z) for a standard normal Z and z ≥ 0.
func normalTwoSided(z float64) float64 {
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// regIncBeta returns the regularized incomplete beta function I_x(a, b) for
// a, b > 0 and 0 ≤ x ≤ 1.
//
// It evaluates the continued fraction of the incomplete beta function with
// the modified Lentz method, on whichever of x and 1−x makes it converge
// fast (the fraction converges quickly for x < (a+1)/(a+b+2)), and uses the
// symmetry I_x(a, b) = 1 − I_{1−x}(b, a) for the other side.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	// front is x^a (1−x)^b / B(a, b), computed in logs to avoid overflow.
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) + lgab - lga - lgb)
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

// betaFraction evaluates the continued fraction
//
//	1 / (1 + d1/(1 + d2/(1 + ...)))
//
// of the incomplete beta function, whose even and odd coefficients are
//
//	d(2m)   =  m(b−m)x / ((a+2m−1)(a+2m))
//	d(2m+1) = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
func betaFraction(a, b, x float64) float64 {
	const (
		tiny    = 1e-300
		epsilon = 1e-15
		maxIter = 10000
	)
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	// Modified Lentz: f = C·D products, starting from the first term
	// d1 = −(a+b)x/(a+1).
	c := 1.0
	d := 1 / clamp(1-(a+b)*x/(a+1))
	f := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		even := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / clamp(1+even*d)
		c = clamp(1 + even/c)
		f *= d * c
		odd := -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / clamp(1+odd*d)
		c = clamp(1 + odd/c)
		step := d * c
		f *= step
		if math.Abs(step-1) < epsilon {
			break
		}
	}
	return f
}

// studentTwoSided returns P(|T| ≥ t) for a Student t variable T with df
// degrees of freedom (df > 0, not necessarily an integer).
func studentTwoSided(t, df float64) float64 {
	t = math.Abs(t)
	switch {
	case math.IsNaN(t) || math.IsNaN(df) || df <= 0:
		return math.NaN()
	case math.IsInf(t, 1):
		return 0
	case t == 0:
		return 1
	case math.IsInf(df, 1) || df > 1e10:
		return normalTwoSided(t)
	}
	// P(|T| ≥ t) = I_{df/(df+t²)}(df/2, 1/2). When t² is small next to df,
	// x is close to 1 and 1−x loses digits; then use the complement, whose
	// argument t²/(df+t²) is computed without cancellation.
	t2 := t * t
	if t2 < df {
		return 1 - regIncBeta(0.5, df/2, t2/(df+t2))
	}
	return regIncBeta(df/2, 0.5, df/(df+t2))
}

// studentQuantile returns the t with P(T ≤ t) = p for a Student t variable
// with df degrees of freedom, for 0 < p < 1.
func studentQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(df) || df <= 0 || p <= 0 || p >= 1:
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -studentQuantile(1-p, df)
	case math.IsInf(df, 1) || df > 1e10:
		return normalQuantile(p)
	}
	// Solve studentTwoSided(t) = 2(1−p): the tail is monotone in t.
	target := 2 * (1 - p)
	return bisect(math.Max(1, 2*normalQuantile(p)), func(t float64) bool { return studentTwoSided(t, df) > target })
}

// bisect returns the x ≥ 0 where below, true at 0 and monotone, turns
// false: it doubles hi from its start until below(hi) is false (+Inf if it
// never is), then halves the bracket, which cannot fail; 200 halvings
// exhaust float64.
func bisect(hi float64, below func(x float64) bool) float64 {
	lo := 0.0
	for below(hi) {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return hi
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// fCDF returns P(F ≤ f) for an F variable with d1 and d2 degrees of
// freedom.
func fCDF(f, d1, d2 float64) float64 {
	if f <= 0 {
		return 0
	}
	return regIncBeta(d1/2, d2/2, d1*f/(d1*f+d2))
}

// fQuantile returns the f with P(F ≤ f) = p, for 0 < p < 1: the CDF is
// monotone in f.
func fQuantile(p, d1, d2 float64) float64 {
	if math.IsNaN(p) || p <= 0 || p >= 1 || d1 <= 0 || d2 <= 0 {
		return math.NaN()
	}
	return bisect(1, func(f float64) bool { return fCDF(f, d1, d2) < p })
}
