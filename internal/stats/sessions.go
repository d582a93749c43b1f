package stats

import (
	"errors"
	"fmt"
	"math"
)

// Runs within one session share its state: the host's load and frequency,
// cache and memory placement, what a virtual machine's neighbours do. Two
// sessions of one kernel a minute apart can differ by more than their runs
// do, so a test over runs that come from two sessions measures the sessions
// as much as the change. The model here has two levels: on the log scale,
// run j of session s on side X is
//
//	log y = μ_X + u_s + e_sj,  u_s ~ (0, σ²_S),  e_sj ~ (0, σ²_R),
//
// so the mean of a session's n log values has variance σ²_S + σ²_R/n, and
// the difference of two sides' centres, each the unweighted mean of its k
// session means, has
//
//	var(Δ) = Σ_sides (σ²_S + σ²_R/n̄)/k,
//
// which for one session a side is σ²_R/n_A + σ²_R/n_B + 2σ²_S. The run
// term is estimated within the sessions compared (pooled within-session
// variance, N − k degrees of freedom); a side of two sessions or more
// estimates its whole term from the spread of its own session means (k − 1
// degrees of freedom, Welch's test over sessions); a side of one session
// cannot estimate σ²_S and takes it from a SessionNoise, the host's,
// measured by kdelta calibrate, never with a run noise quieter than the
// one of the sessions compared. When the host's noise is known and a side
// has several sessions, one variance of a session mean is pooled from the
// calibration and every side's own session means, and shared by both
// sides (its estimates are not independent, so Satterthwaite must not
// count them twice). The estimates are combined with Satterthwaite's
// degrees of freedom into one Student t, whose test and interval agree by
// construction as the run-level ones do.

// maxNeedSessions caps the sessions an estimate may ask for: beyond it the
// change is too small for this host's session noise to settle.
const maxNeedSessions = 50

// A SessionNoise is a host's between-session spread of a benchmark's
// centre, as kdelta calibrate measures it over A/A sessions.
//
// SD is the standard deviation, on the log scale (about a relative one),
// of a session's centre beyond the noise of its runs, floored at zero:
// the figure to show. A comparison needs the unfloored parts instead, or
// a small estimate of SD would pass for a certain one: MeanSD is the
// standard deviation of the sessions' mean log values as measured, with
// Runs runs a session, so that the variance of one session's centre at n
// runs is MeanSD² + σ²_R·(1/n − 1/Runs), exactly MeanSD² when a
// comparison runs as many runs as the calibration did. Runs 0 means
// MeanSD is SD, a spread with no run noise in it.
type SessionNoise struct {
	SD     float64 `json:"sd"`
	MeanSD float64 `json:"mean_sd,omitempty"`
	Runs   float64 `json:"runs,omitempty"`
	// DF is the estimate's degrees of freedom: the sessions it was
	// measured over, less one. 0 means unknown. A noise assumed rather
	// than measured (Source) has PriorDF: a stated figure, not an
	// estimate.
	DF int `json:"df"`
	// Source says where the figure comes from: measured on the host
	// (NoiseCalibrated, NoiseLearned), or assumed (NoisePrior, the
	// default for a kind of machine; NoiseGiven, --session-noise).
	Source NoiseSource `json:"source,omitempty"`
	// Machine names the kind of machine a prior was taken for ("a
	// virtual machine", "bare metal", "a machine of unknown kind").
	Machine string `json:"machine,omitempty"`
}

// Known tells whether n holds an estimate.
func (n SessionNoise) Known() bool {
	ok := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }
	return n.DF > 0 && ok(n.SD) && ok(n.MeanSD) && ok(n.Runs)
}

// sessionVar returns the variance of one session's centre at n runs, as
// the part known from the calibration (with DF degrees of freedom) and the
// coefficient of the run variance σ²_R to add to it.
func (n SessionNoise) sessionVar(runs int) (v, coefR float64) {
	if n.Runs <= 0 {
		return n.SD * n.SD, 1 / float64(runs)
	}
	return n.MeanSD * n.MeanSD, 1/float64(runs) - 1/n.Runs
}

