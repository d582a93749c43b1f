package stats

import "math"

// A RatioOfRatios compares two changes: (B/A) / (D/C), for instance the
// change a kernel made on ppc64le against the change it made on x86_64
// (seed mail 000: −32% against −2.8%).
type RatioOfRatios struct {
	// Ratio is (1+Change of the first) / (1+Change of the second).
	Ratio float64
	// CI is its 1−alpha interval; ±Inf ends when either interval is
	// unbounded.
	CI [2]float64
}

// CompareChanges combines two comparisons into the ratio of their ratios.
// It works on the log scale, where the ratio is a difference: each
// comparison's interval gives a standard error (its width over 2·z), the
// two are taken as independent and added in quadrature. That is a normal
// approximation over intervals that are themselves exact, so it is checked
// by simulation rather than claimed exact.
func CompareChanges(first, second Comparison, alpha float64) RatioOfRatios {
	if !(alpha > 0 && alpha < 1) {
		alpha = DefaultOptions().Alpha
	}
	r := RatioOfRatios{Ratio: (1 + first.Change) / (1 + second.Change), CI: [2]float64{math.Inf(-1), math.Inf(1)}}
	z := normalQuantile(1 - alpha/2)
	se := func(c Comparison) float64 {
		lo, hi := 1+c.CI[0], 1+c.CI[1]
		if !(lo > 0) || math.IsInf(hi, 0) {
			return math.Inf(1)
		}
		// The interval need not be symmetric on the log scale: take the
		// wider half, which errs on the side of a wider result.
		l := math.Log(1 + c.Change)
		return math.Max(l-math.Log(lo), math.Log(hi)-l) / z
	}
	s := math.Hypot(se(first), se(second))
	if math.IsInf(s, 0) || math.IsNaN(s) || !(r.Ratio > 0) {
		return r
	}
	d := math.Log(r.Ratio)
	r.CI = [2]float64{math.Exp(d-z*s) - 1, math.Exp(d+z*s) - 1}
	r.Ratio--
	return r
}
