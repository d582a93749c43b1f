package stats

import (
	"math"
	"slices"
)

// A Summary describes one sample: the runs of one metric in one result set.
//
// With N = 0 every field is zero. With N = 1, Mean, Median, Min and Max are
// the one value, and Stddev, StdErr and CV are zero: they are undefined for a
// single value, and zero keeps them printable; callers that care test N.
// CV is also zero when Mean is zero.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"` // sample standard deviation (divisor N−1)
	CV     float64 `json:"cv"`     // coefficient of variation, percent: 100·Stddev/|Mean|
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	StdErr float64 `json:"stderr"` // standard error of the mean: Stddev/√N
}

// Summarize returns the Summary of xs. The values are expected to be finite;
// xs is not modified.
func Summarize(xs []float64) Summary {
	return summarizeSorted(xs, sortedCopy(xs))
}

// summarizeSorted is Summarize given also xs sorted ascending.
func summarizeSorted(xs, sorted []float64) Summary {
	n := len(xs)
	s := Summary{N: n}
	if n == 0 {
		return s
	}
	s.Min, s.Max = sorted[0], sorted[n-1]
	s.Median = medianSorted(sorted)
	s.Mean = mean(xs)
	if n < 2 {
		return s
	}
	// Two passes: the squared deviations from the mean, plus the
	// compensation term Σ(x−mean) that cancels the rounding of the mean.
	var ss, comp float64
	for _, x := range xs {
		d := x - s.Mean
		ss += d * d
		comp += d
	}
	variance := (ss - comp*comp/float64(n)) / float64(n-1)
	s.Stddev = math.Sqrt(math.Max(variance, 0))
	s.StdErr = s.Stddev / math.Sqrt(float64(n))
	if s.Mean != 0 {
		s.CV = 100 * s.Stddev / math.Abs(s.Mean)
	}
	return s
}

// mean returns the arithmetic mean of xs, which must not be empty.
func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// sortedCopy returns xs sorted ascending, leaving xs as it was.
func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// medianSorted returns the median of an ascending, non-empty slice.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1] + (s[n/2]-s[n/2-1])/2
}

// madSorted returns the median absolute deviation from med of an ascending,
// non-empty slice, unscaled. The deviations below med, read downwards, and
// those above, read upwards, are two ascending runs: merging them sorts all
// deviations in O(n).
func madSorted(sorted []float64, med float64) float64 {
	n := len(sorted)
	split, _ := slices.BinarySearch(sorted, med) // first value ≥ med
	dev := make([]float64, 0, n)
	i, j := split-1, split
	for i >= 0 || j < n {
		if j >= n || i >= 0 && med-sorted[i] <= sorted[j]-med {
			dev = append(dev, med-sorted[i])
			i--
		} else {
			dev = append(dev, sorted[j]-med)
			j++
		}
	}
	return medianSorted(dev)
}
