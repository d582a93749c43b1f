package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The tests Compare can run.
const (
	TestMannWhitney = "mannwhitney"
	TestWelch       = "welch"
)

// Better says which direction of a metric is an improvement. It is the
// one word for a direction in kdelta: result.Better is this type.
type Better string

// The directions. The zero Better means Lower, as for every time.
// Neither is a figure with no better side of its own — a context switch,
// a migration, a system call per operation: more of them is more work of
// the kernel, neither good nor bad until a time says so — whose clear
// change is Changed, never Improved or Regressed.
const (
	Lower   Better = "lower"
	Higher  Better = "higher"
	Neither Better = "neither"
)

// Worse reports whether a relative change of a metric (B/A − 1) in
// direction b is for the worse. It is the one place a direction turns
// into good or bad (result.Metric.Worse is this rule on a metric): an
// empty Better means Lower, everywhere.
func (b Better) Worse(change float64) bool {
	switch b {
	case Higher:
		return change < 0
	case Neither:
		return false
	}
	return change > 0
}

// A Verdict is what a comparison concludes.
type Verdict string

// The verdicts.
const (
	// Improved and Regressed mean p < α and the whole confidence interval
	// of the change lies beyond the noise threshold on one side.
	Improved  Verdict = "improved"
	Regressed Verdict = "regressed"
	// NoChange means the whole interval lies inside the threshold band.
	NoChange Verdict = "~"
	// Inconclusive is everything else: the interval straddles a threshold,
	// or the samples are too small to reach α.
	Inconclusive Verdict = "inconclusive"
	// Changed is Improved or Regressed of a figure whose direction is
	// Neither: the change is real, and says nothing good or bad by itself.
	Changed Verdict = "changed"
)

// Words is the verdict as a sentence says it: "no change" for NoChange's
// "~" of the tables, the others as they are.
func (v Verdict) Words() string {
	if v == NoChange {
		return "no change"
	}
	return string(v)
}

// maxNeedRuns caps the estimate of the runs needed: beyond it the change sits
// so close to the threshold that no practical number of runs settles it.
const maxNeedRuns = 1_000_000

// Options says how Compare decides. Zero fields take their defaults.
type Options struct {
	// Alpha is the significance level; default 0.05.
	Alpha float64
	// Threshold is the noise band, as a relative change: a change within
	// ±Threshold does not matter. Default 0.01; zero means the default, so
	// pass a tiny positive value for no band.
	Threshold float64
	// Test is TestMannWhitney (the default) or TestWelch.
	Test string
	// Better is Lower (the default, for times) or Higher (for rates).
	Better Better
	// Names are what warnings call the two samples, baseline first: the
	// sets' letters of a comparison of several ("A" and "C" for the third
	// set against the first). Empty names are "A" and "B".
	Names [2]string
}

// DefaultOptions returns the options Compare uses for zero fields.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, Threshold: 0.01, Test: TestMannWhitney, Better: Lower, Names: [2]string{"A", "B"}}
}

// Validate reports every option that is out of range, naming it and its
// value. Zero fields are valid: they take their defaults.
func (o Options) Validate() error {
	var errs []error
	if o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v is not in (0, 1)", o.Alpha))
	}
	if o.Threshold != 0 && !(o.Threshold > 0 && o.Threshold < math.Inf(1)) {
		errs = append(errs, fmt.Errorf("threshold %v is not a positive relative change", o.Threshold))
	}
	switch o.Test {
	case "", TestMannWhitney, TestWelch:
	default:
		errs = append(errs, fmt.Errorf("test %q is not %q or %q", o.Test, TestMannWhitney, TestWelch))
	}
	switch o.Better {
	case "", Lower, Higher, Neither:
	default:
		errs = append(errs, fmt.Errorf("better %q is not %q, %q or %q", o.Better, Lower, Higher, Neither))
	}
	return errors.Join(errs...)
}

// withDefaults fills zero and invalid fields with the defaults, and says
// which invalid ones it replaced.
func (o Options) withDefaults() (Options, []string) {
	d := DefaultOptions()
	var warns []string
	if err := o.Validate(); err != nil {
		warns = append(warns, fmt.Sprintf("invalid options replaced by defaults: %v", err))
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = d.Alpha
	}
	if !(o.Threshold > 0 && o.Threshold < math.Inf(1)) {
		o.Threshold = d.Threshold
	}
	if o.Test != TestWelch {
		o.Test = d.Test
	}
	if o.Better != Higher && o.Better != Neither {
		o.Better = d.Better
	}
	for i, n := range o.Names {
		if n == "" {
			o.Names[i] = d.Names[i]
		}
	}
	return o, warns
}

