package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// A Group is one point of a series: one build (one label value) with the
// values of its runs, in run order. A series is a slice of groups in series
// order (kernel version, or time).
type Group struct {
	Label  string
	Values []float64
}

// A ChangePoint is a step in a series: the mean of the runs after it differs
// from the mean of the runs before it, within the segment bounded by its
// neighbouring steps.
type ChangePoint struct {
	// Index is the position in the series of the first group after the
	// step; Label is that group's label.
	Index int
	Label string
	// Change is the relative change of the mean after the step from the
	// mean before it, (After − Before)/|Before|.
	Change float64
	// P is the two-sided p-value of Welch's t-test between the runs of
	// the two segments.
	P float64
	// Before and After are the means of the runs of the segment before the
	// step and of the segment after it.
	Before, After float64
	// Figures marks a step of a series of single figures, one value a
	// point (a mail's one bogo-ops/s per build): no spread, so no test —
	// P is NaN — and the step is the change from the figure before, at
	// least MinMagnitude, said as a size, never a verdict.
	Figures bool
}

// ChangePointOptions say what counts as a change point. Zero fields take
// their defaults.
type ChangePointOptions struct {
	// MinMagnitude is the smallest relative change reported; default
	// 0.05. Steps that are significant but smaller still bound the
	// segments the reported ones are measured in. Zero means the default,
	// so pass a tiny positive value to report every significant step.
	MinMagnitude float64
	// Alpha is the significance level of the t-test; default 0.01.
	Alpha float64
	// Window is the number of groups searched at a time in series longer
	// than that; default 50.
	Window int
}

// DefaultChangePointOptions returns the options ChangePoints uses for zero
// fields.
func DefaultChangePointOptions() ChangePointOptions {
	return ChangePointOptions{MinMagnitude: 0.05, Alpha: 0.01, Window: 50}
}

// minWindow is the smallest window accepted: below it a window's core (the
// middle half, where its findings are kept) would hold a group or two.
const minWindow = 8

// Validate reports every option that is out of range, naming it and its
// value. Zero fields are valid: they take their defaults.
func (o ChangePointOptions) Validate() error {
	var errs []error
	if o.MinMagnitude != 0 && !(o.MinMagnitude > 0 && o.MinMagnitude < math.Inf(1)) {
		errs = append(errs, fmt.Errorf("minimum magnitude %v is not a positive relative change", o.MinMagnitude))
	}
	if o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v is not in (0, 1)", o.Alpha))
	}
	if o.Window != 0 && o.Window < minWindow {
		errs = append(errs, fmt.Errorf("window %d is under %d groups", o.Window, minWindow))
	}
	return errors.Join(errs...)
}

// withDefaults fills zero and invalid fields with the defaults.
func (o ChangePointOptions) withDefaults() ChangePointOptions {
	d := DefaultChangePointOptions()
	if !(o.MinMagnitude > 0 && o.MinMagnitude < math.Inf(1)) {
		o.MinMagnitude = d.MinMagnitude
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = d.Alpha
	}
	if o.Window < minWindow {
		o.Window = d.Window
	}
	return o
}

