package bisect

import (
	"math"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A Reason is why the rule decided as it did, or could not: facts that
// report words.
type Reason int

// The reasons: NotCompared (no comparison with good: Evidence.Why says
// why), then without a bad set the verdict against good, and with one
// where the interval lies against the midpoint of the step to bad.
const (
	NotCompared    Reason = iota
	BeyondBand            // regressed from good beyond the noise band
	WithinBand            // no change from good
	ImprovedOnGood        // improved on good
	Undecided             // the comparison with good is not conclusive
	Unbounded             // the interval against good is unbounded
	CloserToGood          // the interval lies on good's side of the midpoint
	CloserToBad           // the interval lies on bad's side of the midpoint
	Straddles             // the interval straddles the midpoint
)

// decide decides from the comparison of the measured runs with good and,
// when bad is known to be worse, the comparison of bad with good, on
// metric m.
//
// Without bad: regressed is bad; no change or improved is good. With bad,
// the measured change from good is placed against the step from good to
// bad on the log scale, oriented so that worse is positive (m.Worse): good
// when the whole confidence interval lies below half the step, bad when
// it lies above. The midpoint of the logs is the geometric midpoint of the
// two levels, so a +100% step splits at +41.4% (midpoint).
func decide(vsGood stats.Comparison, step *stats.Comparison, m result.Metric) (string, Reason) {
	if step == nil {
		switch vsGood.Verdict {
		case stats.Regressed:
			return Bad, BeyondBand
		case stats.NoChange:
			return Good, WithinBand
		case stats.Improved:
			return Good, ImprovedOnGood
		}
		return "", Undecided
	}
	rise := m.Worse(1) // whether a rise of the metric is for the worse
	worse := func(x float64) float64 {
		l := math.Log1p(x)
		if math.IsNaN(l) { // x < −1: no ratio, the floor
			l = math.Inf(-1)
		}
		if !rise {
			return -l
		}
		return l
	}
	mid := worse(step.Change) / 2
	lo, hi := worse(vsGood.CI[0]), worse(vsGood.CI[1])
	if lo > hi {
		lo, hi = hi, lo
	}
	switch {
	case math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi):
		return "", Unbounded
	case hi < mid:
		return Good, CloserToGood
	case lo > mid:
		return Bad, CloserToBad
	}
	return "", Straddles
}

// midpoint is the change from good halfway to bad on the log scale, the
// geometric midpoint of the two levels, for step (bad against good):
// the same whichever way the metric is better.
func midpoint(step stats.Comparison) float64 {
	return math.Expm1(math.Log1p(step.Change) / 2)
}