// A Comparison is the verdict on sample B against baseline A, with the
// figures it rests on.
type Comparison struct {
	A, B    Summary
	Options Options // as used, defaults filled in
	// Change is the relative change of B's centre from A's: the
	// Hodges–Lehmann estimate for the Mann-Whitney test, the ratio of the
	// means minus one for Welch's.
	Change float64
	// CI is the 1−Alpha confidence interval of Change. An end is infinite
	// (or −1, the log-scale floor) when the samples cannot bound it;
	// encoding/json rejects infinities, so renderers must map them.
	CI [2]float64
	// P is the two-sided p-value of the test; Stat its statistic (U of A
	// for Mann-Whitney, t for Welch); Exact says whether a Mann-Whitney P
	// comes from the exact distribution.
	P     float64
	Stat  float64
	Exact bool
	// Verdict is the conclusion, from the direction in Options.Better.
	Verdict Verdict
	// NeedRuns estimates, when Verdict is Inconclusive, how many runs per
	// side would settle the question; 0 when more runs cannot help or
	// nothing allows an estimate.
	NeedRuns int
	// NeedSessions estimates, for an inconclusive comparison across
	// sessions that more runs cannot settle, how many sessions a side
	// would; 0 otherwise.
	NeedSessions int
	// BelowNoise is set when an inconclusive change is too small for any
	// bounded number of runs or sessions to settle against the noise
	// measured: it sits on the threshold, or far below the host's noise.
	BelowNoise bool
	// Centres are the two sides' centres that Change relates, from the
	// estimator that made it, and Centre names them: B's centre over A's,
	// less one, is Change (on raw values, their difference over |A's|).
	// A line that prints figures beside the change prints these, so that
	// they never disagree. Centre is "" when no change was estimated.
	Centres [2]float64 `json:"-"`
	Centre  string     `json:"-"`
	// Design says how the runs were grouped into sessions, when the
	// comparison knew (CompareSessions, and compare for Compare's rows).
	Design Design
	// Emulated is set when a side was measured under TCG emulation
	// (qemu without KVM): the verdict is about emulated timing, not the
	// hardware's, and says so wherever it is printed.
	Emulated bool `json:",omitempty"`
	// Warnings are problems with the data or the options, for the user.
	Warnings []string
}

