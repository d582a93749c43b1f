package stats

import "math"

// A WelchResult is the outcome of Welch's two-sided t-test of the
// difference between two means, which does not assume equal variances.
type WelchResult struct {
	// T is (Mean2 − Mean1)/√(SE1² + SE2²); ±Inf when both standard errors
	// are zero and the means differ.
	T float64
	// DF is the Welch–Satterthwaite degrees of freedom; n1+n2−2 when both
	// standard errors are zero, and 0 when a sample has fewer than 2 values.
	DF float64
	// P is the two-sided p-value from the Student t distribution with DF
	// degrees of freedom; 1 when a sample has fewer than 2 values.
	P float64
	// Mean1, Mean2 and the standard errors of the means SE1, SE2 are kept
	// for the confidence interval.
	Mean1, Mean2 float64
	SE1, SE2     float64
}

// Welch runs Welch's t-test on two samples.
func Welch(a, b []float64) WelchResult {
	sa, sb := Summarize(a), Summarize(b)
	return WelchSummary(sa.Mean, sa.Stddev, sa.N, sb.Mean, sb.Stddev, sb.N)
}

// WelchSummary runs Welch's t-test from summary statistics alone: the mean,
// the sample standard deviation (divisor n−1) and the size of each sample.
// To start from a standard error of the mean se instead, pass se·√n.
func WelchSummary(m1, s1 float64, n1 int, m2, s2 float64, n2 int) WelchResult {
	r := WelchResult{Mean1: m1, Mean2: m2, P: 1}
	if n1 < 2 || n2 < 2 {
		return r
	}
	r.SE1 = s1 / math.Sqrt(float64(n1))
	r.SE2 = s2 / math.Sqrt(float64(n2))
	v1, v2 := r.SE1*r.SE1, r.SE2*r.SE2
	if v1+v2 == 0 {
		r.DF = float64(n1 + n2 - 2)
		if m1 != m2 {
			r.T = math.Copysign(math.Inf(1), m2-m1)
			r.P = 0
		}
		return r
	}
	r.T = (m2 - m1) / math.Sqrt(v1+v2)
	r.DF = (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	r.P = studentTwoSided(r.T, r.DF)
	return r
}

// Change returns the relative change of the means, Mean2/Mean1 − 1; it is
// ±Inf or NaN when Mean1 is zero.
func (r WelchResult) Change() float64 {
	return r.Mean2/r.Mean1 - 1
}

// RelativeCI returns Fieller's two-sided 1−alpha confidence interval for
// Mean2/Mean1 − 1.
//
// Fieller's interval is the set of ratios ρ for which
// |Mean2 − ρ·Mean1| / √(SE2² + ρ²·SE1²) stays below the Student quantile
// t(1−alpha/2, DF): it accounts for the noise of the denominator, which the
// delta method ignores, and at ρ = 1 its statistic is the Welch T, so the
// interval excludes zero change exactly when P < alpha. When Mean1 is not
// clearly away from zero (Mean1² ≤ t²·SE1²) the set is unbounded and the
// interval is (−Inf, +Inf). With fewer than 2 values a side it is unbounded
// too.
func (r WelchResult) RelativeCI(alpha float64) (lo, hi float64) {
	if r.DF <= 0 || !(alpha > 0 && alpha < 1) {
		return math.Inf(-1), math.Inf(1)
	}
	t := studentQuantile(1-alpha/2, r.DF)
	v1, v2 := r.SE1*r.SE1, r.SE2*r.SE2
	// (Mean2 − ρ·Mean1)² ≤ t²(v2 + ρ²·v1) is the quadratic
	// a·ρ² − 2·Mean1·Mean2·ρ + (Mean2² − t²·v2) ≤ 0 with a below; its
	// discriminant over 4 is t²(v2·a + Mean2²·v1), never negative if a > 0.
	a := r.Mean1*r.Mean1 - t*t*v1
	if a <= 0 {
		return math.Inf(-1), math.Inf(1)
	}
	half := t * math.Sqrt(v2*a+r.Mean2*r.Mean2*v1)
	mid := r.Mean1 * r.Mean2
	lo, hi = (mid-half)/a-1, (mid+half)/a-1
	return lo, hi
}