// A Design says how the runs of the two samples of a comparison were
// grouped into sessions, and so which test judged them.
type Design struct {
	// Shared is set when both samples come from the same sessions,
	// interleaved (kdelta ab): the session's state falls on both alike and
	// the runs are the unit of replication.
	Shared bool `json:"shared,omitempty"`
	// Sessions and Runs count each side's sessions and measured runs.
	Sessions [2]int `json:"sessions"`
	Runs     [2]int `json:"runs"`
	// Noise is the host's session noise the comparison used: known when a
	// side had a single session and it was needed.
	Noise SessionNoise `json:"noise,omitzero"`
	// NoiseUnknown is set when a side had a single session and no session
	// noise was known: the comparison cannot tell a change from the
	// difference of two sessions, and claims nothing.
	NoiseUnknown bool `json:"noise_unknown,omitempty"`
	// Own is the session noise the sides' own sessions show when each
	// has two or more (ownNoise): what the comparison's session term
	// rests on, alone or pooled with the host's (Noise).
	Own SessionNoise `json:"own,omitzero"`
}

// EstimateSessionNoise estimates the session noise of a host from sessions
// that measured the same thing on the same kernel and setup (A/A sessions,
// kdelta calibrate): on logs, the variance of the session means less the
// part their runs explain (the pooled within-session variance over the
// mean run count), floored at zero, with one degree of freedom fewer than
// the sessions. Every value must be positive; at least two sessions with
// a value are needed.
func EstimateSessionNoise(sessions [][]float64) (SessionNoise, error) {
	var lv [][]float64
	for _, s := range sessions {
		var l []float64
		for _, x := range s {
			if !(x > 0) || math.IsInf(x, 0) {
				return SessionNoise{}, fmt.Errorf("session noise: value %v is not a positive figure", x)
			}
			l = append(l, math.Log(x))
		}
		if len(l) > 0 {
			lv = append(lv, l)
		}
	}
	if len(lv) < 2 {
		return SessionNoise{}, fmt.Errorf("session noise: %d sessions with values, need 2 or more", len(lv))
	}
	lev := sessionLevelsOf(lv)
	vm := variance(lev.means)
	inv := 0.0
	for _, n := range lev.sizes {
		inv += 1 / float64(n)
	}
	s2 := vm
	if r2, df := lev.runVariance(); df > 0 {
		s2 -= r2 * inv / float64(len(lev.sizes))
	}
	// The harmonic mean of the runs a session, as the run term averages
	// 1/n over the sessions.
	runs := float64(len(lev.sizes)) / inv
	return SessionNoise{SD: math.Sqrt(math.Max(s2, 0)), MeanSD: math.Sqrt(vm), Runs: runs, DF: len(lv) - 1}, nil
}

// sessionLevels are one side's (log) values as sessions: each session's mean and
// size, and the sum of squares within sessions.
type sessionLevels struct {
	means []float64
	sizes []int
	ss    float64
	n     int
}

func sessionLevelsOf(sessions [][]float64) sessionLevels {
	var l sessionLevels
	for _, s := range sessions {
		m := mean(s)
		for _, x := range s {
			l.ss += (x - m) * (x - m)
		}
		l.means = append(l.means, m)
		l.sizes = append(l.sizes, len(s))
		l.n += len(s)
	}
	return l
}

// runVariance is the pooled within-session variance of l and its degrees
// of freedom.
func (l sessionLevels) runVariance() (float64, int) {
	df := l.n - len(l.sizes)
	if df <= 0 {
		return 0, 0
	}
	return l.ss / float64(df), df
}

// variance is the sample variance (divisor n−1) of at least two values.
func variance(xs []float64) float64 {
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}

// A component is one estimated variance of a sum and its degrees of
// freedom, for Satterthwaite's approximation.
type component struct{ v, df float64 }

