package bisect

import (
	"math"

	"github.com/kdelta/kdelta/internal/compare"
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
// it lies above (compare.Question.Side). The midpoint of the logs is the
// geometric midpoint of the two levels, so a +100% step splits at +41.4%
// (midpoint).
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
	// The side of the midpoint is the one question's (compare.Question:
	// asked Toward the bad set); report words the reason.
	q := compare.Question{Comparison: vsGood, Toward: step, Better: m.Better}
	switch q.Side() {
	case -1:
		return Good, CloserToGood
	case 1:
		return Bad, CloserToBad
	}
	if unbounded(vsGood.CI) {
		return "", Unbounded
	}
	return "", Straddles
}

// midpoint is the change from good halfway to bad on the log scale, the
// geometric midpoint of the two levels, for step (bad against good):
// the same whichever way the metric is better.
func midpoint(step stats.Comparison) float64 {
	return compare.Question{Toward: &step}.Midpoint()
}

// unbounded tells whether a confidence interval of a change has no
// finite ratio at an end: infinite, not a number, or at or below −100%.
func unbounded(ci [2]float64) bool {
	for _, x := range ci {
		if math.IsInf(x, 0) || math.IsNaN(x) || x <= -1 {
			return true
		}
	}
	return false
}