// Compare compares sample b with baseline a, both in run order, and gives a
// verdict.
//
// Improved or Regressed needs p < Alpha and the whole confidence interval of
// the relative change beyond ±Threshold on one side; NoChange needs the whole
// interval within [−Threshold, +Threshold]; anything else is Inconclusive,
// with an estimate of the runs that would settle it. Samples too small for
// the test ever to reach Alpha (3 runs a side for Mann-Whitney at 0.05, read
// from the exact distribution of U) are always Inconclusive, even when they
// are constant and equal. Two constant samples need no spread: equal ones
// are NoChange, different ones follow the rules above with a point interval.
// Non-finite values are dropped with a warning.
func Compare(a, b []float64, opt Options) Comparison {
	opt, warns := opt.withDefaults()
	a, wa := finiteValues(a, opt.Names[0])
	b, wb := finiteValues(b, opt.Names[1])
	// Sort once: summaries, warnings and both tests work on sorted copies.
	sa, sb := sortedCopy(a), sortedCopy(b)
	c := Comparison{
		A:        summarizeSorted(a, sa),
		B:        summarizeSorted(b, sb),
		Options:  opt,
		P:        1,
		CI:       [2]float64{math.Inf(-1), math.Inf(1)},
		Verdict:  Inconclusive,
		Warnings: append(append(warns, wa...), wb...),
	}
	c.Warnings = append(c.Warnings, sampleWarnings(opt.Names[0], a, sa, c.A, opt.Better)...)
	c.Warnings = append(c.Warnings, sampleWarnings(opt.Names[1], b, sb, c.B, opt.Better)...)
	n1, n2 := len(a), len(b)
	nMin := 2 // Welch needs two values a side for a variance
	if opt.Test == TestMannWhitney {
		nMin = MinRunsFor(opt.Alpha)
	}
	if n1 == 0 || n2 == 0 {
		c.NeedRuns = nMin
		return c
	}
	// Whether the test can give p < α at these sizes at all: below that,
	// every verdict but Inconclusive would rest on nothing.
	reachable := n1 >= nMin && n2 >= nMin
	if opt.Test == TestMannWhitney {
		reachable = MinPValue(n1, n2) < opt.Alpha
	}
	if !reachable {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d and %d runs can never reach p < %v with this test; %d a side can", n1, n2, opt.Alpha, nMin))
	}
	if constant(a) && constant(b) && a[0] == b[0] {
		// No spread and no difference: the interval is the point 0,
		// with no need to divide by a spread.
		c.CI = [2]float64{0, 0}
		if c.Verdict = Decide(c.P, c.CI, reachable, opt); c.Verdict == Inconclusive {
			c.NeedRuns = nMin
		}
		return c
	}

	switch opt.Test {
	case TestWelch:
		w := WelchSummary(c.A.Mean, c.A.Stddev, n1, c.B.Mean, c.B.Stddev, n2)
		c.P, c.Stat = w.P, w.T
		if w.Mean1 == 0 {
			c.Warnings = append(c.Warnings, "the mean of "+opt.Names[0]+" is 0: no relative change")
			return c
		}
		c.Change = w.Change()
		c.CI[0], c.CI[1] = w.RelativeCI(opt.Alpha)
		c.Centres, c.Centre = [2]float64{c.A.Mean, c.B.Mean}, CentreMeans
	default:
		mw := mannWhitneySorted(sa, sb)
		c.P, c.Stat, c.Exact = mw.P, mw.UA, mw.Exact
		sh, err := hodgesLehmannSorted(sa, sb, opt.Alpha)
		if err != nil {
			c.Warnings = append(c.Warnings, err.Error())
			return c
		}
		if !sh.Log {
			c.Warnings = append(c.Warnings, "values ≤ 0: the change is the shift of raw values relative to the median of "+opt.Names[0]+", not a ratio")
		}
		c.Change, c.CI = sh.Change, [2]float64{sh.Lo, sh.Hi}
		// The shift is not a ratio of two centres: A's median and
		// that median shifted by it are the figures it relates.
		m := c.A.Median
		c.Centres, c.Centre = [2]float64{m, m + sh.Change*math.Abs(m)}, CentreShift
	}
	decide(&c, n1, n2, nMin, reachable)
	return c
}

// decide sets the verdict from the p-value and the interval, or the runs
// needed when neither settles it.
func decide(c *Comparison, n1, n2, nMin int, reachable bool) {
	if c.Verdict = Decide(c.P, c.CI, reachable, c.Options); c.Verdict == Inconclusive {
		c.NeedRuns = needRuns(*c, n1, n2, nMin, reachable)
	}
	if c.NeedRuns >= maxNeedRuns {
		// No practical number of runs settles it: say so, not a count.
		c.NeedRuns, c.BelowNoise = 0, true
	}
}

// Decide is the verdict rule, the one every comparison in kdelta comes
// to: on a relative change whose 1−Alpha interval is ci and whose test
// gave p, Improved or Regressed when the test can reach Alpha at these
// sizes (reachable), p < Alpha and the whole interval lies beyond
// ±Threshold on one side, which of the two from opt.Better (Better.Worse,
// so an empty direction is Lower); NoChange when the test can reach Alpha
// and the whole interval lies within ±Threshold; Inconclusive otherwise.
// Zero options take their defaults.
func Decide(p float64, ci [2]float64, reachable bool, opt Options) Verdict {
	opt, _ = opt.withDefaults()
	thr := opt.Threshold
	lo, hi := ci[0], ci[1]
	switch {
	case reachable && p < opt.Alpha && (lo > thr || hi < -thr):
		// The end that cleared the band has the sign of the change.
		end := lo
		if hi < -thr {
			end = hi
		}
		switch {
		case opt.Better == Neither:
			return Changed
		case opt.Better.Worse(end):
			return Regressed
		}
		return Improved
	case reachable && lo >= -thr && hi <= thr:
		return NoChange
	}
	return Inconclusive
}