// satterthwaite returns the sum of the components and its approximate
// degrees of freedom. A component may be negative (a correction); its
// square counts all the same.
func satterthwaite(cs []component) (v, df float64) {
	var den float64
	for _, c := range cs {
		v += c.v
		if c.v != 0 {
			den += c.v * c.v / c.df
		}
	}
	if den == 0 {
		return v, math.Inf(1)
	}
	return v, v * v / den
}

// CompareSessions compares sample b with baseline a measured in separate
// sessions, each sample given as its sessions' values in run order, under
// the two-level model above; noise is the host's session noise, needed
// when a side has a single session. The verdict follows Decide. With one
// session on a side and noise unknown the verdict is Inconclusive with
// Design.NoiseUnknown set: two sessions differ by their own state, which
// nothing here measures. Non-finite values are dropped with a warning, and
// sessions left empty with them.
func CompareSessions(a, b [][]float64, noise SessionNoise, opt Options) Comparison {
	opt, warns := opt.withDefaults()
	a, wa := finiteSessions(a, opt.Names[0])
	b, wb := finiteSessions(b, opt.Names[1])
	fa, fb := flatten(a), flatten(b)
	sa, sb := sortedCopy(fa), sortedCopy(fb)
	c := Comparison{
		A: summarizeSorted(fa, sa), B: summarizeSorted(fb, sb), Options: opt, P: 1,
		CI:       [2]float64{math.Inf(-1), math.Inf(1)},
		Verdict:  Inconclusive,
		Warnings: append(append(warns, wa...), wb...),
		Design:   Design{Sessions: [2]int{len(a), len(b)}, Runs: [2]int{len(fa), len(fb)}},
	}
	c.Warnings = append(c.Warnings, sampleWarnings(opt.Names[0], fa, sa, c.A, opt.Better)...)
	c.Warnings = append(c.Warnings, sampleWarnings(opt.Names[1], fb, sb, c.B, opt.Better)...)
	if opt.Test == TestWelch {
		c.Warnings = append(c.Warnings, "separate sessions: compared with the two-level t over sessions, not Welch's t over runs")
	}
	if len(fa) == 0 || len(fb) == 0 {
		c.NeedRuns = 2
		return c
	}
	la, lb, toChange, err := logLevels(a, b, sa)
	if err != nil {
		c.Warnings = append(c.Warnings, err.Error())
		return c
	}
	d := mean(lb.means) - mean(la.means)
	c.Change = toChange(d)
	c.Centres, c.Centre = centres(la, lb, toChange(1) == 1, mean(sa)) // raw values: toChange is d ↦ d
	single := len(a) == 1 || len(b) == 1
	if single {
		if !noise.Known() {
			c.Design.NoiseUnknown = true
			return c
		}
		c.Design.Noise = noise
	}
	r2, dfR := pooledRunVariance(la, lb)
	if len(la.means) >= 2 && len(lb.means) >= 2 {
		c.Design.Own = ownNoise(la, lb, r2)
	}
	var comps []component
	multi := len(la.means) >= 2 || len(lb.means) >= 2
	// A prior is a stand-in for a side of one session, never pooled with
	// what sides of several sessions measure of their own.
	if noise.Known() && multi && dfR > 0 && noise.Source != NoisePrior {
		comps = pooledSessions(&c, la, lb, r2, noise)
	} else if !sideComponents(&c, &comps, la, lb, r2, dfR, noise) {
		return c
	}
	v, df := satterthwaite(comps)
	c.Stat = math.Copysign(math.Inf(1), d)
	switch {
	case v == 0 && d == 0:
		c.CI, c.Stat = [2]float64{0, 0}, 0
	case v == 0:
		c.CI, c.P = [2]float64{c.Change, c.Change}, 0
	default:
		se := math.Sqrt(v)
		c.Stat = d / se
		c.P = studentTwoSided(c.Stat, df)
		q := studentQuantile(1-opt.Alpha/2, df)
		c.CI = [2]float64{toChange(d - q*se), toChange(d + q*se)}
	}
	if c.Verdict = Decide(c.P, c.CI, true, opt); c.Verdict == Inconclusive {
		needSessions(&c, la, lb, r2, noise, df)
	}
	return c
}

