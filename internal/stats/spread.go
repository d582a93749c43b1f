package stats

import "math"

// SpreadRatio compares the run-to-run spread of two samples of positive
// values, as a precision claim needs ("kdelta's CV is at most the
// reference's"): the ratio of their coefficients of variation, taken as
// the square root of the ratio of the variances of their logarithms (a CV
// of a few percent is the standard deviation of the log), and its
// interval at level (0.95 for 95%) from the F distribution, exact for
// log-normal samples. An interval that holds 1 says the two spreads
// cannot be told apart from these samples. It returns NaNs for fewer than
// two values a side or a value that is not positive.
func SpreadRatio(a, b []float64, level float64) (ratio, lo, hi float64) {
	va, okA := logVariance(a)
	vb, okB := logVariance(b)
	if !okA || !okB || vb == 0 || level <= 0 || level >= 1 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	f := va / vb
	d1, d2 := float64(len(a)-1), float64(len(b)-1)
	tail := (1 - level) / 2
	// va/vb divided by F's upper and lower quantiles bounds the ratio of
	// the true variances.
	return math.Sqrt(f), math.Sqrt(f / fQuantile(1-tail, d1, d2)), math.Sqrt(f / fQuantile(tail, d1, d2))
}

// logVariance is the sample variance of the logarithms of xs.
func logVariance(xs []float64) (float64, bool) {
	if len(xs) < 2 {
		return 0, false
	}
	var sum float64
	for _, x := range xs {
		if !(x > 0) {
			return 0, false
		}
		sum += math.Log(x)
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		d := math.Log(x) - mean
		ss += d * d
	}
	return ss / float64(len(xs)-1), true
}