// ChangePoints finds the steps in a series of groups, in series order.
//
// It is E-divisive with means (Matteson and James, 2014) with the
// deterministic significance test and the merge of Apache Otava (formerly
// hunter):
//
//   - Within a segment of groups, the candidate split is the group
//     boundary that maximises the energy statistic between the runs on
//     either side, Q = mn/(m+n)·(2·mean|x−y| − mean|x−x'| − mean|y−y'|).
//     It works on every run, not on a per-group centre, so a group's
//     spread counts and one wild run weighs as one run.
//   - The split is significant when Welch's t-test between the runs of the
//     two sides gives p < Alpha. A significant split is kept and both
//     sides are searched again, even when the step is under MinMagnitude:
//     a small significant step can hold the energy maximum of a segment
//     that also holds a large one, and stopping there would hide it.
//   - Series longer than Window groups are searched in windows of Window
//     groups overlapping by half; a window keeps the splits found in its
//     middle half, where both sides have at least a quarter window of
//     groups, so every step is judged from the window centred nearest to
//     it. The energy statistic over all splits of n runs costs
//     O(n log n); windows bound the depth of the search and keep a long
//     stretch of the series from drowning a local step.
//   - The splits are then re-tested against their neighbours: each
//     split's segments run from the split before it to the split after
//     it. While some split has p ≥ Alpha, the one with the largest p is
//     dropped; then, while some split's relative change is under
//     MinMagnitude, the one with the smallest change is dropped; after
//     each drop its neighbours are re-tested. What is left is reported.
//
// So a reported step's Before and After are the means of every run between
// it and the reported steps on either side: in seed mail 000's ELN table
// (6.15-rc6 103,207; 6.16 70,281; 6.18 72,552 bogo-ops/s) the +3.2% step at
// 6.18 is under the 5% floor, so the step at 6.16 is measured against the
// runs of 6.16 and 6.18 together: −30.8%, where the two builds alone give
// −31.9%.
//
// The result is deterministic: no permutations, no random numbers, ties
// broken towards the earlier split. Non-finite values are ignored; groups
// without values cannot start a step. Groups are not modified.
func ChangePoints(series []Group, opt ChangePointOptions) []ChangePoint {
	opt = opt.withDefaults()
	if figures(series) {
		return figureSteps(series, opt.MinMagnitude)
	}
	s := newCPSeries(series)
	splits := s.merge(s.candidates(opt), opt.Alpha, opt.MinMagnitude)
	var out []ChangePoint
	for i, g := range splits {
		lo, hi := 0, len(series)
		if i > 0 {
			lo = splits[i-1]
		}
		if i+1 < len(splits) {
			hi = splits[i+1]
		}
		t := s.test(lo, g, hi)
		out = append(out, ChangePoint{
			Index: g, Label: series[g].Label,
			Change: t.change, P: t.p,
			Before: t.before, After: t.after,
		})
	}
	return out
}

// cpSeries is a series flattened for the search: the finite values of every
// group, one after the other, and where each group starts.
type cpSeries struct {
	vals []float64
	// off[g] is the index in vals of group g's first value; off[G] is
	// len(vals).
	off []int
}

func newCPSeries(series []Group) *cpSeries {
	s := &cpSeries{off: make([]int, 0, len(series)+1)}
	for _, g := range series {
		s.off = append(s.off, len(s.vals))
		for _, v := range g.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				s.vals = append(s.vals, v)
			}
		}
	}
	s.off = append(s.off, len(s.vals))
	return s
}

// groups returns the number of groups.
func (s *cpSeries) groups() int { return len(s.off) - 1 }