// ownNoise is the session noise that two sides of two sessions or more
// show of their own, as EstimateSessionNoise estimates a host's: the
// variance of a session mean pooled within the sides (k−1 degrees of
// freedom each), less the part the runs explain (r2, the pooled run
// variance, over the harmonic mean of the runs a session), floored at
// zero.
func ownNoise(la, lb sessionLevels, r2 float64) SessionNoise {
	var ss, inv float64
	df, k := 0, 0
	for _, l := range []sessionLevels{la, lb} {
		ss += float64(len(l.means)-1) * variance(l.means)
		df += len(l.means) - 1
		for _, n := range l.sizes {
			inv += 1 / float64(n)
			k++
		}
	}
	vm := ss / float64(df)
	runs := float64(k) / inv
	return SessionNoise{SD: math.Sqrt(math.Max(vm-r2/runs, 0)), MeanSD: math.Sqrt(vm), Runs: runs, DF: df}
}

// sideComponents appends to comps the variance terms of each side on its
// own: a side of several sessions from the spread of its session means,
// a single session from the host's noise. It reports false, with a
// warning, when a single session's runs leave the run noise unknown.
func sideComponents(c *Comparison, comps *[]component, la, lb sessionLevels, r2 float64, dfR int, noise SessionNoise) bool {
	// A single session's centre has the variance σ²_S + σ²_R/n. The
	// calibration measured it at its own runs and run noise (MeanSD at
	// Runs), which a correction for this session's n turns into the
	// variance here when the run noise is what it was then; when this
	// comparison's runs are noisier (a host loaded now and quiet then),
	// σ²_S (SD) plus this comparison's σ²_R/n is the larger, and is taken:
	// the session term is never judged on a quieter run noise than the
	// sessions compared show.
	var calV, coefR, floor, singles float64
	for _, l := range []sessionLevels{la, lb} {
		if k := len(l.means); k >= 2 {
			*comps = append(*comps, component{variance(l.means) / float64(k), float64(k - 1)})
			continue
		}
		v, cr := noise.sessionVar(l.n)
		calV += v
		coefR += cr
		floor += r2 / float64(l.n)
		singles++
	}
	if singles == 0 {
		return true
	}
	if dfR == 0 {
		c.Warnings = append(c.Warnings, "one run per session: the noise of runs is unknown")
		c.NeedRuns = 2
		return false
	}
	between := singles * noise.SD * noise.SD
	if calV+coefR*r2 > between+floor {
		*comps = append(*comps, component{calV, float64(noise.DF)}, component{coefR * r2, float64(dfR)})
	} else {
		*comps = append(*comps, component{between, float64(noise.DF)}, component{floor, float64(dfR)})
	}
	return true
}

// pooledSessions is the variance of the change when a side has several
// sessions and the host's session noise is known: one estimate of the
// variance of a session mean, pooled from the sides' own session means
// (k−1 degrees of freedom each) and the calibration's (DF, read at the
// mean runs a session here, the larger of its two readings as for a
// single session), shared by both sides, so the sides' terms are not
// counted as independent estimates. It returns the one component.
func pooledSessions(c *Comparison, la, lb sessionLevels, r2 float64, noise SessionNoise) []component {
	n := float64(la.n+lb.n) / float64(len(la.means)+len(lb.means))
	cv, cr := noise.sessionVar(int(math.Round(n)))
	cal := math.Max(cv+cr*r2, noise.SD*noise.SD+r2/n)
	ss, df := float64(noise.DF)*cal, float64(noise.DF)
	var inv float64
	for _, l := range []sessionLevels{la, lb} {
		k := len(l.means)
		inv += 1 / float64(k)
		if k >= 2 {
			ss += float64(k-1) * variance(l.means)
			df += float64(k - 1)
		}
	}
	c.Design.Noise = noise
	return []component{{ss / df * inv, df}}
}

