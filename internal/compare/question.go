package compare

import (
	"math"
	"strings"

	"github.com/kdelta/kdelta/internal/result"
	"github.com/kdelta/kdelta/internal/stats"
)

// A Question is one thing a stopping loop waits on and a multi-variant
// report answers: has the candidate's metric changed against the
// baseline's? Its Comparison holds the verdict and what it rests on:
// the design (one session shared, or the sessions a side) and the
// session noise, the host's or the prior, that a side of one session
// needed. Every loop that asks "run more?" — kdelta run, ab and bisect-run
// --until-conclusive, kdelta vm and series --until-conclusive — asks it
// of Questions, by Settled and Open, and nowhere else.
type Question struct {
	// Baseline and Candidate are the sets compared, by their index among
	// those asked of (VersusFirst: 0 and i), or as their caller numbers
	// them.
	Baseline, Candidate int
	// Key is the candidate's benchmark (result.Benchmark.Key), Bench the
	// same as a line names it (workload and parameters), Metric the
	// metric compared.
	Key, Bench, Metric string
	// Comparison is Candidate against Baseline; A.N is 0 when they could
	// not be compared, and Why says why.
	Comparison stats.Comparison
	Why        string
	// Note says which fallback of the pairing matched (Pair), "" for a
	// match by workload and parameters.
	Note string
	// Step is the change point a series has between the two, nil for
	// none (kdelta series): a place where the series steps is not
	// settled by a ~.
	Step *stats.ChangePoint
	// Toward, when set, makes the question bisect-run's with a bad set:
	// is the change from the baseline (the good set) nearer none or
	// Toward's, the change from the baseline to a reference known to be
	// worse (the bad set)? Side answers it.
	Toward *stats.Comparison
	// Better is the metric's direction for Side; "" takes the
	// comparison's (Comparison.Options.Better).
	Better stats.Better
	// MinSessions is the sessions each side needs at least, when the
	// sides are separate sessions, before the question can be settled:
	// kdelta vm's MinBoots (two boots' own states are not what a prior
	// session noise was measured on). 0 or 1 asks for none beyond one.
	MinSessions int
}

// Settled is the one rule of kdelta for "is this question answered?": the
// two were compared, over MinSessions sessions a side at least when they
// are separate sessions, and the verdict is conclusive — improved or
// regressed (an interval clear of the noise band on one side), or ~ (an
// interval inside it) where no change point says the series steps there;
// or, asked Toward a worse reference, the interval lies on one side of
// the midpoint (Side).
func (q Question) Settled() bool {
	c := q.Comparison
	if c.A.N == 0 || q.few() {
		return false
	}
	if q.Toward != nil {
		return q.Side() != 0
	}
	switch c.Verdict {
	case stats.Improved, stats.Regressed:
		return true
	case stats.NoChange:
		return q.Step == nil
	}
	return false
}

// Open tells whether more runs or sessions may still settle q: it is
// not Settled, it was compared (a question with nothing to compare waits
// on nothing more of the same), and either it has fewer than MinSessions
// sessions a side or its change is not far below a session noise stated
// for it (the host's, the prior or --session-noise: stats' BelowNoise,
// more sessions than any bound would be needed). A change below the
// noise that only the sides' own few sessions measured stays open: that
// estimate rests on a degree of freedom or two.
func (q Question) Open() bool {
	c := q.Comparison
	if q.Settled() || c.A.N == 0 {
		return false
	}
	if q.few() {
		return true
	}
	across := c.Design.Runs != [2]int{} && !c.Design.Shared
	return !(across && c.BelowNoise && c.Design.Noise.Known())
}

// Midpoint is the change halfway from the baseline to Toward's on the
// log scale, the geometric midpoint of the two levels (a +100% step
// splits at +41.4%); 0 without Toward.
func (q Question) Midpoint() float64 {
	if q.Toward == nil {
		return 0
	}
	return math.Expm1(math.Log1p(q.Toward.Change) / 2)
}

