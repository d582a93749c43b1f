package stats

import (
	"fmt"
	"math"
	"strings"
)

// Limits behind the sample warnings.
const (
	// fewRuns: below this many runs a side, a comparison rests on too
	// little to trust even when it is significant.
	fewRuns = 5
	// outlierZ is the modified z-score above which a value is an outlier
	// (Iglewicz and Hoaglin's recommendation).
	outlierZ = 3.5
	// noisyCV is the coefficient of variation, in percent, above which a
	// sample is called noisy.
	noisyCV = 10
	// warmupMargin is how much worse than every later run, relative to
	// their median, the first run must be to suggest a missing warm-up.
	warmupMargin = 0.05
)

// sampleWarnings returns the problems of one sample named name, given in run
// order (xs), sorted, and summarised, for a metric whose better direction is
// better.
func sampleWarnings(name string, xs, sorted []float64, sum Summary, better Better) []string {
	n := len(xs)
	if n == 0 {
		return []string{name + ": no runs"}
	}
	var w []string
	if n < fewRuns {
		w = append(w, fmt.Sprintf("%s: only %d runs; at least %d are needed to trust a comparison", name, n, fewRuns))
	}
	if idx := outliers(xs, sorted, sum.Median); len(idx) > 0 {
		var runs []string
		for i, k := range idx {
			if i == 5 {
				runs = append(runs, "…")
				break
			}
			runs = append(runs, fmt.Sprintf("run %d (%s)", k+1, Num(xs[k])))
		}
		w = append(w, fmt.Sprintf("%s: %d outliers (modified z-score > %g): %s", name, len(idx), outlierZ, strings.Join(runs, ", ")))
	}
	// The test is on the CV as printed, to one decimal, so that a CV of
	// 10.04% neither reads "CV 10.0% is over 10%" nor passes unprinted.
	if cv := math.Round(sum.CV*10) / 10; cv > noisyCV {
		w = append(w, fmt.Sprintf("%s: CV %.1f%% is over %d%%: noisy runs", name, cv, noisyCV))
	}
	if by, ok := warmupMissing(xs, sum.Median, better); ok {
		w = append(w, fmt.Sprintf("%s: the first run is worse than every other by %.1f%%: warm-up missing?", name, 100*by))
	}
	return w
}

// outliers returns the indices of the values whose modified z-score
// 0.6745·(x − median)/MAD exceeds outlierZ. When more than half the values
// are equal the MAD is 0; the score then uses the mean absolute deviation,
// (x − median)/(1.253314·MeanAD), as Iglewicz and Hoaglin suggest (1.253314
// is √(π/2), the ratio of the two for normal data). All values equal: none.
// sorted is xs sorted, med their median.
func outliers(xs, sorted []float64, med float64) []int {
	if len(xs) < 3 {
		return nil
	}
	scale := madSorted(sorted, med) / 0.6745
	if scale == 0 {
		var sum float64
		for _, x := range xs {
			sum += math.Abs(x - med)
		}
		scale = 1.253314 * sum / float64(len(xs))
	}
	if scale == 0 {
		return nil
	}
	var idx []int
	for i, x := range xs {
		if math.Abs(x-med)/scale > outlierZ {
			idx = append(idx, i)
		}
	}
	return idx
}

// warmupMissing reports whether the first run is worse than all the others
// by more than warmupMargin of the median med of all runs, and by how much
// (relative to med). It needs at least three runs.
func warmupMissing(xs []float64, med float64, better Better) (float64, bool) {
	if len(xs) < 3 {
		return 0, false
	}
	rest := xs[1:]
	med = math.Abs(med)
	if med == 0 {
		return 0, false
	}
	// The worst of the other runs, and how much worse the first is.
	worst := rest[0]
	for _, x := range rest {
		if better.Worse(x - worst) {
			worst = x
		}
	}
	by := math.Abs(xs[0]-worst) / med
	if !better.Worse(xs[0] - worst) {
		by = -by
	}
	return by, by > warmupMargin
}
