package stats

import (
	"math"
	"sync"
)

// exactMaxPairs bounds n1·n2 for the exact Mann-Whitney distribution. The
// dynamic programme costs about (n1+n2)·min(n1,n2)·2·n1·n2 steps, which is at
// most 2.5e7 under this bound (tens of milliseconds); it covers every pair of
// samples with up to 50 runs each.
const exactMaxPairs = 2500

// A MannWhitneyResult is the outcome of a two-sided Mann-Whitney U test.
type MannWhitneyResult struct {
	// UA counts the pairs (a_i, b_j) with a_i > b_j, each tied pair
	// counting one half. UB = n1·n2 − UA counts the pairs with b_j > a_i.
	UA float64
	// U is min(UA, UB), the statistic that published tables give
	// critical values for.
	U float64
	// P is the two-sided p-value: the probability, under the hypothesis
	// that both samples come from one distribution, of a U at least as far
	// from its mean n1·n2/2 as the one observed. It is 1 when either
	// sample is empty.
	P float64
	// Exact is true when P comes from the exact permutation distribution
	// of U given the observed ties, false when it comes from the normal
	// approximation with tie and continuity corrections.
	Exact bool
}

// MannWhitney tests whether a and b come from the same distribution against
// the alternative that one tends to give larger values than the other.
//
// For small samples (n1·n2 ≤ 2500) the p-value is exact and correct under
// ties: it is computed from the distribution of U over all C(n1+n2, n1) ways
// to split the pooled values, with tied values sharing their mid-rank, so
// latencies quantised to a clock tick are tested at their true level rather
// than with a no-ties table. With heavy ties the test is discrete and rejects
// less often than α (it stays valid). Larger samples use the normal
// approximation with the tie-corrected variance and a continuity correction.
// Values should not be NaN (Compare drops them): a NaN gets an arbitrary
// rank.
func MannWhitney(a, b []float64) MannWhitneyResult {
	return mannWhitneySorted(sortedCopy(a), sortedCopy(b))
}

// mannWhitneySorted is MannWhitney on samples sorted ascending.
func mannWhitneySorted(x, y []float64) MannWhitneyResult {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MannWhitneyResult{P: 1}
	}
	groups, u2 := rankGroups(x, y)
	m := n1 * n2
	r := MannWhitneyResult{UA: float64(u2) / 2}
	r.U = math.Min(r.UA, float64(m)-r.UA)
	if m <= exactMaxPairs {
		r.Exact = true
		r.P = exactTwoSided(groups, n1, n2, u2)
		return r
	}
	r.P = normalTwoSidedU(groups, n1, n2, r.UA)
	return r
}

// A tieGroup is a run of equal values in the pooled, sorted samples.
type tieGroup struct {
	size int // values in the run
	inA  int // how many of them come from a
}

// rankGroups merges the ascending samples x and y and returns their runs of
// equal values in ascending order, and twice UA: twice the U statistic of x,
// an integer even with ties since a tie counts one half.
func rankGroups(x, y []float64) (groups []tieGroup, twiceUA int) {
	bBefore := 0
	for i, j := 0, 0; i < len(x) || j < len(y); {
		// The run's value is the smaller of the two heads.
		v := math.Inf(1)
		if i < len(x) {
			v = x[i]
		}
		if j < len(y) && y[j] < v {
			v = y[j]
		}
		g := tieGroup{}
		for i < len(x) && x[i] == v {
			g.inA++
			i++
		}
		inB := 0
		for j < len(y) && y[j] == v {
			inB++
			j++
		}
		if g.inA+inB == 0 {
			// A NaN equals nothing, itself included: let it stand
			// alone, where sorting put it, rather than loop forever.
			if i < len(x) && x[i] != x[i] {
				g.inA, i = 1, i+1
			} else {
				inB, j = 1, j+1
			}
		}
		g.size = g.inA + inB
		// Each x in the run beats every y before the run and ties with
		// every y inside it.
		twiceUA += g.inA * (2*bBefore + inB)
		bBefore += inB
		groups = append(groups, g)
	}
	return groups, twiceUA
}