// Side places the comparison's interval against the Midpoint, oriented
// by the metric's direction (Better): -1 when the
// whole interval is on the baseline's side, +1 when it is on Toward's,
// 0 when it straddles the midpoint or is unbounded (or q has no Toward).
func (q Question) Side() int {
	if q.Toward == nil {
		return 0
	}
	better := q.Better
	if better == "" {
		better = q.Comparison.Options.Better
	}
	rise := better.Worse(1) // a rise is for the worse
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
	mid := worse(q.Toward.Change) / 2
	lo, hi := worse(q.Comparison.CI[0]), worse(q.Comparison.CI[1])
	if lo > hi {
		lo, hi = hi, lo
	}
	switch {
	case math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi):
		return 0
	case hi < mid:
		return -1
	case lo > mid:
		return 1
	}
	return 0
}

// few tells whether a side of q, measured apart from the other, has
// fewer than MinSessions sessions.
func (q Question) few() bool {
	d := q.Comparison.Design
	if d.Shared || q.MinSessions <= 1 {
		return false
	}
	return min(d.Sessions[0], d.Sessions[1]) < q.MinSessions
}

// An Asking says how VersusFirst asks its questions: how a candidate's
// benchmark finds its baseline's (Pairing), which metric (Metric of the
// candidate's benchmark; nil: its first; "": none, no question) and the
// sessions a side each question needs (Question.MinSessions).
type Asking struct {
	Pairing     Pairing
	Metric      func(*result.Benchmark) string
	MinSessions int
}

// VersusFirst is the one "each variant against the first" of kdelta: for
// each set after the first, in order, and each of its benchmarks, the
// Question of its metric against the counterpart in sets[0], compared as
// kdelta compare compares them (MetricIn) under opt — so with the host's
// session noise (opt.Noise), else the prior for the kind of machine, else
// --session-noise's figure. A benchmark that could not be compared (no
// metric, skipped, no values, no counterpart) has a Question with A.N 0
// and its Why; one whose Metric is "" has none.
func VersusFirst(sets []*result.Set, opt Options, ask Asking) []Question {
	var qs []Question
	if len(sets) < 2 || sets[0] == nil {
		return nil
	}
	base := sets[0]
	for i, set := range sets[1:] {
		if set == nil {
			continue
		}
		for _, b := range set.Benchmarks {
			q := Question{Baseline: 0, Candidate: i + 1, Key: b.Key(), MinSessions: ask.MinSessions,
				Bench: strings.TrimSpace(b.Workload + " " + result.FormatParams(b.Params))}
			switch {
			case ask.Metric != nil:
				q.Metric = ask.Metric(b)
				if q.Metric == "" {
					continue
				}
			case len(b.Metrics) == 0:
				q.Why = b.Key() + " has no metrics"
				qs = append(qs, q)
				continue
			default:
				q.Metric = b.Metrics[0].Name
			}
			if b.Skipped != "" {
				q.Why = "skipped: " + b.Skipped
				qs = append(qs, q)
				continue
			}
			if len(b.Values(q.Metric)) == 0 && b.Summaries[q.Metric].N == 0 {
				q.Why = "no measured values"
				qs = append(qs, q)
				continue
			}
			o, note := Pair(b, len(set.Benchmarks), base.Benchmarks, ask.Pairing)
			q.Note = note
			var err error
			switch {
			case o == nil:
				var keys []string
				for _, ob := range base.Benchmarks {
					keys = append(keys, ob.Key())
				}
				q.Why = "not compared with the baseline: no benchmark matches " + b.Key() + " (it has " + strings.Join(keys, "; ") + ")"
			case o.Skipped != "":
				q.Why = "skipped in the baseline: " + o.Skipped
			default:
				if q.Comparison, err = MetricIn(base, o, set, b, q.Metric, opt); err != nil {
					q.Why = "not compared with the baseline: " + err.Error()
				}
			}
			qs = append(qs, q)
		}
	}
	return qs
}