// CompareSummarySessions compares two samples known only by their
// summaries (mean, standard deviation, n), each one session of its own
// (an imported perf stat -r block), as CompareSessions compares one
// session a side: the relative standard errors of the means on the log
// scale (the delta method) and the host's session noise twice, with
// Satterthwaite's degrees of freedom. Noise unknown, it claims nothing
// (Design.NoiseUnknown).
func CompareSummarySessions(a, b Summary, noise SessionNoise, opt Options) Comparison {
	opt, warns := opt.withDefaults()
	c := Comparison{
		A: a, B: b, Options: opt, P: 1,
		CI:       [2]float64{math.Inf(-1), math.Inf(1)},
		Verdict:  Inconclusive,
		Warnings: append(warns, "compared from summary statistics (mean, standard deviation, n)"),
		Design:   Design{Sessions: [2]int{1, 1}, Runs: [2]int{a.N, b.N}},
	}
	if a.N < 2 || b.N < 2 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d and %d runs: a summary needs 2 or more", a.N, b.N))
		c.NeedRuns = 2
		return c
	}
	if !(a.Mean > 0 && b.Mean > 0) {
		c.Warnings = append(c.Warnings, "a mean is ≤ 0: no relative change across sessions")
		return c
	}
	d := math.Log(b.Mean / a.Mean)
	c.Change = math.Expm1(d)
	c.Centres, c.Centre = [2]float64{a.Mean, b.Mean}, CentreMeans
	if !noise.Known() {
		c.Design.NoiseUnknown = true
		return c
	}
	c.Design.Noise = noise
	rel := func(s Summary) float64 { e := s.Stddev / math.Sqrt(float64(s.N)) / s.Mean; return e * e }
	v, df := satterthwaite([]component{
		{rel(a), float64(a.N - 1)}, {rel(b), float64(b.N - 1)},
		{2 * noise.SD * noise.SD, float64(noise.DF)},
	})
	if v == 0 {
		c.CI, c.P = [2]float64{c.Change, c.Change}, 0
		if d == 0 {
			c.P = 1
		}
	} else {
		se := math.Sqrt(v)
		c.Stat = d / se
		c.P = studentTwoSided(c.Stat, df)
		q := studentQuantile(1-opt.Alpha/2, df)
		c.CI = [2]float64{math.Expm1(d - q*se), math.Expm1(d + q*se)}
	}
	c.Verdict = Decide(c.P, c.CI, true, opt)
	return c
}

// logLevels turns both sides into levels on the log scale when every value
// is positive, else into raw values over |mean(A)|, and returns the map
// from a difference of centres to a relative change. sa is A sorted.
func logLevels(a, b [][]float64, sa []float64) (sessionLevels, sessionLevels, func(float64) float64, error) {
	positive := sa[0] > 0
	for _, s := range b {
		for _, x := range s {
			positive = positive && x > 0
		}
	}
	scale := 1.0
	f := math.Log
	toChange := math.Expm1
	if !positive {
		scale = math.Abs(mean(sa))
		if scale == 0 {
			return sessionLevels{}, sessionLevels{}, nil, errors.New("values ≤ 0 and the mean of the baseline is 0: no relative change")
		}
		f = func(x float64) float64 { return x / scale }
		toChange = func(d float64) float64 { return d }
	}
	tr := func(ss [][]float64) sessionLevels {
		out := make([][]float64, len(ss))
		for i, s := range ss {
			out[i] = make([]float64, len(s))
			for j, x := range s {
				out[i][j] = f(x)
			}
		}
		return sessionLevelsOf(out)
	}
	return tr(a), tr(b), toChange, nil
}