// uCounts returns the exact null distribution of twice the U statistic of a
// sample of size k drawn without replacement from pooled values that form the
// given runs of ties (ascending), the remaining other values forming the
// second sample. counts[s] is the number of the C(k+other, k) splits whose doubled U
// equals s, for s in [0, 2·k·other].
//
// It runs a dynamic programme over the runs: a state is (values of the first
// sample chosen so far, doubled U so far); drawing c values from a run of t
// that follows bBefore values of the second sample adds 2·c·bBefore (wins)
// plus c·(t−c) (half-wins against the tied values left to the other sample)
// in C(t, c) ways. Counts are float64: they reach C(100, 50) ≈ 1e29 but
// only their ratios matter, and they are sums of positive terms.
func uCounts(sizes []int, k, other int) []float64 {
	width := 2*k*other + 1
	rows := make([][]float64, k+1)
	top := make([]int, k+1) // highest non-zero s in each row; −1 when empty
	for i := range rows {
		rows[i] = make([]float64, width)
		top[i] = -1
	}
	rows[0][0], top[0] = 1, 0
	binom := make([]float64, k+1)
	seen := 0 // values in the runs processed so far
	for _, t := range sizes {
		binom[0] = 1
		for c := 1; c <= min(t, k); c++ {
			binom[c] = binom[c-1] * float64(t-c+1) / float64(c)
		}
		// Rows are updated in place from the highest down: row kk only
		// feeds rows above it, which have already been read.
		for kk := min(k, seen); kk >= max(0, seen-other); kk-- {
			if top[kk] < 0 {
				continue
			}
			bBefore := seen - kk
			// The values of the run not drawn go to the other
			// sample, which has room for other−bBefore.
			cMin := max(0, t-(other-bBefore))
			cMax := min(t, k-kk)
			row := rows[kk]
			for c := max(1, cMin); c <= cMax; c++ {
				add := 2*c*bBefore + c*(t-c)
				dst := rows[kk+c]
				w := binom[c]
				for s := 0; s <= top[kk]; s++ {
					if v := row[s]; v != 0 {
						dst[s+add] += v * w
					}
				}
				top[kk+c] = max(top[kk+c], top[kk]+add)
			}
			if cMin > 0 {
				// Drawing none of this run would overfill the
				// other sample: the state dies.
				clear(row[:top[kk]+1])
				top[kk] = -1
			}
		}
		seen += t
	}
	return rows[k]
}

// exactTwoSided returns the exact two-sided p-value of doubled statistic u2
// for the first sample of size n1, given the runs of ties.
func exactTwoSided(groups []tieGroup, n1, n2, u2 int) float64 {
	sizes := make([]int, len(groups))
	for i, g := range groups {
		sizes[i] = g.size
	}
	// The distribution of |2U − n1·n2| is the same for either sample, so
	// draw the smaller one: the programme has fewer rows.
	k, other := n1, n2
	if n2 < n1 {
		k, other = n2, n1
	}
	counts := uCounts(sizes, k, other)
	m := n1 * n2
	dev := abs(u2 - m)
	var total, tail float64
	for s, c := range counts {
		total += c
		if abs(s-m) >= dev {
			tail += c
		}
	}
	return math.Min(1, tail/total)
}

// normalTwoSidedU returns the two-sided p-value of UA from the normal
// approximation, with the variance corrected for ties and a continuity
// correction of one half.
func normalTwoSidedU(groups []tieGroup, n1, n2 int, ua float64) float64 {
	n := float64(n1 + n2)
	var ties float64
	for _, g := range groups {
		t := float64(g.size)
		ties += t*t*t - t
	}
	variance := float64(n1) * float64(n2) / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return 1 // every value tied: no evidence either way
	}
	dev := math.Abs(ua-float64(n1)*float64(n2)/2) - 0.5
	if dev <= 0 {
		return 1
	}
	return normalTwoSided(dev / math.Sqrt(variance))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// A noTies holds the null distribution of U for samples of sizes n1 and n2
