package bisect

import (
	"fmt"
	"math"
	"strings"

	"github.com/kdelta/kdelta/internal/compare"
	"github.com/kdelta/kdelta/internal/report"
	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
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
// geometric midpoint of the two levels, so a +100% step splits at +41.4%.
func decide(vsGood stats.Comparison, step *stats.Comparison, m result.Metric) (decision, why string) {
	thr := report.Pct(vsGood.Options.Threshold)
	thr = strings.TrimPrefix(thr, "+")
	if step == nil {
		switch vsGood.Verdict {
		case stats.Regressed:
			return Bad, "regressed from good beyond ±" + thr
		case stats.NoChange:
			return Good, "within ±" + thr + " of good"
		case stats.Improved:
			return Good, "improved on good"
		}
		return "", report.VerdictText(vsGood) + " against good"
	}
	// The side of the midpoint is the one question's (compare.Question:
	// asked Toward the bad set); the words are the judge's.
	q := compare.Question{Comparison: vsGood, Toward: step, Better: m.Better}
	at := fmt.Sprintf("the midpoint %s of the step to bad (%s)", report.Pct(q.Midpoint()), report.Pct(step.Change))
	switch q.Side() {
	case -1:
		return Good, "closer to good: the interval is on good's side of " + at
	case 1:
		return Bad, "closer to bad: the interval is on bad's side of " + at
	}
	if unbounded(vsGood.CI) {
		return "", "interval unbounded: " + report.VerdictText(vsGood) + " against good"
	}
	return "", "the interval straddles " + at
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