// CompareSummaries compares two samples known only by their summaries —
// mean, standard deviation and n, as an imported `perf stat -r` block gives
// them — with Welch's t from the summary statistics and Fieller's interval
// for the ratio of the means. The verdict follows the rules of Compare.
// Median, Min and Max of the summaries are not used.
func CompareSummaries(a, b Summary, opt Options) Comparison {
	opt, warns := opt.withDefaults()
	opt.Test = TestWelch
	c := Comparison{
		A: a, B: b, Options: opt, P: 1,
		CI:       [2]float64{math.Inf(-1), math.Inf(1)},
		Verdict:  Inconclusive,
		Warnings: append(warns, "compared from summary statistics (mean, standard deviation, n) with Welch's t"),
	}
	const nMin = 2
	reachable := a.N >= nMin && b.N >= nMin
	if !reachable {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d and %d runs: Welch's t needs %d a side", a.N, b.N, nMin))
		c.NeedRuns = nMin
		return c
	}
	if a.N < 5 || b.N < 5 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("few runs (%d and %d)", a.N, b.N))
	}
	w := WelchSummary(a.Mean, a.Stddev, a.N, b.Mean, b.Stddev, b.N)
	c.P, c.Stat = w.P, w.T
	if w.Mean1 == 0 {
		c.Warnings = append(c.Warnings, "the mean of "+opt.Names[0]+" is 0: no relative change")
		return c
	}
	c.Change = w.Change()
	c.CI[0], c.CI[1] = w.RelativeCI(opt.Alpha)
	c.Centres, c.Centre = [2]float64{a.Mean, b.Mean}, CentreMeans
	decide(&c, a.N, b.N, nMin, reachable)
	return c
}

// needRuns estimates the runs per side that would make the interval of an
// inconclusive comparison either clear the threshold or fit inside the band,
// assuming its width shrinks as √(1/n1 + 1/n2) while the change stays put.
// When the test cannot reach α the interval is a placeholder (its ends are
// the log floor −1 and +Inf), so the width comes from the spreads instead.
func needRuns(c Comparison, n1, n2, nMin int, reachable bool) int {
	thr := c.Options.Threshold
	ch, lo, hi := c.Change, c.CI[0], c.CI[1]
	// The half of the interval that has to shrink, and the room it has.
	var half, room float64
	switch {
	case ch > thr:
		half, room = ch-lo, ch-thr
	case ch < -thr:
		half, room = hi-ch, -thr-ch
	default:
		half, room = math.Max(ch-lo, hi-ch), thr-math.Abs(ch)
	}
	if !reachable || math.IsInf(half, 0) || math.IsNaN(half) || half <= 0 {
		// No usable interval: estimate its half-width from the spreads,
		// the normal-theory width of a difference of two means.
		cvA, cvB := c.A.CV/100, c.B.CV/100
		cv2 := cvA*cvA + cvB*cvB
		z := normalQuantile(1 - c.Options.Alpha/2)
		half = z * math.Sqrt(cv2) * math.Sqrt(1/float64(n1)+1/float64(n2))
	}
	nCur := max(n1, n2)
	switch {
	case half <= 0:
		// No spread at all: only the test's reach is missing, if that.
		if !reachable || min(n1, n2) < nMin {
			return max(nMin, nCur)
		}
		return 0
	case room <= 0:
		return maxNeedRuns
	}
	// half·√((1/n1+1/n2)/(2/n)) = room  ⇔  n = 2(half/room)²/(1/n1+1/n2).
	r := half / room
	n := 2 * r * r / (1/float64(n1) + 1/float64(n2))
	if n > maxNeedRuns {
		return maxNeedRuns
	}
	// Inconclusive now, so at least one more run than we have.
	return max(int(math.Ceil(n)), nMin, nCur+1)
}

// finiteValues returns xs without its NaNs and infinities, and a warning
// naming the sample when it dropped any.
func finiteValues(xs []float64, name string) ([]float64, []string) {
	bad := 0
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			bad++
		}
	}
	if bad == 0 {
		return xs, nil
	}
	out := make([]float64, 0, len(xs)-bad)
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out, []string{fmt.Sprintf("%s: %d non-finite values dropped", name, bad)}
}

// constant reports whether all values of a non-empty xs are equal.
func constant(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return x != xs[0] })
}