// without ties: cdf[u] = P(U ≤ u) for u = 0..n1·n2.
type noTies struct {
	cdf []float64
}

var (
	noTiesMu    sync.Mutex
	noTiesCache = map[[2]int]*noTies{}
)

// noTiesCacheMax bounds the cache: a comparison meets a few pairs of sizes,
// but a long-lived process could meet thousands of up to 20 KiB each.
const noTiesCacheMax = 256

// noTiesDist returns the exact null distribution of U without ties for
// sample sizes n1, n2 ≥ 1 with n1·n2 ≤ exactMaxPairs, computed once per pair
// of sizes.
func noTiesDist(n1, n2 int) *noTies {
	if n2 < n1 {
		n1, n2 = n2, n1 // U has the same distribution either way round
	}
	key := [2]int{n1, n2}
	noTiesMu.Lock()
	defer noTiesMu.Unlock()
	if d, ok := noTiesCache[key]; ok {
		return d
	}
	sizes := make([]int, n1+n2)
	for i := range sizes {
		sizes[i] = 1
	}
	counts := uCounts(sizes, n1, n2)
	var total float64
	for _, c := range counts {
		total += c
	}
	// Without ties only even doubled values occur.
	m := n1 * n2
	d := &noTies{cdf: make([]float64, m+1)}
	var run float64
	for u := 0; u <= m; u++ {
		run += counts[2*u]
		d.cdf[u] = run / total
	}
	if len(noTiesCache) >= noTiesCacheMax {
		clear(noTiesCache)
	}
	noTiesCache[key] = d
	return d
}

// MinPValue returns the smallest two-sided p-value the Mann-Whitney test can
// produce with samples of n1 and n2 values: that of complete separation, read
// from the exact distribution of U without ties (ties only make it larger).
// It is 1 when a sample is empty. For sizes beyond the exact bound it
// returns 0, since such samples can reach any usual α.
func MinPValue(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	if n1*n2 > exactMaxPairs {
		return 0
	}
	// The distribution is symmetric without ties: U = 0 and U = n1·n2
	// are equally likely.
	return math.Min(1, 2*noTiesDist(n1, n2).cdf[0])
}

// MinRunsFor returns the smallest n such that two samples of n values each
// can give a Mann-Whitney p-value below alpha.
func MinRunsFor(alpha float64) int {
	for n := 1; n*n <= exactMaxPairs; n++ {
		if MinPValue(n, n) < alpha {
			return n
		}
	}
	return int(math.Sqrt(exactMaxPairs)) + 1
}

// criticalK returns the rank k of the pairwise differences that bound the
// two-sided 1−alpha confidence interval of the shift between samples of
// sizes n1 and n2: the interval is [D(k), D(n1·n2+1−k)]. k−1 is the largest
// u with P(U ≤ u) < alpha/2, so that the interval excludes a shift exactly
// when the test of that shift rejects at level alpha. k is 0 when no u
// qualifies: the samples are too small for any interval short of the whole
// line.
func criticalK(n1, n2 int, alpha float64) int {
	m := n1 * n2
	if m <= exactMaxPairs {
		cdf := noTiesDist(n1, n2).cdf
		k := 0
		for u := 0; u < len(cdf) && cdf[u] < alpha/2; u++ {
			k = u + 1
		}
		return k
	}
	// P(U ≤ u) ≈ Φ((u + ½ − m/2)/σ) < α/2 ⇔ u < m/2 − ½ − z·σ.
	sigma := math.Sqrt(float64(m) * float64(n1+n2+1) / 12)
	z := normalQuantile(1 - alpha/2)
	k := int(math.Ceil(float64(m)/2 - 0.5 - z*sigma))
	return max(k, 0)
}
