package bisect

import (
	"fmt"
	"math"
	"strings"

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
// it lies above. The midpoint of the logs is the geometric midpoint of the
// two levels, so a +100% step splits at +41.4%.
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
	half := report.Pct(math.Expm1(mid))
	if !rise {
		half = report.Pct(math.Expm1(-mid))
	}
	at := fmt.Sprintf("the midpoint %s of the step to bad (%s)", half, report.Pct(step.Change))
	switch {
	case math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi):
		return "", "interval unbounded: " + report.VerdictText(vsGood) + " against good"
	case hi < mid:
		return Good, "closer to good: the interval is on good's side of " + at
	case lo > mid:
		return Bad, "closer to bad: the interval is on bad's side of " + at
	}
	return "", "the interval straddles " + at
}
