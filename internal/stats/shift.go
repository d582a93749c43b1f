package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// A Shift is the Hodges–Lehmann estimate of how much B's values differ from
// A's, as a relative change, with its distribution-free confidence interval.
type Shift struct {
	// Change is the relative change of B's centre from A's: exp(d)−1,
	// where d is the median of all pairwise differences log b_j − log a_i;
	// or, when Log is false, that median of b_j − a_i divided by |median(A)|.
	Change float64
	// Lo and Hi bound the confidence interval of Change. They are −1 and
	// +Inf (or ±Inf when Log is false) when the samples are too small for
	// the test to reach the level asked for.
	Lo, Hi float64
	// Log is true when the change was computed on log values (every value
	// positive), false when it fell back to raw differences.
	Log bool
}

// ErrNoRelativeChange reports that a relative change cannot be formed:
// logs are impossible and the baseline's centre is zero.
var ErrNoRelativeChange = errors.New("relative change undefined")

// HodgesLehmann estimates the relative change from a to b and its two-sided
// 1−alpha confidence interval.
//
// When every value is positive it works on logs, where a multiplicative
// change is a shift: the estimate is the median of the n1·n2 differences
// log b_j − log a_i and the interval runs from the k-th smallest to the k-th
// largest of them, k from the exact distribution of the Mann-Whitney U
// without ties (the normal approximation for n1·n2 > 2500). This interval is
// exact for continuous data and is the set of shifts the U test does not
// reject. Otherwise it uses b_j − a_i relative to |median(a)|, and fails
// with ErrNoRelativeChange when that median is zero.
//
// The differences are never materialised: each order statistic is found by
// a search on its value, counting the differences below a candidate in
// O(n1+n2) with two pointers over the sorted samples, until few enough
// candidates remain to sort; the cost is O((n1+n2)·(log(n1+n2) + steps)),
// with at most about 128 steps and usually a handful.
func HodgesLehmann(a, b []float64, alpha float64) (Shift, error) {
	if len(a) == 0 || len(b) == 0 {
		return Shift{}, fmt.Errorf("hodges-lehmann: empty sample (%d and %d values)", len(a), len(b))
	}
	if !(alpha > 0 && alpha < 1) {
		return Shift{}, fmt.Errorf("hodges-lehmann: alpha %v is not in (0, 1)", alpha)
	}
	return hodgesLehmannSorted(sortedCopy(a), sortedCopy(b), alpha)
}

// hodgesLehmannSorted is HodgesLehmann on non-empty samples sorted
// ascending, which it does not modify, with alpha already checked.
func hodgesLehmannSorted(x, y []float64, alpha float64) (Shift, error) {
	sh := Shift{Log: x[0] > 0 && y[0] > 0}
	toChange := math.Expm1
	if sh.Log {
		logs := func(s []float64) []float64 {
			l := make([]float64, len(s))
			for i, v := range s {
				l[i] = math.Log(v)
			}
			return l
		}
		x, y = logs(x), logs(y)
	} else {
		scale := math.Abs(medianSorted(x))
		if scale == 0 {
			return Shift{}, fmt.Errorf("hodges-lehmann: %w: some values are ≤ 0 and the median of the first sample is 0", ErrNoRelativeChange)
		}
		toChange = func(d float64) float64 { return d / scale }
	}
	pd := pairDiffs{x: x, y: y}
	m := int64(len(x)) * int64(len(y))
	d := pd.kth((m + 1) / 2)
	if m%2 == 0 {
		d2 := pd.kth(m/2 + 1)
		d += (d2 - d) / 2
	}
	sh.Change = toChange(d)
	k := int64(criticalK(len(x), len(y), alpha))
	if k < 1 {
		sh.Lo, sh.Hi = toChange(math.Inf(-1)), toChange(math.Inf(1))
		return sh, nil
	}
	sh.Lo = toChange(pd.kth(k))
	sh.Hi = toChange(pd.kth(m + 1 - k))
	return sh, nil
}

// pairDiffs stands for the n1·n2 differences y_j − x_i of two ascending
// samples without storing them.
type pairDiffs struct {
	x, y []float64
	// gather is how few differences a bracket must hold for kth to list
	// and sort them; 0 means max(4(n1+n2), 4096). Tests lower it to
	// exercise the search.
	gather int64
}

// countAtMost returns how many differences y_j − x_i are ≤ t. For a fixed
// x_i the computed difference grows with j, and for a fixed y_j it shrinks
// as x_i grows (rounding is monotone), so as i rises the number of y_j that
// qualify can only grow: one pointer sweeps y once.
func (p pairDiffs) countAtMost(t float64) int64 {
	var n int64
	j := 0
	for _, xi := range p.x {
		for j < len(p.y) && p.y[j]-xi <= t {
			j++
		}
		n += int64(j)
	}
	return n
}

// kth returns the k-th smallest difference, 1 ≤ k ≤ n1·n2, exactly as
// computed in float64.
//
// It keeps a bracket lo < D(k) ≤ hi with the number of differences ≤ each
// end, and narrows it by counting at a candidate value: alternately the
// linear interpolation of the counts, which homes in within a few steps on
// the smooth distributions of timings, and the midpoint of the bracket in
// the total order of float64 values, which bounds the search at about 64
// steps whatever the data. Once the bracket holds few differences they are
// listed and sorted; once lo and hi are adjacent floats, D(k) is hi.
func (p pairDiffs) kth(k int64) float64 {
	lo, hi := p.y[0]-p.x[len(p.x)-1], p.y[len(p.y)-1]-p.x[0]
	cLo, cHi := p.countAtMost(lo), int64(len(p.x))*int64(len(p.y))
	if cLo >= k {
		return lo + 0 // the smallest difference; +0 turns −0 into 0
	}
	gather := p.gather
	if gather <= 0 {
		gather = max(4*int64(len(p.x)+len(p.y)), 4096)
	}
	for step := 0; ; step++ {
		if cHi-cLo <= gather {
			return p.gatherKth(lo, hi, k-cLo)
		}
		loKey, hiKey := orderedKey(lo), orderedKey(hi)
		if hiKey-loKey <= 1 {
			return hi + 0
		}
		t := lo + (hi-lo)*(float64(k-cLo)/float64(cHi-cLo))
		if step%2 == 1 || !(t > lo && t < hi) {
			t = fromOrderedKey(loKey + (hiKey-loKey)/2)
		}
		if c := p.countAtMost(t); c >= k {
			hi, cHi = t, c
		} else {
			lo, cLo = t, c
		}
	}
}

// gatherKth returns the r-th smallest of the differences d with lo < d ≤ hi.
// For each x_i those differences are a run of y, and both ends of the run
// only move up as x_i grows.
func (p pairDiffs) gatherKth(lo, hi float64, r int64) float64 {
	var ds []float64
	first, end := 0, 0
	for _, xi := range p.x {
		for first < len(p.y) && p.y[first]-xi <= lo {
			first++
		}
		for end < len(p.y) && p.y[end]-xi <= hi {
			end++
		}
		for j := first; j < end; j++ {
			ds = append(ds, p.y[j]-xi)
		}
	}
	slices.Sort(ds)
	return ds[r-1] + 0
}

// orderedKey maps a float64 to a uint64 whose unsigned order is the float's
// numeric order (−0 just below +0): flip every bit of negatives, and only
// the sign bit of the rest.
func orderedKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromOrderedKey inverts orderedKey.
func fromOrderedKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