// candidates returns the significant splits, in series order, found by
// recursive bisection of the whole series or of its windows.
func (s *cpSeries) candidates(opt ChangePointOptions) []int {
	n := s.groups()
	var out []int
	if n <= opt.Window {
		s.bisect(0, n, opt.Alpha, &out)
		slices.Sort(out)
		return out
	}
	w := opt.Window
	var starts []int
	for st := 0; ; st += w / 2 {
		if st+w >= n {
			if last := n - w; len(starts) == 0 || starts[len(starts)-1] != last {
				starts = append(starts, last)
			}
			break
		}
		starts = append(starts, st)
	}
	// Window k keeps the splits in its core: from halfway between its
	// centre and the previous window's to halfway to the next one's. The
	// cores tile the series, so a split is kept from one window only.
	for k, st := range starts {
		coreLo, coreHi := 0, n+1
		if k > 0 {
			coreLo = (starts[k-1] + st + w) / 2
		}
		if k+1 < len(starts) {
			coreHi = (st + starts[k+1] + w) / 2
		}
		var found []int
		s.bisect(st, st+w, opt.Alpha, &found)
		for _, g := range found {
			if g >= coreLo && g < coreHi {
				out = append(out, g)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// bisect appends to out the significant splits of groups [g0, g1): the
// split that maximises the energy statistic, if Welch's test finds the two
// sides different, and then those of each side.
func (s *cpSeries) bisect(g0, g1 int, alpha float64, out *[]int) {
	g, ok := s.bestSplit(g0, g1)
	if !ok {
		return
	}
	if t := s.test(g0, g, g1); !(t.p < alpha) {
		return
	}
	*out = append(*out, g)
	s.bisect(g0, g, alpha, out)
	s.bisect(g, g1, alpha, out)
}

// bestSplit returns the group boundary g in (g0, g1) that maximises the
// energy statistic between the runs of groups [g0, g) and [g, g1), with at
// least two runs a side; ok is false when there is none. Boundaries that
// fall on an empty group are skipped: the split before the next group
// with values is the same one, and that group is where the step shows.
func (s *cpSeries) bestSplit(g0, g1 int) (g int, ok bool) {
	base := s.off[g0]
	x := s.vals[base:s.off[g1]]
	n := len(x)
	if n < 4 {
		return 0, false
	}
	left, right := pairDistanceSums(x)
	total := left[n]
	best := math.Inf(-1)
	for c := g0 + 1; c < g1; c++ {
		if s.off[c+1] == s.off[c] {
			continue
		}
		t := s.off[c] - base
		m, k := float64(t), float64(n-t)
		if t < 2 || n-t < 2 {
			continue
		}
		within1, within2 := left[t], right[t]
		cross := total - within1 - within2
		e := 2*cross/(m*k) - 2*within1/(m*(m-1)) - 2*within2/(k*(k-1))
		q := m * k / (m + k) * e
		if q > best {
			best, g, ok = q, c, true
		}
	}
	return g, ok
}

// pairDistanceSums returns, for every t in [0, len(x)], the sum of |x_i −
// x_j| over the pairs i < j < t (left[t]) and over the pairs t ≤ i < j
// (right[t]).
//
// Adding x_t to a set S adds Σ_{s∈S} |x_t − s| = x_t·(2c − |S|) − 2·σ + ΣS,
// where c and σ are the count and sum of the members of S not above x_t: a
// Fenwick tree over the ranks of x keeps both, so each sum costs O(log n)
// and all of them O(n log n), against O(n²) for the pairwise distances.
// The values are centred on their mean first, so that the sums stay small
// next to the differences they accumulate.
func pairDistanceSums(x []float64) (left, right []float64) {
	n := len(x)
	c := make([]float64, n)
	mu := mean(x)
	for i, v := range x {
		c[i] = v - mu
	}
	// rank[i] is i's position in the stable sort of c: equal values get
	// distinct ranks, which is harmless since their distance is zero.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case c[a] < c[b]:
			return -1
		case c[a] > c[b]:
			return 1
		}
		return 0
	})
	rank := make([]int, n)
	for r, i := range order {
		rank[i] = r
	}
	accumulate := func(seq func(yield func(int) bool)) []float64 {
		cnt := make([]int, n+1)
		sum := make([]float64, n+1)
		sums := make([]float64, n+1)
		var size int
		var all, acc float64
		k := 1
		for i := range seq {
			// Count and sum of the members ranked below i.
			var below int
			var belowSum float64
			for j := rank[i]; j > 0; j -= j & -j {
				below += cnt[j]
				belowSum += sum[j]
			}
			acc += c[i]*float64(2*below-size) - 2*belowSum + all
			for j := rank[i] + 1; j <= n; j += j & -j {
				cnt[j]++
				sum[j] += c[i]
			}
			size++
			all += c[i]
			sums[k] = acc
			k++
		}
		return sums
	}
	left = accumulate(func(yield func(int) bool) {
		for i := 0; i < n && yield(i); i++ {
		}
	})
	// fromRight[k] is the sum over the pairs among the last k values, so
	// right[t] = fromRight[n−t].
	fromRight := accumulate(func(yield func(int) bool) {
		for i := n - 1; i >= 0 && yield(i); i-- {
		}
	})
	right = make([]float64, n+1)
	for t := range right {
		right[t] = fromRight[n-t]
	}
	return left, right
}

// A splitTest is Welch's test between the runs of two adjacent segments.
type splitTest struct {
	before, after float64 // the means of the segments
	change        float64 // (after − before)/|before|
	p             float64
}

// test compares the runs of groups [g0, g) with those of [g, g1).
func (s *cpSeries) test(g0, g, g1 int) splitTest {
	a := s.vals[s.off[g0]:s.off[g]]
	b := s.vals[s.off[g]:s.off[g1]]
	ma, sa := meanStddev(a)
	mb, sb := meanStddev(b)
	t := splitTest{before: ma, after: mb, p: WelchSummary(ma, sa, len(a), mb, sb, len(b)).P}
	switch {
	case len(a) == 0 || len(b) == 0:
		t.change = math.NaN()
	case ma == 0 && mb == 0:
		t.change = 0
	default:
		t.change = (mb - ma) / math.Abs(ma)
	}
	return t
}

// merge re-tests each split against its neighbours and drops, one at a
// time, first the split with the largest p-value while it is not below
// alpha, then the split with the smallest relative change while it is
// under minMag. Dropping a split changes only its neighbours' segments, so
// only they are re-tested.
func (s *cpSeries) merge(splits []int, alpha, minMag float64) []int {
	n := s.groups()
	splits = slices.Clone(splits)
	tests := make([]splitTest, len(splits))
	retest := func(i int) {
		lo, hi := 0, n
		if i > 0 {
			lo = splits[i-1]
		}
		if i+1 < len(splits) {
			hi = splits[i+1]
		}
		tests[i] = s.test(lo, splits[i], hi)
	}
	for i := range splits {
		retest(i)
	}
	for len(splits) > 0 {
		// A NaN p-value or change (a side without values) is the weakest
		// of all.
		weakest := 0
		for i, t := range tests {
			if t.p > tests[weakest].p || math.IsNaN(t.p) && !math.IsNaN(tests[weakest].p) {
				weakest = i
			}
		}
		if tests[weakest].p < alpha {
			weakest = 0
			for i, t := range tests {
				if math.Abs(t.change) < math.Abs(tests[weakest].change) || math.IsNaN(t.change) && !math.IsNaN(tests[weakest].change) {
					weakest = i
				}
			}
			if math.Abs(tests[weakest].change) >= minMag {
				break
			}
		}
		splits = slices.Delete(splits, weakest, weakest+1)
		tests = slices.Delete(tests, weakest, weakest+1)
		for _, i := range []int{weakest - 1, weakest} {
			if i >= 0 && i < len(splits) {
				retest(i)
			}
		}
	}
	return splits
}

// meanStddev returns the mean and the sample standard deviation (divisor
// n−1) of xs, zero for what an empty or one-value sample cannot give.
func meanStddev(xs []float64) (m, sd float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	m = mean(xs)
	if n < 2 {
		return m, 0
	}
	var ss, comp float64
	for _, x := range xs {
		d := x - m
		ss += d * d
		comp += d
	}
	return m, math.Sqrt(math.Max((ss-comp*comp/float64(n))/float64(n-1), 0))
}

// figures tells whether every group of series, two at least, holds one
// finite value.
func figures(series []Group) bool {
	if len(series) < 2 {
		return false
	}
	for _, g := range series {
		if len(g.Values) != 1 || math.IsNaN(g.Values[0]) || math.IsInf(g.Values[0], 0) {
			return false
		}
	}
	return true
}

// figureSteps are the steps of a series of single figures: each change
// from the figure before of at least min, untested.
func figureSteps(series []Group, min float64) []ChangePoint {
	var out []ChangePoint
	for g := 1; g < len(series); g++ {
		a, b := series[g-1].Values[0], series[g].Values[0]
		if a == 0 {
			continue
		}
		if ch := (b - a) / math.Abs(a); math.Abs(ch) >= min {
			out = append(out, ChangePoint{Index: g, Label: series[g].Label, Change: ch, P: math.NaN(), Before: a, After: b, Figures: true})
		}
	}
	return out
}