// pooledRunVariance pools the within-session variance of both sides.
func pooledRunVariance(a, b sessionLevels) (float64, int) {
	df := a.n - len(a.sizes) + b.n - len(b.sizes)
	if df <= 0 {
		return 0, 0
	}
	return (a.ss + b.ss) / float64(df), df
}

// needSessions estimates, for an inconclusive comparison across sessions,
// what would settle it: more runs per session when the run term limits
// the interval, more sessions a side when the session term does, or
// neither within bounds (BelowNoise). It assumes equal designs on both
// sides, k sessions of n runs, the variance 2(σ²_S + σ²_R/n)/k, and the
// change staying put; its quantile is Student's at the degrees of freedom
// df the comparison had (more runs leave the calibration's as they are),
// or, over sessions, at those of the sessions asked for.
func needSessions(c *Comparison, la, lb sessionLevels, r2 float64, noise SessionNoise, df float64) {
	thr := c.Options.Threshold
	d, room := math.Log1p(c.Change), 0.0
	switch ch := c.Change; {
	case ch > thr:
		room = d - math.Log1p(thr)
	case ch < -thr:
		room = math.Log1p(-thr) - d
	default:
		room = math.Min(math.Log1p(thr)-d, d-math.Log1p(-thr))
	}
	k := float64(min(len(la.means), len(lb.means)))
	n := math.Floor(float64(la.n+lb.n) / float64(len(la.means)+len(lb.means)))
	if room <= 0 || math.IsNaN(room) {
		c.BelowNoise = true
		return
	}
	z := normalQuantile(1 - c.Options.Alpha/2)
	if df > 0 && !math.IsInf(df, 0) {
		z = studentQuantile(1-c.Options.Alpha/2, df)
	}
	w := room * room / (z * z) // the variance that would settle it
	if !c.Design.Noise.Known() {
		// A test over the sessions themselves: its precision, and its
		// degrees of freedom, come from sessions, which more runs in
		// the same few cannot give. The variance of a session mean is
		// what the sides show.
		// Its quantile is Student's at 2(k−1) degrees of freedom for
		// k sessions a side, which a few rounds of the estimate find.
		vm := (variance(la.means) + variance(lb.means)) / 2
		ks := 2 * vm / w
		for range 4 {
			if ks > maxNeedSessions || math.IsNaN(ks) {
				break
			}
			q := studentQuantile(1-c.Options.Alpha/2, 2*(math.Max(math.Ceil(ks), 2)-1))
			ks = 2 * vm * q * q / (room * room)
		}
		needK(c, ks, k)
		return
	}
	s2 := noise.SD * noise.SD
	if free := w*k/2 - s2; free > 0 {
		// More runs in the same sessions suffice.
		if runs := r2 / free; runs <= maxNeedRuns {
			c.NeedRuns = max(int(math.Ceil(runs)), int(n)+1, 2)
			return
		}
	}
	needK(c, 2*(s2+r2/n)/w, k)
}

// needK sets the sessions a side that the estimate ks asks for, at least
// one more than the k there are, or BelowNoise beyond maxNeedSessions.
func needK(c *Comparison, ks, k float64) {
	if ks > maxNeedSessions || math.IsNaN(ks) {
		c.BelowNoise = true
		return
	}
	c.NeedSessions = max(int(math.Ceil(ks)), int(k)+1, 2)
}

// finiteSessions drops the non-finite values of each session, and the
// sessions left without values, with a warning naming the sample.
func finiteSessions(ss [][]float64, name string) ([][]float64, []string) {
	var out [][]float64
	bad := 0
	for _, s := range ss {
		f, w := finiteValues(s, name)
		if w != nil {
			bad += len(s) - len(f)
		}
		if len(f) > 0 {
			out = append(out, f)
		}
	}
	if bad == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("%s: %d non-finite values dropped", name, bad)}
}

func flatten(ss [][]float64) []float64 {
	var out []float64
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}
